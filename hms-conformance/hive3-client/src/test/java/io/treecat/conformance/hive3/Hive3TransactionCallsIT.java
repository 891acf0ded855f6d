package io.treecat.conformance.hive3;

import static io.treecat.conformance.hive3.Hive3Metastore.database;
import static io.treecat.conformance.hive3.Hive3Metastore.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.util.List;
import java.util.Map;
import org.apache.hadoop.hive.common.ValidTxnList;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.TableType;
import org.apache.hadoop.hive.metastore.api.AbortTxnRequest;
import org.apache.hadoop.hive.metastore.api.CommitTxnRequest;
import org.apache.hadoop.hive.metastore.api.CompactionRequest;
import org.apache.hadoop.hive.metastore.api.CompactionResponse;
import org.apache.hadoop.hive.metastore.api.CompactionType;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.GetOpenTxnsInfoResponse;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchTxnException;
import org.apache.hadoop.hive.metastore.api.ShowCompactRequest;
import org.apache.hadoop.hive.metastore.api.ShowCompactResponseElement;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.TableValidWriteIds;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.hadoop.hive.metastore.api.TxnAbortedException;
import org.apache.hadoop.hive.metastore.api.TxnInfo;
import org.apache.hadoop.hive.metastore.api.TxnState;
import org.apache.hadoop.hive.metastore.api.TxnToWriteId;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hive 3.1's client on Hive ACID: {@code open_txns}, {@code commit_txn}, {@code abort_txn(s)},
 * {@code get_open_txns(_info)}, {@code heartbeat_txn_range}, {@code allocate_table_write_ids},
 * {@code get_valid_write_ids}, {@code compact}/{@code compact2} and {@code show_compact}, in Hive 3.1's request
 * structs (no transaction type, no write id in {@code GetValidWriteIdsRequest}, no error message in
 * {@code CompactionResponse}). The server is shared with the other Hive 3.1 ITs, none of which opens transactions,
 * but ids are compared with each other, never with fixed numbers, so the order of the classes does not matter.
 */
class Hive3TransactionCallsIT {
    private static final String DB = "h3_acid";

    @RegisterExtension
    static final Hive3Metastore hms = new Hive3Metastore();

    private static HiveMetaStoreClient client;
    private static ThriftHiveMetastore.Client raw;

    @BeforeAll
    static void tables() throws Exception {
        client = hms.client();
        raw = hms.thrift();
        client.createDatabase(database(DB));
        for (String name : List.of("t", "w", "c")) {
            client.createTable(transactional(name));
        }
        Table partitioned = transactional("p");
        partitioned.getPartitionKeys().add(new FieldSchema("ds", "string", null));
        client.createTable(partitioned);
    }

    private static Table transactional(String name) {
        Table table = table(DB, name, TableType.MANAGED_TABLE);
        table.getSd().setInputFormat("org.apache.hadoop.hive.ql.io.orc.OrcInputFormat");
        table.getSd().setOutputFormat("org.apache.hadoop.hive.ql.io.orc.OrcOutputFormat");
        table.getSd().getSerdeInfo().setSerializationLib("org.apache.hadoop.hive.ql.io.orc.OrcSerde");
        table.getParameters().put("transactional", "true");
        return table;
    }

    private static String writeIds(String table, String validTxns) throws Exception {
        List<TableValidWriteIds> answer = client.getValidWriteIds(List.of(table), validTxns);
        assertThat(answer).hasSize(1);
        TableValidWriteIds ids = answer.get(0);
        return ids.getWriteIdHighWaterMark() + ":" + ids.getInvalidWriteIds() + ":"
                + java.util.BitSet.valueOf(ids.getAbortedBits()).cardinality();
    }

    @Test
    void aWriteCommitsAndAnAbortedOneStaysInvisible() throws Exception {
        long writer = client.openTxn("alice");
        assertThat(client.allocateTableWriteId(writer, DB, "t")).isEqualTo(1);
        assertThat(client.allocateTableWriteId(writer, DB.toUpperCase(), "T")).isEqualTo(1); // asked again: the same
        ValidTxnList during = client.getValidTxns();
        assertThat(during.isTxnValid(writer)).isFalse();
        // While the write is open, write id 1 is invalid to readers (high water mark 1, invalid [1]).
        assertThat(writeIds(DB + ".t", during.writeToString())).isEqualTo("1:[1]:0");

        client.commitTxn(writer);
        ValidTxnList after = client.getValidTxns();
        assertThat(after.isTxnValid(writer)).isTrue();
        assertThat(writeIds(DB + ".t", after.writeToString())).isEqualTo("1:[]:0");

        long aborted = client.openTxn("bob");
        assertThat(client.allocateTableWriteId(aborted, DB, "t")).isEqualTo(2);
        client.rollbackTxn(aborted);
        ValidTxnList now = client.getValidTxns();
        assertThat(now.isTxnAborted(aborted)).isTrue();
        assertThat(writeIds(DB + ".t", now.writeToString())).isEqualTo("2:[2]:1");
        GetOpenTxnsInfoResponse shown = client.showTxns();
        assertThat(shown.getTxn_high_water_mark()).isGreaterThanOrEqualTo(aborted);
        assertThat(shown.getOpen_txns())
                .filteredOn(info -> info.getId() == aborted)
                .extracting(TxnInfo::getState, TxnInfo::getUser)
                .containsExactly(tuple(TxnState.ABORTED, "bob"));

        assertThatThrownBy(() -> client.commitTxn(aborted))
                .isInstanceOf(TxnAbortedException.class)
                .hasMessage("Transaction txnid:" + aborted + " already aborted");
        assertThatThrownBy(() -> client.rollbackTxn(writer))
                .isInstanceOf(NoSuchTxnException.class)
                .hasMessage("Transaction txnid:" + writer + " is already committed.");
        assertThatThrownBy(() -> client.commitTxn(987_654_321L))
                .isInstanceOf(NoSuchTxnException.class)
                .hasMessage("No such transaction txnid:987654321");
        assertThatThrownBy(() -> client.allocateTableWriteId(aborted, DB, "t"))
                .isInstanceOf(MetaException.class)
                .hasMessage("Write ID allocation failed on " + DB + ".t as not all input txns in open state or"
                        + " read-only: {" + aborted + ",ABORTED}");
        // The raw request forms of Hive 3.1's IDL.
        long third = client.openTxn("carol");
        raw.commit_txn(new CommitTxnRequest(third));
        assertThat(client.getValidTxns().isTxnValid(third)).isTrue();
        long fourth = client.openTxn("carol");
        raw.abort_txn(new AbortTxnRequest(fourth));
        assertThat(client.getValidTxns().isTxnAborted(fourth)).isTrue();
    }

