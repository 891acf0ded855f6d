package io.treecat.conformance.hms;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.GetOpenTxnsInfoResponse;
import org.apache.hadoop.hive.metastore.api.GetOpenTxnsResponse;
import org.apache.hadoop.hive.metastore.api.GetValidWriteIdsResponse;
import org.apache.hadoop.hive.metastore.api.HeartbeatTxnRangeResponse;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.ShowCompactResponse;
import org.apache.hadoop.hive.metastore.api.ShowCompactResponseElement;
import org.apache.hadoop.hive.metastore.api.ShowLocksResponse;
import org.apache.hadoop.hive.metastore.api.ShowLocksResponseElement;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.TableValidWriteIds;
import org.apache.hadoop.hive.metastore.api.TxnInfo;

/**
 * The fixture of the transaction suite, created identically on both sides: database {@value #DATABASE} with a
 * transactional table {@value #TABLE} and one partitioned by {@code ds}, {@value #PARTITIONED}; and the normal forms the
 * suite compares answers in. Transaction and write ids are compared exactly (both servers start from a fresh store,
 * so the same calls draw the same ids); times, host names and worker ids are left out, since each server has its own.
 */
final class AcidTables {
    static final String DATABASE = "acid";
    static final String TABLE = "t";
    static final String PARTITIONED = "p";

    private AcidTables() {}

    static Database database() {
        Database database = new Database(DATABASE, "transaction tests", null, new HashMap<>());
        database.setOwnerName("conformance");
        return database;
    }

    /**
     * A managed transactional table. Insert-only: Hive 4.0.1's standalone metastore checks that a full ACID table's
     * input format is an ACID one by loading the class, and its classpath has no ORC; the transaction calls do not
     * care which kind of ACID table they write.
     */
    static Table table(String name, boolean partitioned) {
        StorageDescriptor storage = new StorageDescriptor();
        storage.setCols(List.of(new FieldSchema("id", "bigint", null), new FieldSchema("name", "string", null)));
        storage.setInputFormat("org.apache.hadoop.hive.ql.io.orc.OrcInputFormat");
        storage.setOutputFormat("org.apache.hadoop.hive.ql.io.orc.OrcOutputFormat");
        storage.setSerdeInfo(new SerDeInfo(name, "org.apache.hadoop.hive.ql.io.orc.OrcSerde", new HashMap<>()));
        storage.setNumBuckets(-1);
        Table table = new Table();
        table.setDbName(DATABASE);
        table.setTableName(name);
        table.setOwner("conformance");
        table.setTableType("MANAGED_TABLE");
        table.setSd(storage);
        table.setPartitionKeys(partitioned ? List.of(new FieldSchema("ds", "string", null)) : new ArrayList<>());
        table.setParameters(new HashMap<>(Map.of("transactional", "true", "transactional_properties", "insert_only")));
        return table;
    }

    /** Hive's {@code ValidReadTxnList} string of a {@code get_open_txns} answer, as a reader without a transaction makes it. */
    static String validTxnList(GetOpenTxnsResponse open) {
        BitSet aborted = BitSet.valueOf(open.bufferForAbortedBits());
        List<String> openIds = new ArrayList<>();
        List<String> abortedIds = new ArrayList<>();
        for (int i = 0; i < open.getOpen_txnsSize(); i++) {
            (aborted.get(i) ? abortedIds : openIds)
                    .add(Long.toString(open.getOpen_txns().get(i)));
        }
        long minOpen = open.isSetMin_open_txn() ? open.getMin_open_txn() : Long.MAX_VALUE;
        return open.getTxn_high_water_mark() + ":" + minOpen + ":" + String.join(",", openIds) + ":"
                + String.join(",", abortedIds);
    }

    static String openTxns(GetOpenTxnsResponse response) {
        return "hwm=" + response.getTxn_high_water_mark() + " open=" + response.getOpen_txns() + " min="
                + (response.isSetMin_open_txn() ? response.getMin_open_txn() : "unset") + " aborted="
                + bits(response.bufferForAbortedBits());
    }

