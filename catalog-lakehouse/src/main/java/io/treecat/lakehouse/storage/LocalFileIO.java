package io.treecat.lakehouse.storage;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * A {@link FileIO} for {@code file:} locations (and bare local paths) on {@code java.nio}, so neither
 * the server nor a local client needs Hadoop. iceberg-core's {@code ResolvingFileIO} sends
 * {@code file:} to {@code HadoopFileIO}, which needs hadoop-common on the class path. Files keep the
 * location they were opened with (scheme included), so metadata read back names the same location
 * that was written. Public with a no-argument constructor so clients can name it in {@code io-impl}.
 */
public class LocalFileIO implements FileIO {
    @Override
    public InputFile newInputFile(String location) {
        return new LocatedInput(location, org.apache.iceberg.Files.localInput(file(location)));
    }

    @Override
    public OutputFile newOutputFile(String location) {
        return new LocatedOutput(location, org.apache.iceberg.Files.localOutput(file(location)));
    }

    @Override
    public void deleteFile(String location) {
        try {
            Files.deleteIfExists(file(location).toPath());
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot delete " + location, e);
        }
    }

    /** The local file a location names: {@code file:/a}, {@code file:///a} and {@code /a} are all {@code /a}. */
    static File file(String location) {
        if (location == null || location.isEmpty()) {
            throw new IllegalArgumentException("Invalid location: empty");
        }
        String path = location;
        int colon = location.indexOf(':');
        if (colon > 1) {
            String scheme = location.substring(0, colon).toLowerCase(Locale.ROOT);
            if (!scheme.equals("file")) {
                throw new IllegalArgumentException(
                        "Unsupported location scheme '" + scheme + "': this server writes only file: locations");
            }
            path = location.substring(colon + 1);
            while (path.startsWith("//")) {
                path = path.substring(1);
            }
        }
        return Path.of(path).toFile();
    }

    /** {@code file:} plus the absolute path, the form every location this server returns takes. */
    public static String location(Path path) {
        String absolute = path.toAbsolutePath().normalize().toString().replace(File.separatorChar, '/');
        return "file:" + (absolute.startsWith("/") ? "" : "/") + absolute;
    }

    private record LocatedInput(String location, InputFile delegate) implements InputFile {
        @Override
        public long getLength() {
            return delegate.getLength();
        }

        /** Names the location as given (with its scheme) when the file is missing, as Hadoop's FileIO does. */
        @Override
        public SeekableInputStream newStream() {
            if (!delegate.exists()) {
                throw new NotFoundException("Failed to open input stream for file: %s", location);
            }
            return delegate.newStream();
        }

        @Override
        public boolean exists() {
            return delegate.exists();
        }
    }

    private record LocatedOutput(String location, OutputFile delegate) implements OutputFile {
        @Override
        public PositionOutputStream create() {
            return delegate.create();
        }

        @Override
        public PositionOutputStream createOrOverwrite() {
            return delegate.createOrOverwrite();
        }

        @Override
        public InputFile toInputFile() {
            return new LocatedInput(location, delegate.toInputFile());
        }
    }
}
