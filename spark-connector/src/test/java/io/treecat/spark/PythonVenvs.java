package io.treecat.spark;

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Python virtual environments under {@code target/}, each with one package from PyPI, and running Python. */
final class PythonVenvs {
    private PythonVenvs() {}

    /**
     * The python of venv {@code target/<name>}, with {@code requirement} (a pip requirement, pinned) installed into
     * it unless this build already did. The failsafe plugin runs two test JVMs side by side, so the check and the
     * install hold a lock file beside the venv: the second JVM waits, then finds it installed.
     */
    static synchronized Path python(String name, String requirement, Path scratch) throws Exception {
        Path venv = Path.of("target", name).toAbsolutePath();
        Files.createDirectories(venv.getParent());
        try (FileChannel lockFile = FileChannel.open(
                        venv.resolveSibling(name + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock ignored = lockFile.lock()) {
            return install(venv, requirement, scratch);
        }
    }

    private static Path install(Path venv, String requirement, Path scratch) throws Exception {
        Path python = venv.resolve("bin/python");
        Path installed = venv.resolve("installed.txt");
        if (Files.isRegularFile(installed) && Files.readString(installed).equals(requirement)) {
            return python;
        }
        run(List.of("python3", "-m", "venv", "--clear", venv.toString()), scratch, "python3 -m venv");
        run(
                List.of(python.toString(), "-m", "pip", "install", "--disable-pip-version-check", "-q", requirement),
                scratch,
                "pip install " + requirement);
        Files.writeString(installed, requirement);
        return python;
    }

    /** Runs {@code command} to its end (at most 5 minutes) and returns its standard output. */
    static String run(List<String> command, Path scratch, String what) throws Exception {
        Path out = Files.createTempFile(scratch, "out", ".txt");
        Path err = Files.createTempFile(scratch, "err", ".txt");
        Process process = new ProcessBuilder(command)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        if (!process.waitFor(5, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IllegalStateException(what + " did not finish in 5 minutes");
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException(what + " failed with " + process.exitValue() + ":\n"
                    + Files.readString(err, StandardCharsets.UTF_8));
        }
        return Files.readString(out, StandardCharsets.UTF_8);
    }
}
