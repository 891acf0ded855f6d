package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.TApplicationException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 24's Thrift findings over a real connection: a filter of 10,000 terms (a {@code
 * StackOverflowError} before) answers the right partitions, in the forms engines send it; a filter past
 * {@code hms.filter.*} is a {@code MetaException} naming the limit; {@code show_locks(null)} (and the
 * other lock calls without their request) is Thrift's protocol error naming what is missing, not an
 * internal error. The connection serves on after each.
 */
class TestHmsFilterLimits {
    @RegisterExtension
    final HmsTestServer hms = HmsTestServer.withFilterLimits(new HiveFilterLimits(1024 * 1024, 50));

    private ThriftHiveMetastore.Client client;

    @BeforeEach
    void start() throws Exception {
        client = hms.client();
        Database db = new Database();
        db.setName("db");
        client.create_database(db);
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(List.of(new FieldSchema("id", "bigint", null)));
        sd.setSerdeInfo(new SerDeInfo("s", "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", new HashMap<>()));
        Table table = new Table();
        table.setDbName("db");
        table.setTableName("t");
        table.setTableType("EXTERNAL_TABLE");
        table.setSd(sd);
        table.setPartitionKeys(List.of(new FieldSchema("day", "string", null), new FieldSchema("n", "int", null)));
        table.setParameters(new HashMap<>());
        client.create_table(table);
        List<Partition> partitions = new ArrayList<>();
        for (int n = 0; n < 40; n++) {
            Partition partition = new Partition();
            partition.setDbName("db");
            partition.setTableName("t");
            partition.setValues(List.of(n % 2 == 0 ? "even" : "odd", Integer.toString(n)));
            partition.setParameters(new HashMap<>());
            partitions.add(partition);
        }
        client.add_partitions(partitions);
    }

    private List<Integer> numbers(String filter) throws Exception {
        return client.get_partitions_by_filter("db", "t", filter, (short) -1).stream()
                .map(partition -> Integer.parseInt(partition.getValues().get(1)))
                .sorted()
                .toList();
    }

    @Test
    void filtersOfTenThousandTermsAnswerTheRightPartitions() throws Exception {
        // n = 10, 13, 16, … among 10,000 values, most of them matching no partition.
        List<Integer> wanted =
                IntStream.range(0, 10_000).map(i -> 10 + 3 * i).boxed().toList();
        String flat = wanted.stream().map(n -> "n = " + n).collect(Collectors.joining(" or "));
        StringBuilder spark =
                new StringBuilder("(".repeat(wanted.size() - 1)).append("n = ").append(wanted.get(0));
        for (int i = 1; i < wanted.size(); i++) {
            spark.append(" or n = ").append(wanted.get(i)).append(')');
        }
        String in = "(n) in (" + wanted.stream().map(String::valueOf).collect(Collectors.joining(", ")) + ")";
        List<Integer> expected = List.of(10, 13, 16, 19, 22, 25, 28, 31, 34, 37);
        for (String filter : List.of(flat, spark.toString(), in, "day = 'even' and (" + flat + ")")) {
            List<Integer> answer = numbers(filter);
            assertThat(answer)
                    .as("%s…", filter.substring(0, 40))
                    .isEqualTo(filter.startsWith("day") ? List.of(10, 16, 22, 28, 34) : expected);
        }
        assertThat(client.get_num_partitions_by_filter("db", "t", flat)).isEqualTo(10);
        String notEqual = IntStream.range(0, 10_000).mapToObj(n -> "n <> " + n).collect(Collectors.joining(" and "));
        assertThat(numbers(notEqual)).isEmpty();
    }

    @Test
    void aFilterNestedPastTheLimitIsAMetaExceptionNamingIt() throws Exception {
        StringBuilder deep = new StringBuilder();
        for (int i = 0; i < 51; i++) {
            deep.append("n = ").append(i).append(i % 2 == 0 ? " and (" : " or (");
        }
        deep.append("n = 99").append(")".repeat(51));
        assertThatThrownBy(() -> client.get_partitions_by_filter("db", "t", deep.toString(), (short) -1))
                .isInstanceOf(MetaException.class)
                .hasMessage("Error parsing partition filter at position 1: expected at most 50 levels of nested and/or"
                        + " (hms.filter.max-depth) but found more");
        assertThat(numbers("n = 7")).containsExactly(7);
    }

    @Test
    void lockCallsWithoutTheirRequestAreAProtocolError() throws Exception {
        List<ThrowingCall> calls = List.of(
                () -> client.show_locks(null),
                () -> client.lock(null),
                () -> client.check_lock(null),
                () -> client.unlock(null),
                () -> client.heartbeat(null));
        List<String> names = List.of("show_locks", "lock", "check_lock", "unlock", "heartbeat");
        for (int i = 0; i < calls.size(); i++) {
            String name = names.get(i);
            assertThatThrownBy(calls.get(i)::call).isInstanceOfSatisfying(TApplicationException.class, e -> {
                assertThat(e.getType()).isEqualTo(TApplicationException.PROTOCOL_ERROR);
                assertThat(e.getMessage()).startsWith(name + ": the request (").endsWith(") is missing");
            });
            assertThat(client.get_all_databases()).contains("db");
        }
    }

    @FunctionalInterface
    private interface ThrowingCall {
        void call() throws Exception;
    }
}