    @Test
    void batchesOfTransactionsWriteIdsAndHeartbeats() throws Exception {
        List<Long> txns = client.openTxns("alice", 3).getTxn_ids();
        assertThat(txns).hasSize(3);
        assertThat(txns.get(1)).isEqualTo(txns.get(0) + 1);
        assertThat(txns.get(2)).isEqualTo(txns.get(0) + 2);
        List<TxnToWriteId> allocated = client.allocateTableWriteIdsBatch(txns, DB, "w");
        assertThat(allocated)
                .extracting(TxnToWriteId::getTxnId, TxnToWriteId::getWriteId)
                .containsExactly(tuple(txns.get(0), 1L), tuple(txns.get(1), 2L), tuple(txns.get(2), 3L));

        long beyond = txns.get(2) + 1_000;
        assertThat(client.heartbeatTxnRange(txns.get(0), txns.get(2)).getNosuch())
                .isEmpty();
        assertThat(client.heartbeatTxnRange(beyond, beyond).getNosuch()).containsExactly(beyond);
        assertThat(client.getValidTxns().isTxnValid(txns.get(0))).isFalse();

        client.commitTxn(txns.get(0));
        client.abortTxns(List.of(txns.get(1), txns.get(2)));
        assertThat(client.heartbeatTxnRange(txns.get(1), txns.get(2)).getAborted())
                .containsExactlyInAnyOrder(txns.get(1), txns.get(2));
        ValidTxnList now = client.getValidTxns();
        assertThat(now.isTxnAborted(txns.get(1))).isTrue();
        assertThat(now.isTxnAborted(txns.get(2))).isTrue();
        assertThat(writeIds(DB + ".w", now.writeToString())).isEqualTo("3:[2, 3]:2");
        assertThat(raw.get_open_txns().getTxn_high_water_mark()).isGreaterThanOrEqualTo(txns.get(2));
        // Hive 3.1's getValidWriteIds(String) leaves out the validTxnList its own IDL requires, so its client refuses
        // to send it (on a connection of its own: the refused call leaves half a message in the client's buffer).
        HiveMetaStoreClient once = hms.newClient();
        assertThatThrownBy(() -> once.getValidWriteIds(DB + ".w"))
                .isInstanceOf(org.apache.thrift.protocol.TProtocolException.class)
                .hasMessageStartingWith("Required field 'validTxnList' is unset!");
        // As in Hive, abort_txns skips ids it cannot abort (Hive logs them); abort_txn refuses one.
        client.abortTxns(List.of(987_654_322L));
        assertThatThrownBy(() -> client.rollbackTxn(987_654_322L))
                .isInstanceOf(NoSuchTxnException.class)
                .hasMessage("No such transaction txnid:987654322");
        assertThat(client.showTxns().getOpen_txns()).noneMatch(info -> info.getId() == 987_654_322L);
    }

    @Test
    void compactionRequestsAreRecordedAndListed() throws Exception {
        CompactionResponse first = client.compact2(DB, "p", "ds=1", CompactionType.MINOR, Map.of());
        assertThat(first.isAccepted()).isTrue();
        assertThat(first.getState()).isEqualTo("initiated");
        CompactionResponse again = client.compact2(DB, "p", "ds=1", CompactionType.MAJOR, Map.of());
        assertThat(again.isAccepted()).isFalse();
        // The old void form, as Hive 3.1's client still sends it.
        client.compact(DB, "c", null, CompactionType.MAJOR);
        raw.compact(new CompactionRequest(DB, "c", CompactionType.MINOR)); // already queued: quietly nothing
        assertThat(client.showCompactions().getCompacts())
                .filteredOn(element -> element.getDbname().equals(DB))
                .extracting(
                        ShowCompactResponseElement::getTablename,
                        ShowCompactResponseElement::getPartitionname,
                        ShowCompactResponseElement::getType,
                        ShowCompactResponseElement::getState)
                .containsExactlyInAnyOrder(
                        tuple("p", "ds=1", CompactionType.MINOR, "initiated"),
                        tuple("c", null, CompactionType.MAJOR, "initiated"));
        assertThat(raw.show_compact(new ShowCompactRequest()).getCompacts()).isNotEmpty();
    }
}
