package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hive databases, tables and partitions on object stores ({@code s3a://}, {@code s3://}, {@code gs://},
 * {@code abfs://}, {@code abfss://}), with Hive 4's own client: the server stores their locations and touches no file
 * (no directory is made, a drop with deleteData deletes nothing it cannot reach), as Spark's Hive catalog and Trino's
 * Hive connector expect of a metastore whose engines own the files. A scheme no store has is Hive's MetaException
 * naming it, and changes nothing.
 */
class TestHmsObjectStoreLocations {
    @RegisterExtension
    final HmsTestServer hms = new HmsTestServer();

    private Set<String> files() throws IOException {
        Path db = hms.directory().resolve("db");
        try (Stream<Path> all = Files.walk(hms.directory())) {
            return all.filter(path -> !path.startsWith(db))
                    .map(path -> hms.directory().relativize(path).toString())
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }

    private static Database database(String name, String location) {
        Database database = new Database();
        database.setName(name);
        database.setLocationUri(location);
        database.setParameters(new HashMap<>());
        return database;
    }

    @Test
    void objectStoreLocationsAreStoredAndNoFileIsTouched() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        Set<String> before = files();
        client.createDatabase(database("lake", "s3a://bucket/lake"));
        assertThat(client.getDatabase("lake").getLocationUri()).isEqualTo("s3a://bucket/lake");

        // A table without a location goes below its database's, on the same store.
        client.createTable(TestHmsNamesAndLocations.table("lake", "plain"));
        assertThat(client.getTable("lake", "plain").getSd().getLocation()).isEqualTo("s3a://bucket/lake/plain");

        Table events = TestHmsNamesAndLocations.table("lake", "events", "ds");
        events.getSd().setLocation("s3://bucket/lake/events");
        client.createTable(events);
        assertThat(client.getTable("lake", "events").getSd().getLocation()).isEqualTo("s3://bucket/lake/events");
        for (String location : List.of(
                "gs://other/events/ds=1",
                "abfs://data@account.dfs.core.windows.net/events/ds=2",
                "abfss://data@account.dfs.core.windows.net/events/ds=3")) {
            Partition partition = new Partition();
            partition.setDbName("lake");
            partition.setTableName("events");
            partition.setValues(List.of(location.substring(location.length() - 1)));
            partition.setSd(client.getTable("lake", "events").getSd().deepCopy());
            partition.getSd().setLocation(location);
            partition.setParameters(new HashMap<>());
            client.add_partition(partition);
        }
        // The partition without a location of its own goes below the table's.
        Partition implicit = new Partition();
        implicit.setDbName("lake");
        implicit.setTableName("events");
        implicit.setValues(List.of("4"));
        implicit.setSd(client.getTable("lake", "events").getSd().deepCopy());
        implicit.getSd().setLocation(null);
        implicit.setParameters(new HashMap<>());
        client.add_partition(implicit);
        assertThat(client.getPartition("lake", "events", List.of("4")).getSd().getLocation())
                .isEqualTo("s3://bucket/lake/events/ds=4");
        assertThat(client.getPartition("lake", "events", List.of("3")).getSd().getLocation())
                .isEqualTo("abfss://data@account.dfs.core.windows.net/events/ds=3");

        // Managed tables dropped with their data: the engines own those files, the server deletes none of them.
        client.dropTable("lake", "events", true, false);
        client.dropTable("lake", "plain", true, false);
        client.dropDatabase("lake", true, false);
        assertThat(files()).isEqualTo(before);
        assertThat(hms.server().isServing()).isTrue();
    }

    @Test
    void aSchemeNoStoreHasIsAMetaExceptionNamingIt() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        long vid = hms.catalog().lastVid();
        assertThatThrownBy(() -> client.createDatabase(database("odd", "foo://bucket/odd")))
                .isInstanceOf(MetaException.class)
                .hasMessage("Unsupported location scheme: foo");
        client.createDatabase(database("fine", "s3://bucket/fine"));
        long afterFine = hms.catalog().lastVid();
        Table odd = TestHmsNamesAndLocations.table("fine", "odd");
        odd.getSd().setLocation("mem://x/odd");
        assertThatThrownBy(() -> client.createTable(odd))
                .isInstanceOf(MetaException.class)
                .hasMessage("Unsupported location scheme: mem");
        assertThat(hms.catalog().lastVid()).isEqualTo(afterFine).isGreaterThan(vid);
        assertThat(client.getAllTables("fine")).isEmpty();
    }
}
