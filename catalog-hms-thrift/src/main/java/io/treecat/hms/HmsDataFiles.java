package io.treecat.hms;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The files a Hive drop with {@code deleteData} removes, as Hive's metastore removes them.
 *
 * <p>A drop first plans, inside its transaction, from what it read ({@link #table}, {@link
 * #partitions}, {@link #database}); the handler runs the {@link Plan} only after the commit that
 * removed the objects succeeded, so a failed or refused drop deletes nothing. Deleting is best
 * effort, as in Hive: a location that cannot be deleted is logged and the call still succeeds (the
 * metadata is already gone).
 *
 * <p>Only {@code file:} locations are deleted: TreeCat has no Hadoop file system for other schemes,
 * so those are logged and kept. A location is used as given: one with a {@code .} or {@code ..}
 * segment is refused rather than resolved, and a recursive delete never follows symbolic links (a
 * link is removed, never what it points to), so nothing outside the named directory goes.
 */
final class HmsDataFiles {
    private static final Logger LOG = LoggerFactory.getLogger(HmsDataFiles.class);
    /** The table parameter that makes a Hive table external ({@code "TRUE"}, any case). */
    static final String EXTERNAL = "EXTERNAL";
    /** Hive's {@code MetaStoreUtils.EXTERNAL_TABLE_PURGE}: an external table whose data drops purge. */
    static final String EXTERNAL_TABLE_PURGE = "external.table.purge";

    private HmsDataFiles() {}

    /**
     * Whether a drop with {@code deleteData} removes this table's files: Hive's
     * {@code checkTableDataShouldBeDeleted}, a managed table always, an external one (parameter
     * {@code EXTERNAL=TRUE}, or type {@code EXTERNAL_TABLE}, which Hive's store turns into that
     * parameter) only with {@code external.table.purge=true}. A table made over REST is external with
     * no purge parameter: its files are Iceberg's to purge.
     */
    static boolean deletesData(Table table) {
        Map<String, String> parameters = table.getParameters() == null ? Map.of() : table.getParameters();
        return !isExternal(table) || "TRUE".equalsIgnoreCase(parameters.get(EXTERNAL_TABLE_PURGE));
    }

    /** Hive's {@code MetaStoreUtils.isExternalTable}: parameter {@code EXTERNAL=TRUE} (any case), or the type. */
    static boolean isExternal(Table table) {
        Map<String, String> parameters = table.getParameters() == null ? Map.of() : table.getParameters();
        return "TRUE".equalsIgnoreCase(parameters.get(EXTERNAL))
                || HmsTables.EXTERNAL_TABLE.equals(table.getTableType());
    }

    /**
     * Truncating: what each directory holds goes and the directory stays (Hive deletes it and makes it again), for
     * the table's location or its partitions' ({@code truncate_table}).
     */
    static Plan truncation(List<String> locations) {
        Plan plan = new Plan();
        plan.contents.addAll(locations);
        return plan;
    }

    /** Dropping {@code table}: its location, and its partitions' locations outside it, recursively. */
    static Plan table(Table table, List<Partition> partitions) {
        Plan plan = new Plan();
        if (!deletesData(table)) {
            return plan;
        }
        String location = location(table);
        Optional<Path> tablePath = path(location);
        if (location != null) {
            plan.trees.add(location);
        }
        for (Partition partition : partitions) {
            String partitionLocation =
                    partition.getSd() == null ? null : partition.getSd().getLocation();
            Optional<Path> partitionPath = path(partitionLocation);
            boolean inside = tablePath.isPresent()
                    && partitionPath.isPresent()
                    && partitionPath.get().startsWith(tablePath.get());
            if (partitionLocation != null && !inside) {
                plan.trees.add(partitionLocation);
            }
        }
        return plan;
    }

    /**
     * Dropping partitions of {@code table}: each partition's directory, then, as Hive's
     * {@code deleteParentRecursive}, its parent directories of the upper partition levels that are
     * left empty; never the table's directory or anything above it.
     */
    static Plan partitions(Table table, List<Partition> dropped) {
        Plan plan = new Plan();
        if (!deletesData(table)) {
            return plan;
        }
        Optional<Path> tablePath = path(location(table));
        for (Partition partition : dropped) {
            String location =
                    partition.getSd() == null ? null : partition.getSd().getLocation();
            if (location == null) {
                continue;
            }
            plan.trees.add(location);
            Optional<Path> path = path(location);
            int levels =
                    partition.getValues() == null ? 0 : partition.getValues().size() - 1;
            Path parent = path.map(Path::getParent).orElse(null);
            for (int i = 0;
                    i < levels
                            && parent != null
                            && tablePath.isPresent()
                            && parent.startsWith(tablePath.get())
                            && !parent.equals(tablePath.get());
                    i++) {
                plan.emptyDirectories.add(parent);
                parent = parent.getParent();
            }
        }
        return plan;
    }

    /**
     * Dropping a database: what its tables' drops remove (see {@link #table}), then the database's
     * directory if that left it empty. Hive deletes the database directory recursively; TreeCat keeps
     * it when anything is left in it (an external table's files, say), so only files Hive's rules
     * name for deletion go.
     */
    static Plan database(String location, List<Plan> tables) {
        Plan plan = new Plan();
        for (Plan table : tables) {
            plan.trees.addAll(table.trees);
            plan.emptyDirectories.addAll(table.emptyDirectories);
        }
        path(location).ifPresent(plan.emptyDirectories::add);
        return plan;
    }

    private static String location(Table table) {
        return table.getSd() == null ? null : table.getSd().getLocation();
    }

    /**
     * The local path of a {@code file:} location ({@code file:/a}, {@code file:///a}, {@code file://localhost/a}) with
     * no {@code .}/{@code ..} segment; empty otherwise. The location is taken as written, as the directories the
     * server makes are ({@link HmsCalls#createDirectories}) and as Hadoop's {@code Path} takes it: {@code %2F} in a
     * segment is part of a name (the table {@code a/b} lives in {@code a%2Fb}), where {@code java.net.URI} would
     * decode it into a separator and name another table's directory.
     */
    static Optional<Path> path(String location) {
        if (location == null || location.length() < 6 || !location.regionMatches(true, 0, "file:", 0, 5)) {
            return Optional.empty();
        }
        String rest = location.substring(5);
        if (rest.startsWith("//")) {
            int end = rest.indexOf('/', 2);
            String authority = end < 0 ? rest.substring(2) : rest.substring(2, end);
            if (!authority.isEmpty() && !authority.equalsIgnoreCase("localhost")) {
                return Optional.empty();
            }
            rest = end < 0 ? "" : rest.substring(end);
        }
        if (!rest.startsWith("/") || HmsCalls.hasDotSegmentAsWritten(rest)) {
            return Optional.empty();
        }
        try {
            Path path = Path.of(rest);
            // Never the root of a file system.
            return path.getNameCount() == 0 ? Optional.empty() : Optional.of(path);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** Locations to delete recursively, then directories to delete if they are empty, in order. */
    static final class Plan {
        final List<String> trees = new ArrayList<>();
        final List<Path> emptyDirectories = new ArrayList<>();
        /** Directories to empty and keep (made if missing). */
        final List<String> contents = new ArrayList<>();

        /** Deletes what was planned; logs and goes on past what cannot be deleted. */
        void run() {
            for (String location : contents) {
                Optional<Path> path = path(location);
                if (path.isEmpty()) {
                    LOG.warn(
                            "Not deleting the data at {}: only file: locations without . or .. segments are deleted",
                            location);
                    continue;
                }
                emptyDirectory(path.get());
            }
            for (String location : trees) {
                Optional<Path> path = path(location);
                if (path.isEmpty()) {
                    LOG.warn(
                            "Not deleting the data at {}: only file: locations without . or .. segments are deleted",
                            location);
                    continue;
                }
                deleteTree(path.get());
            }
            for (Path directory : emptyDirectories) {
                try {
                    if (Files.isDirectory(directory, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                        Files.delete(directory);
                    }
                } catch (DirectoryNotEmptyException | NoSuchFileException e) {
                    // Still in use (or already gone): kept, as Hive keeps a non-empty parent.
                } catch (IOException e) {
                    LOG.warn("Could not delete the directory {}", directory, e);
                }
            }
        }

        boolean isEmpty() {
            return trees.isEmpty() && emptyDirectories.isEmpty() && contents.isEmpty();
        }
    }

    /** Deletes what {@code directory} holds, without following links, and keeps (or makes) the directory. */
    static void emptyDirectory(Path directory) {
        if (Files.isDirectory(directory, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            try (java.util.stream.Stream<Path> children = Files.list(directory)) {
                children.forEach(HmsDataFiles::deleteTree);
            } catch (IOException e) {
                LOG.warn("Could not list {} to empty it", directory, e);
            }
        } else if (!Files.exists(directory, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            try {
                Files.createDirectories(directory);
            } catch (IOException e) {
                LOG.warn("Could not make the directory {}", directory, e);
            }
        } else {
            LOG.warn("Not emptying {}: not a directory", directory);
        }
    }

    /** Deletes {@code root} and everything below it, without following links. */
    static void deleteTree(Path root) {
        if (!Files.exists(root, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                    delete(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) {
                    LOG.warn("Could not read {} to delete it", file, e);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path directory, IOException e) {
                    delete(directory);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            LOG.warn("Could not delete the data at {}", root, e);
        }
    }

    private static void delete(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            LOG.warn("Could not delete {}", path, e);
        }
    }
}
