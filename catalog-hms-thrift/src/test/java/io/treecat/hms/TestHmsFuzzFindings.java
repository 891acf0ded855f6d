package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.treecat.lakehouse.storage.ExternalLocations;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.stream.Stream;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.LockComponent;
import org.apache.hadoop.hive.metastore.api.LockLevel;
import org.apache.hadoop.hive.metastore.api.LockRequest;
import org.apache.hadoop.hive.metastore.api.LockType;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.NoSuchTxnException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.hadoop.hive.metastore.api.TxnAbortedException;
import org.apache.thrift.TException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The HMS findings of the live protocol fuzzer ({@code LiveProtocolFuzzIT}, docs/robustness.md "Live protocol
 * fuzzing"), each reduced to the calls that showed it, over Hive's generated client on a real socket, on a server
 * that keeps every location inside the warehouse.
 */
class TestHmsFuzzFindings {
    /** The fuzzer's odd names: oversized (with and without multi-byte characters), catalog-qualified, NUL, null. */
    private static final List<String> ODD_NAMES = Arrays.asList(
            "n".repeat(250),
            "n".repeat(300),
            "n".repeat(349) + "\u00E9".repeat(30),
            "@hive#x",
            "@warehouse#",
            "@warehouse#x",
            "\u0000",
            "a\u0000b",
            "s\uD800",
            "",
            null);

    @RegisterExtension
    final HmsTestServer hms = HmsTestServer.withExternalLocations(ExternalLocations.REFUSED);

    @Test
    void aLocationOutsideTheWarehouseMakesNoDirectoryThereWhateverTheNames() throws Exception {
        ThriftHiveMetastore.Client client = hms.client();
        Database sales = new Database("sales", null, null, new HashMap<>());
        client.create_database(sales);
        client.create_table(TestHmsNamesAndLocations.table("sales", "hp", "p"));
        int n = 0;
        List<String> outside = new ArrayList<>();
        for (String name : ODD_NAMES) {
            for (String other : ODD_NAMES) {
                String uri = hms.directory().resolve("escape-" + n++).toUri().toString();
                outside.add(uri);
                String bare = hms.directory()
                        .resolve("warehouse")
                        .resolve("../escape-" + n++)
                        .toString();
                outside.add(bare);
                for (String location : List.of(uri, bare)) {
                    Database database = new Database(name, other, location, new HashMap<>());
                    ignoreRefusal(() -> client.create_database(database));
                    Table table = TestHmsNamesAndLocations.table(name, other, "p");
                    table.getSd().setLocation(location);
                    ignoreRefusal(() -> client.create_table(table));
                    Table inSales = TestHmsNamesAndLocations.table("sales", name, "p");
                    inSales.getSd().setLocation(location);
                    ignoreRefusal(() -> client.create_table(inSales));
                    Partition partition = new Partition();
                    partition.setDbName("sales");
                    partition.setTableName("hp");
                    partition.setValues(Arrays.asList(name));
                    partition.setSd(TestHmsNamesAndLocations.table("sales", "x").getSd());
                    partition.getSd().setLocation(location);
                    ignoreRefusal(() -> client.add_partition(partition));
                }
            }
        }
        try (Stream<Path> files = Files.list(hms.directory())) {
            assertThat(files.map(path -> path.getFileName().toString())).containsExactlyInAnyOrder("db", "warehouse");
        }
    }

    @Test
    void dropTableOfOddNamesIsNoSuchObjectOrAMetaExceptionNeverAnInternalError() throws Exception {
        ThriftHiveMetastore.Client client = hms.client();
        for (String db : ODD_NAMES) {
            for (String table : ODD_NAMES) {
                Throwable thrown = catchThrowable(() -> client.drop_table(db, table, false));
                assertThat(thrown)
                        .as("drop_table(%s, %s)", quote(db), quote(table))
                        .isInstanceOfAny(NoSuchObjectException.class, MetaException.class);
                assertThat(thrown.getMessage())
                        .as("drop_table(%s, %s)", quote(db), quote(table))
                        .doesNotStartWith("Internal error");
            }
        }
        assertThat(client.get_all_databases()).containsExactly("default");
    }

    @Test
    void lockOnAnOddDatabaseNameIsAnExceptionLockDeclares() throws Exception {
        ThriftHiveMetastore.Client client = hms.client();
        for (String db : ODD_NAMES) {
            if (db == null) {
                continue; // a required field: Hive's client refuses to send it
            }
            for (String table : ODD_NAMES) {
                LockComponent component = new LockComponent(LockType.SHARED_READ, LockLevel.TABLE, db);
                component.setTablename(table);
                LockRequest request = new LockRequest(List.of(component), "user", "host");
                Throwable thrown = catchThrowable(() -> client.lock(request));
                if (thrown == null) {
                    continue;
                }
                // lock declares only these two: a MetaException would reach the client as "Internal error".
                assertThat(thrown)
                        .as("lock(%s, %s)", quote(db), quote(table))
                        .isInstanceOfAny(NoSuchTxnException.class, TxnAbortedException.class);
            }
        }
        LockComponent component = new LockComponent(LockType.SHARED_READ, LockLevel.TABLE, "@warehouse#");
        component.setTablename("t");
        assertThat(catchThrowable(() -> client.lock(new LockRequest(List.of(component), "user", "host"))))
                .isInstanceOf(NoSuchTxnException.class)
                .hasMessage("A lock component needs a database name");
        // The connection carries on, and nothing was taken by the refused requests.
        assertThat(client.get_all_databases()).containsExactly("default");
    }

    private static String quote(String name) {
        return name == null ? "null" : name.replace("\u0000", "\\0");
    }

    private interface Call {
        void run() throws TException;
    }

    private static void ignoreRefusal(Call call) {
        try {
            call.run();
        } catch (TException | RuntimeException e) {
            // Refused or not: what is checked is what it left on disk.
        }
    }
}
