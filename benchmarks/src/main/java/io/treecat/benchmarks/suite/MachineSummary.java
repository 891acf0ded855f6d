package io.treecat.benchmarks.suite;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The machine a run measured on, since every figure depends on it: cores, memory, CPU, JDK, the
 * disk under the work directory and its fsync latency (a 4 KiB append and {@code force}, what a
 * durable commit waits for), and the load average when the run began.
 */
public record MachineSummary(Map<String, Object> facts) {
    private static final int FSYNC_SAMPLES = 300;

    public static MachineSummary measure(Path workDirectory) throws IOException {
        Map<String, Object> facts = new LinkedHashMap<>();
        OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        facts.put("cores", Runtime.getRuntime().availableProcessors());
        facts.put("memory GiB", Math.round(os.getTotalMemorySize() / (1024.0 * 1024 * 1024) * 10) / 10.0);
        facts.put("cpu", cpuModel().orElse("unknown"));
        facts.put(
                "os",
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                        + System.getProperty("os.arch"));
        facts.put("jdk", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        FileStore store = Files.getFileStore(workDirectory);
        facts.put("disk", store.name() + " (" + store.type() + ")");
        long[] fsync = fsyncLatency(workDirectory.resolve("fsync-probe.bin"));
        facts.put("fsync p50 ms", Percentiles.ofSorted(fsync, 50) / 1e6);
        facts.put("fsync p99 ms", Percentiles.ofSorted(fsync, 99) / 1e6);
        facts.put("load average at start", Math.round(os.getSystemLoadAverage() * 100) / 100.0);
        gitCommit().ifPresent(commit -> facts.put("commit", commit));
        return new MachineSummary(java.util.Collections.unmodifiableMap(facts));
    }

    private static long[] fsyncLatency(Path file) throws IOException {
        long[] nanos = new long[FSYNC_SAMPLES];
        ByteBuffer block = ByteBuffer.allocateDirect(4096);
        try (FileChannel channel = FileChannel.open(
                file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            for (int i = 0; i < nanos.length; i++) {
                block.clear();
                long start = System.nanoTime();
                channel.write(block);
                channel.force(false);
                nanos[i] = System.nanoTime() - start;
            }
        } finally {
            Files.deleteIfExists(file);
        }
        Arrays.sort(nanos);
        return nanos;
    }

    private static Optional<String> cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo"), StandardCharsets.UTF_8).stream()
                    .filter(line -> line.startsWith("model name"))
                    .map(line -> line.substring(line.indexOf(':') + 1).trim())
                    .findFirst();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The commit measured, when the suite runs in a git work tree (run.sh does). */
    private static Optional<String> gitCommit() {
        try {
            Process git = new ProcessBuilder(List.of("git", "rev-parse", "--short=10", "HEAD"))
                    .redirectErrorStream(true)
                    .start();
            String output = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (git.waitFor(10, TimeUnit.SECONDS) && git.exitValue() == 0 && output.matches("[0-9a-f]+")) {
                return Optional.of(output);
            }
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Optional.empty();
    }

    String toMarkdown() {
        StringBuilder out = new StringBuilder("| machine | |\n|---|---|\n");
        facts.forEach((name, value) -> out.append("| ")
                .append(name)
                .append(" | ")
                .append(ResultTable.shown(value))
                .append(" |\n"));
        return out.toString();
    }
}
