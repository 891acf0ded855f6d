package io.treecat.lakehouse.storage;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Directories a lake operation makes on a local warehouse ({@code file:} locations and bare paths;
 * object stores have none), and their undoing: an operation that fails after making them (a refused or
 * lost commit) removes the ones it made, so a failed request leaves no directory behind. Only empty
 * directories are removed, deepest first: one that another operation has written into since stays.
 * Call only for locations {@link Warehouse#check} accepted.
 */
public final class Directories {
    private static final Logger LOG = LoggerFactory.getLogger(Directories.class);

    private final List<Path> made;

    private Directories(List<Path> made) {
        this.made = List.copyOf(made);
    }

    /** Makes the directory at {@code location} and its missing parents. */
    public static Directories make(String location) {
        if (!isLocal(location)) {
            return new Directories(List.of());
        }
        Path directory = LocalFileIO.file(location).toPath();
        List<Path> missing = missing(directory);
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            LOG.warn("Could not create the directory {}", directory, e);
            // The message names no path: it may reach a client.
            throw new UncheckedIOException("Cannot create a directory in the warehouse", e);
        }
        return new Directories(missing);
    }

    /**
     * The directories a file written at {@code fileLocation} will make (its missing parents, which
     * Iceberg's output files create), so they can be removed with the file.
     */
    public static Directories madeByWriting(String fileLocation) {
        if (!isLocal(fileLocation)) {
            return new Directories(List.of());
        }
        File parent = LocalFileIO.file(fileLocation).getAbsoluteFile().getParentFile();
        return new Directories(parent == null ? List.of() : missing(parent.toPath()));
    }

    /** Removes the directories made, deepest first, each only while it is empty; never fails. */
    public void removeEmpty() {
        for (Path directory : made) {
            try {
                Files.deleteIfExists(directory);
            } catch (DirectoryNotEmptyException e) {
                return;
            } catch (IOException | RuntimeException e) {
                LOG.debug("Could not remove the directory {}", directory, e);
                return;
            }
        }
    }

    /** Whether nothing was made. */
    public boolean isEmpty() {
        return made.isEmpty();
    }

    /** {@code directory} and its ancestors that do not exist, deepest first. */
    private static List<Path> missing(Path directory) {
        List<Path> missing = new ArrayList<>();
        Path current = directory.toAbsolutePath();
        while (current != null && !Files.exists(current)) {
            missing.add(current);
            current = current.getParent();
        }
        return missing;
    }

    private static boolean isLocal(String location) {
        int colon = location.indexOf(':');
        int slash = location.indexOf('/');
        return colon <= 1
                || (slash >= 0 && slash < colon)
                || location.substring(0, colon).toLowerCase(Locale.ROOT).equals("file");
    }
}
