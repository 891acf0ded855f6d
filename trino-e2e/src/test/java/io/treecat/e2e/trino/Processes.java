package io.treecat.e2e.trino;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Stopping the server processes the tests start, and nothing else. */
final class Processes {
    private Processes() {}

    /**
     * Kills the process if the test JVM exits without stopping it (a failed run, Ctrl-C): a server left behind would
     * hold its ports and memory on a shared machine.
     */
    static Process killOnExit(Process process) {
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            process.descendants().forEach(ProcessHandle::destroyForcibly);
                            process.destroyForcibly();
                        },
                        "kill-" + process.pid()));
        return process;
    }

    /**
     * SIGTERM so the server shuts down cleanly, then SIGKILL (with its children) if it is still up after {@code grace}.
     * Interrupted while waiting, it kills at once and keeps the interrupt for the caller.
     */
    static void stop(Process process, Duration grace) {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }
}
