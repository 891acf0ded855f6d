package io.treecat.conformance.hms;

import java.nio.file.Path;

/** One side of a differential test: a metastore serving Hive's Thrift protocol on a loopback port, in its own JVM. */
interface MetastorePeer extends AutoCloseable {
    /** Names the side in mismatch reports: {@code Hive 4.0.1} or {@code TreeCat}. */
    String name();

    int port();

    /** The server's output, quoted when a call fails in a way that only its log explains. */
    Path log();

    /** Stops the server; its run directory stays for inspection. */
    @Override
    void close() throws InterruptedException;
}
