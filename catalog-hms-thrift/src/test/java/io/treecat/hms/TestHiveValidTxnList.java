package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.BitSet;
import java.util.List;
import org.apache.hadoop.hive.common.ValidReadTxnList;
import org.apache.hadoop.hive.metastore.api.GetOpenTxnsResponse;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.txn.TxnCommonUtils;
import org.junit.jupiter.api.Test;

/** A reader's snapshot read as Hive 4's {@code ValidReadTxnList} reads it, checked against Hive's own class. */
class TestHiveValidTxnList {
    private static GetOpenTxnsResponse open(long highWaterMark, List<Long> ids, int... aborted) {
        BitSet bits = new BitSet();
        for (int index : aborted) {
            bits.set(index);
        }
        return new GetOpenTxnsResponse(highWaterMark, ids, ByteBuffer.wrap(bits.toByteArray()));
    }

    /** Every id up to {@code upTo} answers as Hive's own ValidReadTxnList of the same string answers. */
    private static void sameAsHive(String text, long upTo) throws MetaException {
        HiveValidTxnList ours = HiveValidTxnList.parse(text);
        ValidReadTxnList hives = new ValidReadTxnList();
        hives.readFromString(text);
        for (long id = 0; id <= upTo; id++) {
            assertThat(ours.isValid(id)).as("%s valid %s", text, id).isEqualTo(hives.isTxnValid(id));
            assertThat(ours.isAborted(id)).as("%s aborted %s", text, id).isEqualTo(hives.isTxnAborted(id));
        }
        assertThat(ours.highWaterMark()).isEqualTo(hives.getHighWatermark());
    }

    @Test
    void readsEveryFormHiveWrites() throws Exception {
        sameAsHive("5:3:3,4,5:2", 8);
        sameAsHive("5:3:3-5:2", 8);
        sameAsHive("20:2:2,7-9,15:1,4-6,11-12", 25);
        sameAsHive("9:9223372036854775807::", 12);
        sameAsHive("9:9223372036854775807:", 12);
        sameAsHive("9:4:4", 12);
        sameAsHive("9:9223372036854775807::3", 12);
        // What Hive's own writer makes of a snapshot, runs of ids as ranges.
        String written = TxnCommonUtils.createValidReadTxnList(
                        open(40, List.of(2L, 3L, 4L, 5L, 6L, 7L, 9L, 30L), 1, 2, 3, 4, 5, 7), 0)
                .writeToString();
        sameAsHive(written, 45);
        // The empty string: every transaction is valid.
        HiveValidTxnList all = HiveValidTxnList.parse("");
        assertThat(all.isValid(Long.MAX_VALUE - 1)).isTrue();
        assertThat(all.isAborted(3)).isFalse();
    }

    @Test
    void aHugeRangeCostsNothing() throws Exception {
        HiveValidTxnList list = HiveValidTxnList.parse("9000000000:1:1-8999999999:");
        assertThat(list.isValid(5_000_000_000L)).isFalse();
        assertThat(list.isValid(9_000_000_000L)).isTrue();
    }

    @Test
    void aSnapshotMadeFromOpenTransactionsIsHives() {
        GetOpenTxnsResponse open = open(10, List.of(2L, 4L, 7L, 9L), 1, 3);
        for (long current : new long[] {0, 3, 4, 7, 10}) {
            HiveValidTxnList ours = HiveValidTxnList.of(open, current);
            var hives = TxnCommonUtils.createValidReadTxnList(open, current);
            for (long id = 0; id <= 12; id++) {
                assertThat(ours.isValid(id))
                        .as("current %s, valid %s", current, id)
                        .isEqualTo(hives.isTxnValid(id));
                assertThat(ours.isAborted(id))
                        .as("current %s, aborted %s", current, id)
                        .isEqualTo(hives.isTxnAborted(id));
            }
        }
    }

    @Test
    void malformedTextIsAMetaExceptionNamingIt() {
        assertThatThrownBy(() -> HiveValidTxnList.parse("x:y"))
                .isInstanceOf(MetaException.class)
                .hasMessage("Invalid valid transaction list 'x:y': For input string: \"x\"");
        assertThatThrownBy(() -> HiveValidTxnList.parse("5"))
                .isInstanceOf(MetaException.class)
                .hasMessage(
                        "Invalid valid transaction list '5': expected <high water mark>:<min open txn>[:<open>[:<aborted>]]");
        assertThatThrownBy(() -> HiveValidTxnList.parse("5:1:4-2:"))
                .isInstanceOf(MetaException.class)
                .hasMessage("Invalid valid transaction list '5:1:4-2:': empty range 4-2");
        assertThatThrownBy(() -> HiveValidTxnList.parse("5:1:3,,4:"))
                .isInstanceOf(MetaException.class)
                .hasMessage("Invalid valid transaction list '5:1:3,,4:': For input string: \"\"");
    }
}
