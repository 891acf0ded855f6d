package io.treecat.lakehouse.maintenance;

import io.treecat.lakehouse.storage.Locations;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;

/**
 * The files a dropped Iceberg table's purge deletes, in an order a retry can resume from: a file that lists others
 * (a manifest, a manifest list, a metadata file) goes only after everything it lists, and the current metadata file
 * last. So after a failure part-way, a missing listing file means its files are gone already, and it is skipped.
 *
 * <p>The files: what Iceberg's own {@code CatalogUtil.dropTableData} deletes
 * (every snapshot's manifest list, its manifests and the data and delete files they list, the statistics files, the
 * metadata files in the metadata log and the current one), but only those inside the table's location. A file
 * elsewhere (a {@code write.data.path} outside it, or another table's file an engine committed here) is never
 * deleted, and nor is a location with a {@code .} or {@code ..} segment, which could resolve outside it.
 */
final class TableFiles {
    private TableFiles() {}

    /** Where the files go. */
    interface Sink {
        /** A file that lists no other: it may be deleted later, in a batch. */
        void leaf(String file);

        /** A file that lists others: every leaf handed over before it must be deleted first, then it. */
        void listing(String file);
    }

    /** Hands each file of {@code metadata} inside {@code location} to {@code sink}, each once, manifests streamed. */
    static void forEachInside(FileIO io, TableMetadata metadata, String location, Sink sink) {
        Set<String> manifests = new HashSet<>();
        for (Snapshot snapshot : metadata.snapshots()) {
            List<ManifestFile> listed;
            try {
                listed = snapshot.allManifests(io);
            } catch (NotFoundException gone) {
                continue; // deleted by an earlier attempt, after every manifest it listed
            }
            for (ManifestFile manifest : listed) {
                if (!manifests.add(manifest.path())) {
                    continue;
                }
                try (CloseableIterable<String> files = ManifestFiles.readPaths(manifest, io)) {
                    files.forEach(file -> leafIfInside(file, location, sink));
                } catch (NotFoundException gone) {
                    continue; // deleted by an earlier attempt, after every file it listed
                } catch (IOException e) {
                    throw new UncheckedIOException("Cannot read the manifest " + manifest.path(), e);
                }
                listingIfInside(manifest.path(), location, sink);
            }
            listingIfInside(snapshot.manifestListLocation(), location, sink);
        }
        for (StatisticsFile statistics : metadata.statisticsFiles()) {
            leafIfInside(statistics.path(), location, sink);
        }
        for (PartitionStatisticsFile statistics : metadata.partitionStatisticsFiles()) {
            leafIfInside(statistics.path(), location, sink);
        }
        for (TableMetadata.MetadataLogEntry previous : metadata.previousFiles()) {
            leafIfInside(previous.file(), location, sink);
        }
        // Last: while it exists, a retry can find every other file again.
        listingIfInside(metadata.metadataFileLocation(), location, sink);
    }

    private static void leafIfInside(String file, String location, Sink sink) {
        if (file != null && isInside(file, location)) {
            sink.leaf(file);
        }
    }

    private static void listingIfInside(String file, String location, Sink sink) {
        if (file != null && isInside(file, location)) {
            sink.listing(file);
        }
    }

    static boolean isInside(String file, String location) {
        return !Locations.hasDotSegment(file) && Locations.isInside(file, location);
    }
}
