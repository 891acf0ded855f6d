package io.treecat.core.txn;

import io.treecat.core.service.CatalogService;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import io.treecat.core.version.VersionedTree;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The {@link SerializabilityOracle} on one node, for each protocol: 8 threads, 10,000 transactions each.
 */
class TestSerializabilityOracle {
    private static final int THREADS = 8;
    private static final int TRANSACTIONS = 10_000;
    /** Writers that must commit before the history is checked; attempts go on until they do. */
    private static final int MIN_WRITE_COMMITS = 200;

    @TempDir
    Path directory;

    @ParameterizedTest
    @EnumSource(ConcurrencyProtocol.class)
    void committedTransactionsReplaySeriallyInVidOrder(ConcurrencyProtocol protocol) throws Exception {
        TransactionConfig config =
                TransactionConfig.defaults().withProtocol(protocol).withLockTimeout(Duration.ofSeconds(2));
        try (CatalogService catalog =
                new CatalogService(VersionedTree.open(RocksKvStore.open(directory)), config, Clock.systemUTC())) {
            SerializabilityOracle.Outcome outcome = SerializabilityOracle.run(
                    List.of(catalog), THREADS, TRANSACTIONS, MIN_WRITE_COMMITS, protocol.ordinal(), protocol.name());
            System.out.printf(
                    "%s: %d attempts, %d committed, %d aborted, %d read-only%n",
                    protocol, outcome.attempts(), outcome.committed(), outcome.aborted(), outcome.readOnly());
        }
    }
}
