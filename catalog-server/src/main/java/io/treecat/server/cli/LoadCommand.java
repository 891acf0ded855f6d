package io.treecat.server.cli;

import io.treecat.grpc.client.LoadSummary;
import io.treecat.grpc.client.TreeCatClient;
import java.io.FilterReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/**
 * {@code treecat load FILE}: bulk-loads JSON lines ({@code {"path", "kind", "value"}} a line, parents
 * first), showing a progress bar on standard error and the final count and rate.
 */
final class LoadCommand extends RemoteCommand {
    private static final long REDRAW_NANOS = 200_000_000L;

    LoadCommand() {
        super("load", "Bulk-loads objects from JSON lines ('-' reads standard input)");
    }

    @Override
    void configureArguments(Subparser subparser) {
        subparser
                .addArgument("file")
                .metavar("FILE")
                .help("one {\"path\": ..., \"kind\": \"inner\"|\"leaf\", \"value\": {...}} a line");
        subparser
                .addArgument("--chunk")
                .dest("chunk")
                .type(Integer.class)
                .setDefault(10_000)
                .metavar("N")
                .help("records per commit (default 10000); each chunk is one atomic, durable commit");
        addFlag(subparser, "--quiet", "quiet", "no progress bar");
    }

    @Override
    void run(TreeCatClient client, Namespace namespace, Output output) throws IOException {
        String file = namespace.getString("file");
        long size = file.equals("-") ? -1 : Files.size(Path.of(file));
        CountingReader input = new CountingReader(
                file.equals("-")
                        ? new InputStreamReader(System.in, StandardCharsets.UTF_8)
                        : Files.newBufferedReader(Path.of(file), StandardCharsets.UTF_8));
        Progress progress = new Progress(System.err, size, input, namespace.getBoolean("quiet"));
        LoadSummary loaded;
        try (input) {
            loaded = client.bulkLoad(input, namespace.getInt("chunk"), progress::update);
        } finally {
            progress.finish();
        }
        output.record(Output.fields(
                "records",
                loaded.records(),
                "commits",
                loaded.commits(),
                "firstVid",
                loaded.firstVid(),
                "lastVid",
                loaded.lastVid(),
                "recordsPerSecond",
                Math.round(loaded.recordsPerSecond())));
    }

    /** Counts characters read, to show how much of a file has been sent. */
    private static final class CountingReader extends FilterReader {
        private volatile long read;

        CountingReader(Reader in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int c = super.read();
            if (c >= 0) {
                read++;
            }
            return c;
        }

        @Override
        public int read(char[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            if (n > 0) {
                read += n;
            }
            return n;
        }
    }

    /** A one-line bar, redrawn at most five times a second. */
    private static final class Progress {
        private final PrintStream err;
        private final long size;
        private final CountingReader input;
        private final boolean quiet;
        private final long started = System.nanoTime();
        private long lastDrawn;
        private long records;

        Progress(PrintStream err, long size, CountingReader input, boolean quiet) {
            this.err = err;
            this.size = size;
            this.input = input;
            this.quiet = quiet;
        }

        void update(long sent) {
            records = sent;
            long now = System.nanoTime();
            if (!quiet && now - lastDrawn > REDRAW_NANOS) {
                lastDrawn = now;
                draw(now);
            }
        }

        private void draw(long now) {
            double seconds = Math.max(1e-9, (now - started) / 1e9);
            String bar = "";
            if (size > 0) {
                // Characters against bytes: exact for ASCII input, close enough for a bar otherwise.
                double done = Math.min(1.0, input.read / (double) size);
                int filled = (int) Math.round(done * 30);
                bar = String.format(
                        Locale.ROOT, "%3.0f%% [%s%s] ", done * 100, "#".repeat(filled), " ".repeat(30 - filled));
            }
            err.printf(Locale.ROOT, "\r%s%,d records  %,.0f records/s", bar, records, records / seconds);
            err.flush();
        }

        void finish() {
            if (!quiet) {
                draw(System.nanoTime());
                err.println();
            }
        }
    }
}
