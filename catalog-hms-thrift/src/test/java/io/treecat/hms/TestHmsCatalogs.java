package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import io.treecat.lakehouse.model.CatalogEntry;
import io.treecat.lakehouse.model.NamespaceEntry;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.AlreadyExistsException;
import org.apache.hadoop.hive.metastore.api.AlterCatalogRequest;
import org.apache.hadoop.hive.metastore.api.Catalog;
import org.apache.hadoop.hive.metastore.api.CreateCatalogRequest;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.DropCatalogRequest;
import org.apache.hadoop.hive.metastore.api.DropDatabaseRequest;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.GetCatalogRequest;
import org.apache.hadoop.hive.metastore.api.GetTableRequest;
import org.apache.hadoop.hive.metastore.api.InvalidObjectException;
import org.apache.hadoop.hive.metastore.api.InvalidOperationException;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.PrincipalType;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hive's catalogs and the default database, through Hive 4.1's {@code HiveMetaStoreClient} and the raw Thrift
 * client: what a fresh server has, catalogs made, used through {@code @cat#db} names and {@code catName} fields,
 * and dropped with Hive's rules, and the bad input Hive refuses (each refusal leaving the store as it was).
 */
class TestHmsCatalogs {
    @RegisterExtension
    final HmsTestServer hms = new HmsTestServer();

    /** The warehouse root with a trailing slash. */
    private String root() {
        String warehouse = hms.warehouse();
        return warehouse.endsWith("/") ? warehouse : warehouse + "/";
    }

    @Test
    void aFreshServerHasTheHiveCatalogAndItsDefaultDatabase() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();

        assertThat(client.getCatalogs()).containsExactly("hive");
        Catalog hive = client.getCatalog("hive");
        assertThat(hive.getName()).isEqualTo("hive");
        assertThat(hive.getDescription()).isEqualTo("Default catalog for Hive");
        assertThat(hive.getLocationUri()).isEqualTo(root() + "warehouse");
        assertThat(client.getCatalog("HIVE").getName()).isEqualTo("hive");
        assertThat(client.getAllDatabases()).containsExactly("default");
        Database database = client.getDatabase("default");
        assertThat(database.getDescription()).isEqualTo("Default Hive database");
        assertThat(database.getLocationUri()).isEqualTo(root() + "warehouse/default");
        assertThat(database.getOwnerName()).isEqualTo("public");
        assertThat(database.getOwnerType()).isEqualTo(PrincipalType.ROLE);
        assertThat(database.getCatalogName()).isEqualTo("hive");
        assertThat(database.getParameters()).isEmpty();
        assertThat(Files.isDirectory(Path.of(URI.create(database.getLocationUri()))))
                .isTrue();
        // It is the first-level namespace every other interface sees.
        assertThat(hms.catalog().get(ObjectPath.of("warehouse", "default"), ReadPoint.LATEST))
                .hasValueSatisfying(object -> assertThat(
                                NamespaceEntry.decode(object.value()).properties())
                        .containsEntry(NamespaceEntry.COMMENT, "Default Hive database"));
    }

    @Test
    void theDefaultsAreMadeOnceAndARestartOrConcurrentStartsWriteNothing() throws Exception {
        CatalogService tree = hms.catalog();
        long afterFirstStart = tree.lastVid();
        String uuid = hms.client().get_metastore_db_uuid();

        startAnotherServer(tree).shutdown();
        assertThat(tree.lastVid()).isEqualTo(afterFirstStart);

        // A default dropped by another interface comes back with the next start.
        tree.commit(new WriteSet(List.of(new WriteOp.Remove(ObjectPath.of("warehouse", "default")))));
        TreeCatHmsServer restarted = startAnotherServer(tree);
        assertThat(restarted.service().get(ObjectPath.of("warehouse", "default"), ReadPoint.LATEST))
                .isPresent();
        restarted.shutdown();

        // Servers starting at once on a fresh tree: one makes the defaults, the others find them.
        try (CatalogService fresh = CatalogService.open(hms.directory().resolve("fresh"))) {
            ExecutorService pool = Executors.newFixedThreadPool(4);
            List<Future<TreeCatHmsServer>> starts = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                starts.add(pool.submit(() -> startAnotherServer(fresh)));
            }
            List<String> uuids = new ArrayList<>();
            for (Future<TreeCatHmsServer> start : starts) {
                TreeCatHmsServer server = start.get();
                uuids.add(call(server, ThriftHiveMetastore.Client::get_metastore_db_uuid));
                assertThat(call(server, ThriftHiveMetastore.Client::get_all_databases))
                        .containsExactly("default");
                server.shutdown();
            }
            pool.shutdown();
            assertThat(uuids).hasSize(4).containsOnly(uuids.get(0));
            assertThat(uuids.get(0)).isNotEqualTo(uuid);
        }
        assertThat(hms.client().get_metastore_db_uuid()).isEqualTo(uuid);
    }

    private TreeCatHmsServer startAnotherServer(CatalogService tree) {
        TreeCatHmsServer server =
                new TreeCatHmsServer(tree, HmsServerConfig.of("127.0.0.1", 0, "warehouse", hms.warehouse()));
        server.start();
        return server;
    }

    @FunctionalInterface
    private interface Call<T> {
        T on(ThriftHiveMetastore.Client client) throws Exception;
    }

    /** One call on a connection of its own, closed after it (an open connection would hold the server's stop). */
    private static <T> T call(TreeCatHmsServer server, Call<T> call) throws Exception {
        TSocket socket = new TSocket("127.0.0.1", server.port());
        socket.open();
        try {
            return call.on(new ThriftHiveMetastore.Client(new TBinaryProtocol(socket)));
        } finally {
            socket.close();
        }
    }

    @Test
    void theDefaultDatabaseOfHiveIsNeverDropped() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        ThriftHiveMetastore.Client raw = hms.client();
        long before = hms.catalog().lastVid();
        String message = "Can not drop default database in catalog hive";

        assertThatThrownBy(() -> client.dropDatabase("default", true, true, true))
                .isInstanceOf(MetaException.class)
                .hasMessage(message);
        assertThatThrownBy(() -> raw.drop_database("@hive#DEFAULT", false, false))
                .isInstanceOf(MetaException.class)
                .hasMessage(message);
        assertThatThrownBy(() -> raw.drop_database("@warehouse#default", false, false))
                .isInstanceOf(MetaException.class)
                .hasMessage(message);
        DropDatabaseRequest request = new DropDatabaseRequest("default", true, true, true);
        request.setCatalogName("hive");
        assertThatThrownBy(() -> raw.drop_database_req(request))
                .isInstanceOf(MetaException.class)
                .hasMessage(message);
        assertThat(hms.catalog().lastVid()).isEqualTo(before);
        assertThat(client.getAllDatabases()).containsExactly("default");
    }

    @Test
    void aCatalogIsMadeUsedAndDroppedWithHivesRules() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        ThriftHiveMetastore.Client raw = hms.client();
        Path home = hms.directory().resolve("sales-home");
        String location = home.toUri().toString().replaceAll("/$", "");
        Catalog sales = new Catalog("Sales", location);
        sales.setDescription("sales data");
        client.createCatalog(sales);

        assertThat(client.getCatalogs()).containsExactly("hive", "sales");
        Catalog read = client.getCatalog("SALES");
        assertThat(read.getName()).isEqualTo("sales");
        assertThat(read.getDescription()).isEqualTo("sales data");
        assertThat(read.getLocationUri()).isEqualTo(location);
        assertThat(CatalogEntry.decode(hms.catalog()
                                .get(ObjectPath.of("sales"), ReadPoint.LATEST)
                                .orElseThrow()
                                .value())
                        .description())
                .isEqualTo("sales data");
        // Every catalog has its default database, as in Hive.
        assertThat(client.getAllDatabases("sales")).containsExactly("default");
        Database salesDefault = client.getDatabase("sales", "default");
        assertThat(salesDefault.getDescription()).isEqualTo("Default database for catalog Sales");
        assertThat(salesDefault.getLocationUri()).isEqualTo(location + "/default");
        assertThat(salesDefault.getCatalogName()).isEqualTo("sales");
        assertThat(Files.isDirectory(home.resolve("default"))).isTrue();

        // A database and a table in it, named by catName fields and by @sales#db.
        Database orders = new Database();
        orders.setName("orders");
        orders.setCatalogName("sales");
        client.createDatabase(orders);
        assertThat(client.getDatabase("sales", "orders").getLocationUri()).isEqualTo(location + "/orders");
        Table table = table("sales", "orders", "daily");
        client.createTable(table);
        assertThat(client.getTable("sales", "orders", "daily").getCatName()).isEqualTo("sales");
        assertThat(raw.get_all_tables("@sales#orders")).containsExactly("daily");
        assertThat(raw.get_databases("@SALES#*")).containsExactly("default", "orders");
        assertThat(client.getAllDatabases()).containsExactly("default");
        assertThat(client.getAllTables("orders")).isEmpty();
        assertThat(hms.catalog().get(ObjectPath.of("sales", "orders", "daily"), ReadPoint.LATEST))
                .isPresent();
        Partition partition = new Partition();
        partition.setCatName("sales");
        partition.setDbName("orders");
        partition.setTableName("daily");
        partition.setValues(List.of("2025-01-01"));
        client.add_partition(partition);
        assertThat(client.listPartitionNames("sales", "orders", "daily", (short) -1))
                .containsExactly("ds=2025-01-01");
        assertThat(raw.get_partitions("@sales#orders", "daily", (short) -1))
                .singleElement()
                .satisfies(found -> assertThat(found.getCatName()).isEqualTo("sales"));
        // One call, one catalog.
        GetTableRequest across = new GetTableRequest("@hive#orders", "daily");
        across.setCatName("sales");
        assertThatThrownBy(() -> raw.get_table_req(across))
                .isInstanceOf(MetaException.class)
                .hasMessage("A call acts in one catalog; this one names hive and sales");

        long before = hms.catalog().lastVid();
        assertThatThrownBy(() -> client.dropCatalog("sales"))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessage("There are non-default databases in the catalog sales so it cannot be dropped.");
        client.dropDatabase("sales", "orders", true, true, true);
        client.createTable(table("sales", "default", "kept"));
        before = hms.catalog().lastVid();
        assertThatThrownBy(() -> client.dropCatalog("sales"))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessage("There are still objects in the default database for catalog sales");
        assertThat(hms.catalog().lastVid()).isEqualTo(before);
        client.dropTable("sales", "default", "kept", true, false);

        client.dropCatalog("sales");
        assertThat(client.getCatalogs()).containsExactly("hive");
        assertThatThrownBy(() -> client.getCatalog("sales"))
                .isInstanceOf(NoSuchObjectException.class)
                .hasMessage("No catalog sales");
        assertThat(hms.catalog().get(ObjectPath.of("sales"), ReadPoint.LATEST)).isEmpty();
        assertThat(home).doesNotExist();
    }

    private static Table table(String catalog, String db, String name) {
        Table table = new Table();
        table.setCatName(catalog);
        table.setDbName(db);
        table.setTableName(name);
        table.setTableType("MANAGED_TABLE");
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(List.of(new FieldSchema("id", "bigint", null)));
        sd.setSerdeInfo(new SerDeInfo("s", "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", new HashMap<>()));
        table.setSd(sd);
        table.setPartitionKeys(List.of(new FieldSchema("ds", "string", null)));
        table.setParameters(new HashMap<>());
        return table;
    }

    @Test
    void aCatalogChangesItsDescriptionAndLocationButNotItsName() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        client.createCatalog(new Catalog("c1", root() + "c1"));

        Catalog changed = new Catalog("c1", root() + "c1-moved");
        changed.setDescription("moved");
        client.alterCatalog("c1", changed);
        assertThat(client.getCatalog("c1").getLocationUri()).isEqualTo(root() + "c1-moved");
        assertThat(client.getCatalog("c1").getDescription()).isEqualTo("moved");
        Database later = new Database();
        later.setName("later");
        later.setCatalogName("c1");
        client.createDatabase(later);
        assertThat(client.getDatabase("c1", "later").getLocationUri()).isEqualTo(root() + "c1-moved/later");
        Catalog hive = client.getCatalog("hive");
        hive.setDescription("ours");
        client.alterCatalog("hive", hive);
        assertThat(client.getCatalog("hive").getDescription()).isEqualTo("ours");

        long before = hms.catalog().lastVid();
        assertThatThrownBy(() -> client.alterCatalog("c1", new Catalog("c2", root() + "c1")))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessage("You cannot change a catalog's name");
        assertThatThrownBy(() -> client.alterCatalog("nope", new Catalog("nope", root() + "c1")))
                .isInstanceOf(NoSuchObjectException.class)
                .hasMessage("No catalog nope");
        assertThat(hms.catalog().lastVid()).isEqualTo(before);
    }

    @Test
    void badCatalogCallsGetHivesExceptionsAndChangeNothing() throws Exception {
        ThriftHiveMetastore.Client raw = hms.client();
        raw.create_catalog(new CreateCatalogRequest(new Catalog("c1", root() + "c1")));
        long before = hms.catalog().lastVid();

        for (String taken : List.of("hive", "HIVE", "warehouse", "c1", "C1")) {
            assertThatThrownBy(() -> raw.create_catalog(new CreateCatalogRequest(new Catalog(taken, "file:/x"))))
                    .isInstanceOf(AlreadyExistsException.class)
                    .hasMessage("Catalog " + taken + " already exists");
        }
        assertThatThrownBy(() -> raw.create_catalog(new CreateCatalogRequest(new Catalog("a-b", "file:/x"))))
                .isInstanceOf(InvalidObjectException.class)
                .hasMessage("a-b is not a valid catalog name");
        assertThatThrownBy(() -> raw.create_catalog(new CreateCatalogRequest(new Catalog("", "file:/x"))))
                .isInstanceOf(InvalidObjectException.class)
                .hasMessage(" is not a valid catalog name");
        Catalog noLocation = new Catalog();
        noLocation.setName("c2");
        assertThatThrownBy(() -> raw.create_catalog(new CreateCatalogRequest(noLocation)))
                .isInstanceOf(InvalidObjectException.class)
                .hasMessage("You must specify a path for the catalog");
        String huge = "x".repeat(300);
        assertThatThrownBy(() -> raw.create_catalog(new CreateCatalogRequest(new Catalog(huge, "file:/x"))))
                .isInstanceOf(MetaException.class)
                .hasMessage("Catalog name " + "x".repeat(32) + "… is longer than 256 characters");
        String hugest = "x".repeat(5000);
        assertThatThrownBy(() -> raw.create_catalog(new CreateCatalogRequest(new Catalog(hugest, "file:/x"))))
                .isInstanceOf(MetaException.class);
        assertThatThrownBy(() -> raw.create_catalog(new CreateCatalogRequest()))
                .isInstanceOf(InvalidObjectException.class)
                .hasMessage("No catalog given");

        assertThatThrownBy(() -> raw.get_catalog(new GetCatalogRequest("nope")))
                .isInstanceOf(NoSuchObjectException.class)
                .hasMessage("No catalog nope");
        assertThatThrownBy(() -> raw.get_catalog(new GetCatalogRequest(hugest)))
                .isInstanceOf(NoSuchObjectException.class);
        assertThatThrownBy(() -> raw.get_catalog(new GetCatalogRequest()))
                .isInstanceOf(MetaException.class)
                .hasMessage("No catalog name given");

        for (String hive : List.of("hive", "HIVE", "warehouse")) {
            assertThatThrownBy(() -> raw.drop_catalog(new DropCatalogRequest(hive)))
                    .isInstanceOf(MetaException.class)
                    .hasMessage("Can not drop hive catalog");
        }
        DropCatalogRequest unknown = new DropCatalogRequest("nope");
        unknown.setIfExists(false); // Hive 4.1's request says ifExists unless told otherwise
        assertThatThrownBy(() -> raw.drop_catalog(unknown))
                .isInstanceOf(NoSuchObjectException.class)
                .hasMessage("No catalog nope");
        assertThatThrownBy(() -> raw.drop_catalog(new DropCatalogRequest()))
                .isInstanceOf(MetaException.class)
                .hasMessage("No catalog name given");
        DropCatalogRequest ifExists = new DropCatalogRequest("nope");
        ifExists.setIfExists(true);
        raw.drop_catalog(ifExists);
        assertThatThrownBy(() -> raw.alter_catalog(new AlterCatalogRequest()))
                .isInstanceOf(MetaException.class)
                .hasMessage("No catalog name or new catalog given");

        // An unknown catalog reads as an empty one (as in Hive); nothing is made in it.
        assertThat(raw.get_databases("@nope#")).isEmpty();
        assertThat(raw.get_all_tables("@nope#db")).isEmpty();
        assertThatThrownBy(() -> raw.get_database("@nope#default"))
                .isInstanceOf(NoSuchObjectException.class)
                .hasMessage("Database default does not exist");
        Database inNowhere = new Database();
        inNowhere.setName("d");
        inNowhere.setCatalogName("nope");
        assertThatThrownBy(() -> raw.create_database(inNowhere))
                .isInstanceOf(InvalidObjectException.class)
                .hasMessage("No such catalog nope");
        assertThat(hms.catalog().lastVid()).isEqualTo(before);
        assertThat(raw.get_catalogs().getNames()).containsExactly("c1", "hive");
    }

    @Test
    void everyTreeCatCatalogAHiveClientCanNameIsListed() throws Exception {
        hms.catalog()
                .commit(new WriteSet(List.of(
                        new WriteOp.Add(
                                ObjectPath.of("lake"),
                                ObjectKind.INNER,
                                CatalogEntry.of("file:/l").encode()),
                        new WriteOp.Add(
                                ObjectPath.of("Upper"),
                                ObjectKind.INNER,
                                CatalogEntry.of("file:/u").encode()),
                        new WriteOp.Add(
                                ObjectPath.of("hive"),
                                ObjectKind.INNER,
                                CatalogEntry.of("file:/h").encode()),
                        new WriteOp.Add(ObjectPath.of("plain"), ObjectKind.INNER, new org.bson.BsonDocument()))));

        // hive is the configured catalog; an upper-case or non-catalog object has no HMS name.
        assertThat(hms.client().get_catalogs().getNames()).containsExactly("hive", "lake");
        assertThat(hms.hiveClient().getCatalog("lake").getLocationUri()).isEqualTo("file:/l");
        assertThat(hms.hiveClient().getCatalog("hive").getLocationUri()).isEqualTo(root() + "warehouse");
    }
}
