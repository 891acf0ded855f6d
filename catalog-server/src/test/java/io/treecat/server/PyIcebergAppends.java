package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * PyIceberg processes appending batches to one table ({@code crash_appender.py}) while the servers under them are
 * killed, frozen or replaced, and the check of the table against what they were told: for the tests of durability
 * from outside ({@link CrashDurabilityIT}, {@link ReplicationIT}).
 */
final class PyIcebergAppends {
    /** Rows per batch ({@code crash_appender.py}'s ROWS). */
    static final int ROWS = 5;

    private static final ObjectMapper JSON = new ObjectMapper();

    /** What one writer sent and what the server acknowledged, over all its runs. */
    static final class Ledger {
        final Set<Long> attempted = ConcurrentHashMap.newKeySet();
        /** Seq to what the acknowledgement named: the snapshot id of an append, the vid of a commit. */
        final Map<Long, Long> acknowledged = new ConcurrentHashMap<>();

        long nextSeq() {
            return attempted.stream().mapToLong(Long::longValue).max().orElse(-1) + 1;
        }

        Set<Long> unknown() {
            Set<Long> unknown = new HashSet<>(attempted);
            unknown.removeAll(acknowledged.keySet());
            return unknown;
        }
    }

    private final Path python;
    private final Path directory;

    /** @param directory where the processes run, write their acknowledgements and their logs */
    PyIcebergAppends(Path python, Path directory) {
        this.python = python;
        this.directory = directory;
    }

    /** Creates the namespace and the table, through {@code server}. */
    void setUp(URI server) throws Exception {
        PythonProcesses.Run run =
                PythonProcesses.run(List.of(python.toString(), script(), "setup", server.toString()), directory, 180);
        assertThat(run.exitCode())
                .as("setup failed:%n%s%n%s", run.out(), run.err())
                .isZero();
    }

    /**
     * Starts one appender through {@code server}, from the ledger's next seq, for at most {@code seconds}; it writes
     * "attempt" and "ack" lines to {@code acks} ({@link #collect}) and its output to {@code log}.
     */
    Process start(URI server, int writer, Ledger ledger, Path acks, Path log, int seconds) throws IOException {
        return new ProcessBuilder(
                        python.toString(),
                        script(),
                        "append",
                        server.toString(),
                        String.valueOf(writer),
                        String.valueOf(ledger.nextSeq()),
                        acks.toString(),
                        String.valueOf(seconds))
                .directory(directory.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
    }

    /** Records an appender's "attempt" and "ack" lines in its ledger, once it has stopped. */
    static void collect(Path acks, Ledger ledger) throws IOException {
        for (String line : Files.readAllLines(acks)) {
            String[] fields = line.split(" ");
            if (fields[0].equals("attempt")) {
                ledger.attempted.add(Long.parseLong(fields[1]));
            } else if (fields[0].equals("ack")) {
                ledger.acknowledged.put(Long.parseLong(fields[1]), Long.parseLong(fields[2]));
            }
        }
    }

    /**
     * Reads the table through {@code server} and checks it against the writers' ledgers: every acknowledged batch
     * has all its rows and its snapshot is in the table's history, no row is there twice, every batch there is
     * whole and was sent. Answers how many batches of unknown outcome are there.
     */
    int check(URI server, List<Ledger> appends) throws Exception {
        PythonProcesses.Run run =
                PythonProcesses.run(List.of(python.toString(), script(), "verify", server.toString()), directory, 300);
        assertThat(run.exitCode())
                .as("verify failed:%n%s%n%s", run.out(), run.err())
                .isZero();
        JsonNode table = JSON.readTree(run.out());
        assertThat(table.get("duplicateIds").asInt())
                .as("rows that are there twice")
                .isZero();
        Map<String, Integer> batches = new TreeMap<>();
        table.get("batches")
                .fields()
                .forEachRemaining(
                        entry -> batches.put(entry.getKey(), entry.getValue().asInt()));
        Set<Long> snapshots = new HashSet<>();
        table.get("snapshots").forEach(snapshot -> snapshots.add(snapshot.asLong()));
        int presentUnknown = 0;
        for (int writer = 0; writer < appends.size(); writer++) {
            Ledger ledger = appends.get(writer);
            for (Map.Entry<Long, Long> ack : ledger.acknowledged.entrySet()) {
                assertThat(batches.get(writer + ":" + ack.getKey()))
                        .as("rows of acknowledged append %d:%d", writer, ack.getKey())
                        .isEqualTo(ROWS);
                assertThat(snapshots)
                        .as("snapshot of acknowledged append %d:%d", writer, ack.getKey())
                        .contains(ack.getValue());
            }
            for (long seq : ledger.unknown()) {
                presentUnknown += batches.containsKey(writer + ":" + seq) ? 1 : 0;
            }
        }
        for (Map.Entry<String, Integer> batch : batches.entrySet()) {
            String[] key = batch.getKey().split(":");
            assertThat(batch.getValue())
                    .as("rows of batch %s (whole or absent)", batch.getKey())
                    .isEqualTo(ROWS);
            assertThat(appends.get(Integer.parseInt(key[0])).attempted)
                    .as("batch %s was sent", batch.getKey())
                    .contains(Long.parseLong(key[1]));
        }
        return presentUnknown;
    }

    private static String script() {
        return PythonProcesses.script("crash_appender.py").toString();
    }
}
