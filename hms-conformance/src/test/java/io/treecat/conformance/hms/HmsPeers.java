package io.treecat.conformance.hms;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
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

    private HmsPeers(HivePeer hive, TreeCatPeer treecat, Differential differential, Duration startup) {
        this.hive = hive;
        this.treecat = treecat;
        this.differential = differential;
        this.startup = startup;
    }

    static HmsPeers start(Path runDirectory) throws IOException, InterruptedException {
        long begin = System.nanoTime();
        TreeCatPeer treecat = TreeCatPeer.launch(runDirectory);
        HivePeer hive = null;
        try {
            hive = HivePeer.start(runDirectory);
            treecat.awaitServing();
            Differential differential = connect(hive, treecat);
            return new HmsPeers(hive, treecat, differential, Duration.ofNanos(System.nanoTime() - begin));
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
