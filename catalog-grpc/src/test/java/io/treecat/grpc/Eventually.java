package io.treecat.grpc;

import java.time.Duration;
import java.util.concurrent.Callable;

/** Waits for a condition, polling (Awaitility is not among the build's dependencies). */
final class Eventually {
    private Eventually() {}

    static void until(Duration timeout, Callable<Boolean> condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (!condition.call()) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("Condition not met within " + timeout);
                }
                Thread.sleep(10);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("Interrupted", e);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
