package io.treecat.lakehouse.storage;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * A {@link FileIO} that adds a fixed latency to each request another FileIO makes to its store, to
 * measure commits at object-store latency on a local disk (the commit benchmark of
 * docs/benchmarks-history.md; the suite's experiments use a real S3 server behind a latency proxy). Each request an object store would serve pays it once: opening a file to read
 * (a GET), its length or existence (a HEAD), a written file's close (a PUT) and a delete. Reads of
 * an open stream are not delayed (one GET streams the whole object).
 *
 * <p>For measurements only; nothing in a server's normal wiring uses it. It stands in for a real
 * store behind a latency proxy: a benchmark that has one replaces this FileIO with the store's own
 * ({@code S3FileIO} with {@code s3.endpoint} at the proxy) by changing catalog properties alone.
 *
 * <p>Clients name it in {@code io-impl} with {@value #DELAY_MS} and {@value #DELEGATE_IMPL} (default
 * {@link LocalFileIO}); the delegate gets every property.
 */
public class DelayedFileIO implements FileIO {
    /** Catalog property: the latency added to each store request, in milliseconds. */
    public static final String DELAY_MS = "treecat.store-latency-ms";
    /** Catalog property: the FileIO whose requests are delayed. */
    public static final String DELEGATE_IMPL = "treecat.store-latency.io-impl";

    private FileIO delegate;
    private Duration delay;
    private Map<String, String> properties = Map.of();

    /**
     * The JVM system property that makes a server's warehouse FileIO a DelayedFileIO with this many
     * milliseconds per request (a benchmark's server only): {@link #wrapIfAsked}.
     */
    public static final String SERVER_PROPERTY = "treecat.benchmark.store-latency-ms";

    /** For {@code io-impl}: configured by {@link #initialize}. */
    public DelayedFileIO() {
        this.delegate = new LocalFileIO();
        this.delay = Duration.ZERO;
    }

    public DelayedFileIO(FileIO delegate, Duration delay) {
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.delay = requireNonNull(delay, "delay is null");
        if (delay.isNegative()) {
            throw new IllegalArgumentException("delay is negative: " + delay);
        }
    }

    /**
     * {@code io} with the latency the JVM system property {@value #SERVER_PROPERTY} names, or {@code
     * io} itself when it is not set: how a benchmark gives a server in its own JVM a slow store.
     */
    public static FileIO wrapIfAsked(FileIO io) {
        String millis = System.getProperty(SERVER_PROPERTY);
        return millis == null ? io : new DelayedFileIO(io, Duration.ofMillis(Long.parseLong(millis.trim())));
    }

    @Override
    public void initialize(Map<String, String> properties) {
        this.properties = Map.copyOf(properties);
        this.delay = Duration.ofMillis(Long.parseLong(properties.getOrDefault(DELAY_MS, "0")));
        String impl = properties.getOrDefault(DELEGATE_IMPL, LocalFileIO.class.getName());
        this.delegate = CatalogUtil.loadFileIO(impl, new HashMap<>(properties), null);
    }

    @Override
    public Map<String, String> properties() {
        return properties;
    }

    private void pause() {
        if (delay.isZero()) {
            return;
        }
        try {
            Thread.sleep(delay.toMillis(), delay.toNanosPart() % 1_000_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new InterruptedIOException("Interrupted during the store's latency"));
        }
    }

    @Override
    public InputFile newInputFile(String path) {
        return new Input(delegate.newInputFile(path));
    }

    @Override
    public InputFile newInputFile(String path, long length) {
        return new Input(delegate.newInputFile(path, length));
    }

    @Override
    public OutputFile newOutputFile(String path) {
        return new Output(delegate.newOutputFile(path));
    }

    @Override
    public void deleteFile(String path) {
        pause();
        delegate.deleteFile(path);
    }

    @Override
    public void close() {
        delegate.close();
    }

    private final class Input implements InputFile {
        private final InputFile file;

        Input(InputFile file) {
            this.file = file;
        }

        @Override
        public long getLength() {
            pause();
            return file.getLength();
        }

        @Override
        public SeekableInputStream newStream() {
            pause();
            return file.newStream();
        }

        @Override
        public String location() {
            return file.location();
        }

        @Override
        public boolean exists() {
            pause();
            return file.exists();
        }
    }

    private final class Output implements OutputFile {
        private final OutputFile file;

        Output(OutputFile file) {
            this.file = file;
        }

        @Override
        public PositionOutputStream create() {
            return new Upload(file.create());
        }

        @Override
        public PositionOutputStream createOrOverwrite() {
            return new Upload(file.createOrOverwrite());
        }

        @Override
        public String location() {
            return file.location();
        }

        @Override
        public InputFile toInputFile() {
            return new Input(file.toInputFile());
        }
    }

    /** A written file: its PUT happens, and costs the latency, when it is closed. */
    private final class Upload extends PositionOutputStream {
        private final PositionOutputStream out;
        private boolean closed;

        Upload(PositionOutputStream out) {
            this.out = out;
        }

        @Override
        public long getPos() throws IOException {
            return out.getPos();
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }

        @Override
        public void close() throws IOException {
            out.close();
            if (!closed) {
                closed = true;
                pause();
            }
        }
    }
}
