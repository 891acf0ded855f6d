package io.treecat.e2e.trino;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;

/**
 * Unpacks the parts of Trino's server distribution the tests run: {@code lib}, {@code plugin/iceberg} and
 * {@code plugin/hive} with its {@code hdfs} directory (Hadoop's file system, published only inside the full
 * {@code io.trino:trino-server} tarball).
 *
 * <p>Why not maven-dependency-plugin's {@code unpack}: the tarball stores each jar once and every other copy as a
 * tar hard link to it (573 of the plugin jars link to {@code lib} or an earlier plugin), and Plexus' tar unpacker
 * writes hard links as empty files, so the Hive plugin fails with "Provider io.trino.plugin.hive.HivePlugin not
 * found". Here a first pass finds the links the wanted parts hold, a second writes each link's target where it is
 * wanted. Done once per build directory; a marker names the archive unpacked.
 */
final class TrinoDistribution {
    private static final List<String> WANTED = List.of("lib/", "plugin/iceberg/", "plugin/hive/");
    // The Iceberg connector reads TreeCat's warehouse with Trino's native local file system, not Hadoop's.
    private static final List<String> UNWANTED = List.of("plugin/iceberg/hdfs/");
    private static final String MARKER = ".unpacked";

    private TrinoDistribution() {}

    /**
     * Unpacks {@code archive} into {@code home} unless it already holds it; returns {@code home}. Test JVMs run side
     * by side (spark-connector forks two), so the check and the unpacking hold a lock file beside {@code home}: the
     * second JVM waits, then finds the marker.
     */
    static synchronized Path unpack(Path archive, Path home) throws IOException {
        Files.createDirectories(home.getParent());
        try (FileChannel lockFile = FileChannel.open(
                        home.resolveSibling(home.getFileName() + ".lock"),
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE);
                FileLock ignored = lockFile.lock()) {
            return unpackLocked(archive, home);
        }
    }

    private static Path unpackLocked(Path archive, Path home) throws IOException {
        if (!Files.isRegularFile(archive)) {
            throw new IllegalStateException(
                    "The Trino distribution " + archive + " is missing: run the tests through Maven, "
                            + "which resolves io.trino:trino-server:tar.gz into the local repository");
        }
        String identity =
                archive.toAbsolutePath() + " " + Files.size(archive) + " " + Files.getLastModifiedTime(archive);
        Path marker = home.resolve(MARKER);
        if (Files.isRegularFile(marker)
                && Files.readString(marker, StandardCharsets.UTF_8).equals(identity)) {
            return home;
        }
        deleteRecursively(home);
        Files.createDirectories(home);

        // Pass 1: every hard link inside the wanted parts, by the archive entry it links to.
        Map<String, List<Path>> linksByTarget = new HashMap<>();
        try (TarArchiveInputStream tar = open(archive)) {
            for (TarArchiveEntry entry = tar.getNextEntry(); entry != null; entry = tar.getNextEntry()) {
                Optional<Path> destination = destination(home, entry.getName());
                if (destination.isPresent() && entry.isLink()) {
                    linksByTarget
                            .computeIfAbsent(entry.getLinkName(), target -> new ArrayList<>())
                            .add(destination.get());
                }
            }
        }
        // Pass 2: directories and files of the wanted parts, and each link target's content at its links' places.
        try (TarArchiveInputStream tar = open(archive)) {
            for (TarArchiveEntry entry = tar.getNextEntry(); entry != null; entry = tar.getNextEntry()) {
                Optional<Path> destination = destination(home, entry.getName());
                if (entry.isDirectory()) {
                    if (destination.isPresent()) {
                        Files.createDirectories(destination.get());
                    }
                    continue;
                }
                if (!entry.isFile() || entry.isLink()) {
                    continue;
                }
                List<Path> places = new ArrayList<>();
                destination.ifPresent(places::add);
                places.addAll(linksByTarget.getOrDefault(entry.getName(), List.of()));
                if (places.isEmpty()) {
                    continue;
                }
                Files.createDirectories(places.get(0).getParent());
                Files.copy(tar, places.get(0), StandardCopyOption.REPLACE_EXISTING);
                for (Path place : places.subList(1, places.size())) {
                    Files.createDirectories(place.getParent());
                    Files.copy(places.get(0), place, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        if (!Files.isDirectory(home.resolve("lib")) || !Files.isDirectory(home.resolve("plugin/hive/hdfs"))) {
            throw new IllegalStateException(
                    archive + " does not hold lib/ and plugin/hive/hdfs/ under one top directory");
        }
        Files.writeString(marker, identity, StandardCharsets.UTF_8);
        return home;
    }

    private static TarArchiveInputStream open(Path archive) throws IOException {
        InputStream in = new BufferedInputStream(Files.newInputStream(archive), 1 << 20);
        return new TarArchiveInputStream(new GzipCompressorInputStream(in));
    }

    /** Where an entry goes, if it is wanted: its name without the top directory ({@code trino-server-476/}), under home. */
    private static Optional<Path> destination(Path home, String name) {
        int slash = name.indexOf('/');
        if (slash < 0) {
            return Optional.empty();
        }
        String relative = name.substring(slash + 1);
        boolean wanted = WANTED.stream().anyMatch(relative::startsWith)
                && UNWANTED.stream().noneMatch(relative::startsWith);
        if (!wanted) {
            return Optional.empty();
        }
        Path destination = home.resolve(relative).normalize();
        if (!destination.startsWith(home)) {
            throw new IllegalStateException("Archive entry outside the distribution: " + name);
        }
        return Optional.of(destination);
    }

    private static void deleteRecursively(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
