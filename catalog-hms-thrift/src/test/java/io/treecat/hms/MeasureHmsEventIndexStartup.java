package io.treecat.hms;

import io.treecat.lakehouse.auth.Authorizer;
import io.treecat.lakehouse.storage.LocalFileIO;
import io.treecat.lakehouse.storage.Warehouses;
import io.treecat.lakehouse.txn.TransactionRunner;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Database;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A measurement, not a test (surefire does not pick it up by name): N commits each making one Hive event, then a
 * restart as after a crash (the indexer paused, so the stop saves nothing), and the first {@code
 * get_current_notificationEventId} (the saved index loaded, the tail counted) against what a log without saved
 * checkpoints costs (every record counted). {@code ./mvnw -o test -pl catalog-hms-thrift -am
 * -Dtest=MeasureHmsEventIndexStartup -Dsurefire.failIfNoSpecifiedTests=false -Dmeasure.commits=20000}; figures in
 * docs/hms-thrift.md ("The id index").
 */
class MeasureHmsEventIndexStartup {
    @RegisterExtension
    final HmsTestServer hms = new HmsTestServer();

    @Test
    void measure() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        int n = Integer.getInteger("measure.commits", 3000);
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            Database db = new Database();
            db.setName("m" + i);
            client.createDatabase(db);
        }
        long made = System.nanoTime() - t0;
        while (hms.server().eventLog().saved().orElseThrow().vid()
                <= hms.catalog().lastVid() - HmsEventLog.STRIDE + 1) {
            Thread.sleep(20);
        }
        hms.server().eventIndexer().pause();
        hms.restart();
        long t1 = System.nanoTime();
        long current = hms.hiveClient().getCurrentNotificationEventId().getEventId();
        long first = System.nanoTime() - t1;
        long tail = hms.server().eventLog().recordsCounted();
        HmsCalls hive = new HmsCalls(
                new TransactionRunner(() -> hms.catalog(), Authorizer.allowAll()),
                Warehouses.underRoot(hms.warehouse(), new LocalFileIO()),
                new HmsNames("warehouse"));
        HmsEventLog rebuilt = new HmsEventLog(() -> hms.catalog(), new HmsCommitEvents(hive), HmsEventLog.STRIDE);
        long t2 = System.nanoTime();
        long again = rebuilt.currentEventId();
        long rebuild = System.nanoTime() - t2;
        System.out.printf(
                "MEASURE commits=%d made=%dms events=%d/%d lastVid=%d firstCallAfterRestart=%.1fms tailRecords=%d fullRebuild=%.1fms records=%d%n",
                n,
                made / 1_000_000,
                current,
                again,
                hms.catalog().lastVid(),
                first / 1e6,
                tail,
                rebuild / 1e6,
                rebuilt.recordsCounted());
    }
}
