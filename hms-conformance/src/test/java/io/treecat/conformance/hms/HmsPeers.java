package io.treecat.conformance.hms;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.thrift.transport.TTransportException;

/**
 * The fixture of every differential test: Hive 4.0.1 and TreeCat started side by side under one run directory, and a
 * {@link Differential} connected to both. TreeCat starts while Hive's schema is initialized, which is most of the wait.
 */
final class HmsPeers implements AutoCloseable {
    private final HivePeer hive;
    private final TreeCatPeer treecat;
    private final Differential differential;
    private final Duration startup;
    private final Path runDirectory;

    private HmsPeers(
            HivePeer hive, TreeCatPeer treecat, Differential differential, Duration startup, Path runDirectory) {
        this.hive = hive;
        this.treecat = treecat;
        this.differential = differential;
        this.startup = startup;
        this.runDirectory = runDirectory;
    }

    static HmsPeers start(Path runDirectory) throws IOException, InterruptedException {
        long begin = System.nanoTime();
        TreeCatPeer treecat = TreeCatPeer.launch(runDirectory);
        HivePeer hive = null;
        try {
            hive = HivePeer.start(runDirectory);
            treecat.awaitServing();
            Differential differential = connect(hive, treecat);
            return new HmsPeers(hive, treecat, differential, Duration.ofNanos(System.nanoTime() - begin), runDirectory);
        } catch (IOException | InterruptedException | RuntimeException e) {
            treecat.close();
            if (hive != null) {
                hive.close();
            }
            throw e;
        }
    }

    private static Differential connect(HivePeer hive, TreeCatPeer treecat) throws IOException {
        try {
            return new Differential(hive, treecat);
        } catch (TTransportException e) {
            throw new IOException("Cannot connect to the peers", e);
        }
    }

    Differential differential() {
        return differential;
    }

    /** Where both peers keep their files; a directory for locations the tests give both, too. */
    Path runDirectory() {
        return runDirectory.toAbsolutePath();
    }

    /** The normalization of answers for this run's peers (their warehouses differ). */
    HmsValues values() {
        List<Path> roots = new ArrayList<>(HivePeer.warehouseRoots(runDirectory));
        roots.addAll(TreeCatPeer.warehouseRoots(runDirectory));
        return new HmsValues(roots);
    }

    /** From launch until both serve: the part of a run that is not the calls. */
    Duration startup() {
        return startup;
    }

    @Override
    public void close() throws InterruptedException {
        differential.close();
        try {
            treecat.close();
        } finally {
            hive.close();
        }
    }
}