    /** Every field of each transaction but its times and host, which are each server's own. */
    static String openTxnsInfo(GetOpenTxnsInfoResponse response) {
        return "hwm=" + response.getTxn_high_water_mark() + " "
                + response.getOpen_txns().stream().map(AcidTables::txn).toList();
    }

    private static String txn(TxnInfo txn) {
        return txn.getId() + ":" + txn.getState() + " user=" + txn.getUser() + " agent=" + txn.getAgentInfo()
                + " heartbeats=" + txn.getHeartbeatCount() + " meta=" + txn.getMetaInfo() + " started="
                + (txn.getStartedTime() > 0) + " heartbeat=" + (txn.getLastHeartbeatTime() > 0);
    }

    static String heartbeatRange(HeartbeatTxnRangeResponse response) {
        return "aborted=" + sorted(response.getAborted()) + " nosuch=" + sorted(response.getNosuch());
    }

    private static List<Long> sorted(java.util.Set<Long> ids) {
        return ids == null ? null : ids.stream().sorted().toList();
    }

    static String validWriteIds(GetValidWriteIdsResponse response) {
        return response.getTblValidWriteIds().stream()
                .map(AcidTables::validWriteIds)
                .collect(Collectors.joining("; "));
    }

    private static String validWriteIds(TableValidWriteIds ids) {
        return ids.getFullTableName() + " hwm=" + ids.getWriteIdHighWaterMark() + " invalid=" + ids.getInvalidWriteIds()
                + " minOpen=" + (ids.isSetMinOpenWriteId() ? ids.getMinOpenWriteId() : "unset") + " aborted="
                + bits(ids.bufferForAbortedBits());
    }

    /** The bytes as sent, in hex: both sides must set the same bits in the same number of bytes. */
    static String bits(ByteBuffer buffer) {
        if (buffer == null) {
            return "null";
        }
        StringBuilder hex = new StringBuilder();
        ByteBuffer copy = buffer.duplicate();
        while (copy.hasRemaining()) {
            hex.append(String.format("%02x", copy.get()));
        }
        return "[" + hex + "]";
    }

    static String locks(ShowLocksResponse response) {
        return response.getLocks().stream().map(AcidTables::lock).toList().toString();
    }

    private static String lock(ShowLocksResponseElement lock) {
        return lock.getDbname() + "." + lock.getTablename() + "/" + lock.getPartname() + " " + lock.getType() + " "
                + lock.getState() + " txn=" + lock.getTxnid() + " user=" + lock.getUser() + " agent="
                + lock.getAgentInfo() + " heartbeat=" + lock.getLastheartbeat() + " internal="
                + lock.getLockIdInternal();
    }

    static String compactions(ShowCompactResponse response) {
        return response.getCompacts().stream()
                .map(AcidTables::compaction)
                .toList()
                .toString();
    }

    /** A queued compaction without its times, worker and initiator, which are each server's own. */
    private static String compaction(ShowCompactResponseElement element) {
        return element.getId() + " " + element.getDbname() + "." + element.getTablename() + "/"
                + element.getPartitionname() + " " + element.getType() + " " + element.getState() + " worker="
                + element.getWorkerid() + " runAs=" + element.getRunAs() + " highestTxn=" + element.getHightestTxnId()
                + " meta=" + element.getMetaInfo() + " job=" + element.getHadoopJobId() + " error="
                + element.getErrorMessage() + " enqueued=" + (element.getEnqueueTime() > 0) + " start="
                + element.getStart() + " end=" + element.getEndTime() + " pool=" + element.getPoolName() + " txn="
                + element.getTxnId() + " nextTxn=" + element.getNextTxnId() + " commit=" + element.getCommitTime()
                + " highestWrite=" + element.getHightestWriteId() + " initiator=" + element.getInitiatorId() + "/"
                + element.getInitiatorVersion() + " workerVersion=" + element.getWorkerVersion() + " cleanerStart="
                + element.getCleanerStart();
    }
}
