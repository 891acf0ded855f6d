package io.treecat.hms;

import static io.treecat.hms.TestHiveClientTableCalls.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.AllTableConstraintsRequest;
import org.apache.hadoop.hive.metastore.api.CheckConstraintsRequest;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.DefaultConstraintsRequest;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.ForeignKeysRequest;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NotNullConstraintsRequest;
import org.apache.hadoop.hive.metastore.api.PrimaryKeysRequest;
import org.apache.hadoop.hive.metastore.api.SQLAllTableConstraints;
import org.apache.hadoop.hive.metastore.api.SQLCheckConstraint;
import org.apache.hadoop.hive.metastore.api.SQLDefaultConstraint;
import org.apache.hadoop.hive.metastore.api.SQLForeignKey;
import org.apache.hadoop.hive.metastore.api.SQLNotNullConstraint;
import org.apache.hadoop.hive.metastore.api.SQLPrimaryKey;
import org.apache.hadoop.hive.metastore.api.SQLUniqueConstraint;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.hadoop.hive.metastore.api.UniqueConstraintsRequest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hive's table constraints through Hive 4.1's {@code HiveMetaStoreClient}: stored on the table objects, answered as
 * HiveServer2 reads them for {@code DESCRIBE FORMATTED}, checked with Hive's exceptions, moved by renames and ended by
 * drops (a foreign key ends with either of its tables).
 */
class TestHiveClientConstraints {
    @RegisterExtension
    final HmsTestServer hms = new HmsTestServer();

    private HiveMetaStoreClient client;
    private ThriftHiveMetastore.Client raw;

    @BeforeEach
    void start() throws Exception {
        client = hms.hiveClient();
        raw = hms.client();
        Database db = new Database();
        db.setName("sales");
        client.createDatabase(db);
        Database other = new Database();
        other.setName("crm");
        client.createDatabase(other);
    }

    private static List<FieldSchema> columns(String... nameTypes) {
        List<FieldSchema> columns = new ArrayList<>();
        for (int i = 0; i < nameTypes.length; i += 2) {
            columns.add(new FieldSchema(nameTypes[i], nameTypes[i + 1], null));
        }
        return columns;
    }

    private static SQLPrimaryKey pk(String table, String column, int seq, String name) {
        SQLPrimaryKey key = new SQLPrimaryKey("sales", table, column, seq, name, false, false, true);
        key.setCatName("hive");
        return key;
    }

    private static SQLForeignKey fk(
            String parentDb, String parent, String parentColumn, String child, String column, int seq, String name) {
        SQLForeignKey key = new SQLForeignKey(
                parentDb, parent, parentColumn, "sales", child, column, seq, 1, 2, name, null, false, false, true);
        key.setCatName("hive");
        return key;
    }

    private PrimaryKeysRequest primaryKeys(String db, String table) {
        PrimaryKeysRequest request = new PrimaryKeysRequest(db, table);
        request.setCatName("hive");
        return request;
    }

    private ForeignKeysRequest foreignKeysOf(String db, String table) {
        ForeignKeysRequest request = new ForeignKeysRequest(null, null, db, table);
        request.setCatName("hive");
        return request;
    }

    private void customersAndOrders() throws Exception {
        Table customers =
                table("customers", columns("id", "bigint", "region", "string", "name", "string"), List.of(), Map.of());
        client.createTableWithConstraints(
                customers,
                new ArrayList<>(List.of(
                        pk("customers", "ID", 1, "pk_customers"), pk("customers", "region", 2, "pk_customers"))),
                null,
                null,
                new ArrayList<>(List.of(
                        new SQLNotNullConstraint("hive", "sales", "customers", "name", "nn_name", false, false, true))),
                null,
                null);
        Table orders = table(
                "orders",
                columns("id", "bigint", "customer", "bigint", "region", "string", "amount", "double"),
                List.of(),
                Map.of());
        client.createTableWithConstraints(
                orders,
                new ArrayList<>(List.of(pk("orders", "id", 1, null))),
                new ArrayList<>(List.of(
                        fk("sales", "customers", "id", "orders", "customer", 1, "fk_customer"),
                        fk("sales", "customers", "region", "orders", "region", 2, "fk_customer"))),
                null,
                null,
                new ArrayList<>(List.of(new SQLDefaultConstraint(
                        "hive", "sales", "orders", "amount", "0.0", "dc_amount", false, false, true))),
                new ArrayList<>(List.of(new SQLCheckConstraint(
                        "hive", "sales", "orders", "amount", "amount >= 0", "ck_amount", false, false, true))));
    }

    // The add calls and drop_constraint declare no InvalidObjectException: Hive's refusals reach clients as a
    // MetaException with Hive's message (HmsErrors).

    @Test
    void aTableWithoutConstraintsAnswersEmptyListsAsHiveDoes() throws Exception {
        client.createTable(table("plain", columns("id", "bigint"), List.of(), Map.of()));

        assertThat(client.getPrimaryKeys(primaryKeys("sales", "plain"))).isEmpty();
        assertThat(client.getForeignKeys(foreignKeysOf("sales", "plain"))).isEmpty();
        assertThat(client.getUniqueConstraints(new UniqueConstraintsRequest("hive", "sales", "plain")))
                .isEmpty();
        assertThat(client.getNotNullConstraints(new NotNullConstraintsRequest("hive", "sales", "plain")))
                .isEmpty();
        assertThat(client.getDefaultConstraints(new DefaultConstraintsRequest("hive", "sales", "plain")))
                .isEmpty();
        assertThat(client.getCheckConstraints(new CheckConstraintsRequest("hive", "sales", "plain")))
                .isEmpty();
        SQLAllTableConstraints all =
                client.getAllTableConstraints(new AllTableConstraintsRequest("sales", "plain", "hive"));
        assertThat(all.getPrimaryKeys()).isEmpty();
        assertThat(all.getForeignKeys()).isEmpty();
        // An unknown table or database has none either (Hive's store answers the same).
        assertThat(client.getPrimaryKeys(primaryKeys("sales", "nope"))).isEmpty();
        assertThat(client.getPrimaryKeys(primaryKeys("nodb", "nope"))).isEmpty();
    }

    @Test
    void constraintsRoundTripAsDescribeFormattedReadsThem() throws Exception {
        customersAndOrders();

        List<SQLPrimaryKey> customerKey = client.getPrimaryKeys(primaryKeys("sales", "customers"));
        assertThat(customerKey)
                .extracting(SQLPrimaryKey::getColumn_name, SQLPrimaryKey::getKey_seq, SQLPrimaryKey::getPk_name)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("id", 1, "pk_customers"),
                        org.assertj.core.groups.Tuple.tuple("region", 2, "pk_customers"));
        assertThat(customerKey.get(0).isRely_cstr()).isTrue();
        assertThat(customerKey.get(0).getCatName()).isEqualTo("hive");
        // A key without a name gets one as Hive makes it.
        assertThat(client.getPrimaryKeys(primaryKeys("sales", "orders")).get(0).getPk_name())
                .matches("pk_\\d+_\\d+_0");

        List<SQLForeignKey> foreign = client.getForeignKeys(foreignKeysOf("sales", "orders"));
        assertThat(foreign)
                .extracting(
                        SQLForeignKey::getPktable_name,
                        SQLForeignKey::getPkcolumn_name,
                        SQLForeignKey::getFkcolumn_name,
                        SQLForeignKey::getFk_name,
                        SQLForeignKey::getPk_name)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(
                                "customers", "id", "customer", "fk_customer", "pk_customers"),
                        org.assertj.core.groups.Tuple.tuple(
                                "customers", "region", "region", "fk_customer", "pk_customers"));
        assertThat(foreign.get(0).getUpdate_rule()).isEqualTo(1);
        assertThat(foreign.get(0).getDelete_rule()).isEqualTo(2);
        // The same keys seen from the parent (JDBC's exported keys).
        ForeignKeysRequest byParent = new ForeignKeysRequest("sales", "customers", null, null);
        assertThat(client.getForeignKeys(byParent))
                .extracting(SQLForeignKey::getFktable_name)
                .containsExactly("orders", "orders");

        assertThat(client.getNotNullConstraints(new NotNullConstraintsRequest("hive", "sales", "customers")))
                .extracting(SQLNotNullConstraint::getColumn_name, SQLNotNullConstraint::getNn_name)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("name", "nn_name"));
        assertThat(client.getDefaultConstraints(new DefaultConstraintsRequest("hive", "sales", "orders")))
                .extracting(SQLDefaultConstraint::getDefault_value)
                .containsExactly("0.0");
        assertThat(client.getCheckConstraints(new CheckConstraintsRequest("hive", "sales", "orders")))
                .extracting(SQLCheckConstraint::getCheck_expression)
                .containsExactly("amount >= 0");
        SQLAllTableConstraints all =
                client.getAllTableConstraints(new AllTableConstraintsRequest("sales", "orders", "hive"));
        assertThat(all.getPrimaryKeys()).hasSize(1);
        assertThat(all.getForeignKeys()).hasSize(2);
        assertThat(all.getDefaultConstraints()).hasSize(1);
        assertThat(all.getCheckConstraints()).hasSize(1);
    }

    @Test
    void addAndDropEachKindWithHivesChecks() throws Exception {
        client.createTable(
                table("items", columns("id", "bigint", "sku", "string", "price", "double"), List.of(), Map.of()));
        client.addPrimaryKey(new ArrayList<>(List.of(pk("items", "id", 1, "pk_items"))));
        client.addUniqueConstraint(new ArrayList<>(
                List.of(new SQLUniqueConstraint("hive", "sales", "items", "sku", 1, "uk_sku", false, false, true))));
        client.addNotNullConstraint(new ArrayList<>(
                List.of(new SQLNotNullConstraint("hive", "sales", "items", "sku", null, false, false, true))));
        client.addDefaultConstraint(new ArrayList<>(List.of(
                new SQLDefaultConstraint("hive", "sales", "items", "price", "1.0", "dc_price", false, false, true))));
        client.addCheckConstraint(new ArrayList<>(List.of(
                new SQLCheckConstraint("hive", "sales", "items", null, "price > 0", "ck_price", false, false, true))));

        assertThat(client.getUniqueConstraints(new UniqueConstraintsRequest("hive", "sales", "items")))
                .extracting(SQLUniqueConstraint::getUk_name)
                .containsExactly("uk_sku");
        assertThat(client.getNotNullConstraints(new NotNullConstraintsRequest("hive", "sales", "items"))
                        .get(0)
                        .getNn_name())
                .startsWith("nn_");
        // A table-level check constraint names no column.
        assertThat(client.getCheckConstraints(new CheckConstraintsRequest("hive", "sales", "items"))
                        .get(0)
                        .getColumn_name())
                .isNull();

        // Hive's refusals, each leaving the table as it was.
        assertThatThrownBy(() -> client.addPrimaryKey(new ArrayList<>(List.of(pk("items", "sku", 1, "pk_other")))))
                .isInstanceOf(MetaException.class)
                .hasMessage(" Primary key already exists for: hive.sales.items");
        assertThatThrownBy(() -> client.addUniqueConstraint(new ArrayList<>(List.of(
                        new SQLUniqueConstraint("hive", "sales", "items", "price", 1, "UK_SKU", false, false, true)))))
                .isInstanceOf(MetaException.class)
                .hasMessage("Constraint name already exists: sales.items.uk_sku");
        assertThatThrownBy(() -> client.addUniqueConstraint(new ArrayList<>(List.of(
                        new SQLUniqueConstraint("hive", "sales", "items", "nope", 1, "uk_nope", false, false, true)))))
                .isInstanceOf(MetaException.class)
                .hasMessage("Parent column not found: nope");
        assertThatThrownBy(() -> client.addPrimaryKey(new ArrayList<>(List.of(pk("ghost", "id", 1, "pk_ghost")))))
                .isInstanceOf(MetaException.class)
                .hasMessage("Parent table not found: ghost");
        assertThatThrownBy(() -> client.addNotNullConstraint(new ArrayList<>(List.of(
                        new SQLNotNullConstraint("hive", "sales", "items", null, "nn_null", false, false, true)))))
                .isInstanceOf(MetaException.class)
                .hasMessage("Parent column not found: null");
        assertThat(client.getUniqueConstraints(new UniqueConstraintsRequest("hive", "sales", "items")))
                .hasSize(1);

        client.dropConstraint("sales", "items", "UK_SKU");
        assertThat(client.getUniqueConstraints(new UniqueConstraintsRequest("hive", "sales", "items")))
                .isEmpty();
        assertThatThrownBy(() -> client.dropConstraint("sales", "items", "uk_sku"))
                .isInstanceOf(MetaException.class)
                .hasMessage("The constraint: uk_sku does not exist for the associated table: sales.items");
        assertThatThrownBy(() -> client.dropConstraint("sales", "ghost", "x")).isInstanceOf(MetaException.class);
        client.dropConstraint("sales", "items", "pk_items");
        assertThat(client.getPrimaryKeys(primaryKeys("sales", "items"))).isEmpty();
    }

    @Test
    void foreignKeysAreCheckedAgainstTheParentsKeys() throws Exception {
        customersAndOrders();
        client.createTable(table(
                "returns", columns("id", "bigint", "customer", "string", "region", "string"), List.of(), Map.of()));

        assertThatThrownBy(() -> client.addForeignKey(
                        new ArrayList<>(List.of(fk("sales", "ghost", "id", "returns", "id", 1, "fk_ghost")))))
                .isInstanceOf(MetaException.class)
                .hasMessage("Parent table not found: ghost");
        assertThatThrownBy(() -> client.addForeignKey(
                        new ArrayList<>(List.of(fk("sales", "customers", "id", "nochild", "id", 1, "fk_x")))))
                .isInstanceOf(MetaException.class)
                .hasMessage("Child table not found: nochild");
        assertThatThrownBy(() -> client.addForeignKey(
                        new ArrayList<>(List.of(fk("sales", "customers", "id", "returns", "nope", 1, "fk_x")))))
                .isInstanceOf(MetaException.class)
                .hasMessage("Child column not found: nope");
        // Only the first column of a two-column key: no such key on the parent.
        assertThatThrownBy(() -> client.addForeignKey(
                        new ArrayList<>(List.of(fk("sales", "customers", "id", "returns", "id", 1, "fk_x")))))
                .isInstanceOf(MetaException.class)
                .hasMessageStartingWith(
                        "Foreign key references id:bigint; but no corresponding primary key or unique key exists");
        // A type that differs from the key's.
        assertThatThrownBy(() -> client.addForeignKey(new ArrayList<>(List.of(
                        fk("sales", "customers", "id", "returns", "customer", 1, "fk_x"),
                        fk("sales", "customers", "region", "returns", "region", 2, "fk_x")))))
                .isInstanceOf(MetaException.class)
                .hasMessageStartingWith("Foreign key references id:string;region:string;");
        // A parent without keys.
        client.createTable(table("nokeys", columns("id", "bigint"), List.of(), Map.of()));
        assertThatThrownBy(() -> client.addForeignKey(
                        new ArrayList<>(List.of(fk("sales", "nokeys", "id", "returns", "id", 1, "fk_x")))))
                .isInstanceOf(MetaException.class)
                .hasMessage(
                        "Trying to define foreign key but there are no primary keys or unique keys for referenced table");
        // The parent's name space: a foreign key may not take a name its parent already has.
        assertThatThrownBy(() -> client.addForeignKey(new ArrayList<>(List.of(
                        fk("sales", "customers", "id", "returns", "id", 1, "nn_name"),
                        fk("sales", "customers", "region", "returns", "region", 2, "nn_name")))))
                .isInstanceOf(MetaException.class)
                .hasMessage("Constraint name already exists: sales.customers.nn_name");
        assertThat(client.getForeignKeys(foreignKeysOf("sales", "returns"))).isEmpty();
    }

    @Test
    void renamesMoveConstraintsAndDropsEndForeignKeysOnBothSides() throws Exception {
        customersAndOrders();

        // Rename the parent, across databases: the child's key names it anew.
        Table customers = client.getTable("sales", "customers");
        customers.setDbName("crm");
        customers.setTableName("clients");
        client.alter_table("sales", "customers", customers);
        assertThat(client.getPrimaryKeys(primaryKeys("crm", "clients")))
                .extracting(SQLPrimaryKey::getTable_db, SQLPrimaryKey::getTable_name)
                .containsOnly(org.assertj.core.groups.Tuple.tuple("crm", "clients"));
        assertThat(client.getForeignKeys(foreignKeysOf("sales", "orders")))
                .extracting(SQLForeignKey::getPktable_db, SQLForeignKey::getPktable_name)
                .containsOnly(org.assertj.core.groups.Tuple.tuple("crm", "clients"));

        // Rename the child with the legacy call.
        Table orders = client.getTable("sales", "orders");
        orders.setTableName("purchases");
        raw.alter_table("sales", "orders", orders);
        assertThat(client.getForeignKeys(new ForeignKeysRequest("crm", "clients", null, null)))
                .extracting(SQLForeignKey::getFktable_name)
                .containsOnly("purchases");
        assertThat(client.getCheckConstraints(new CheckConstraintsRequest("hive", "sales", "purchases")))
                .hasSize(1);

        // Dropping the parent ends the key; a table made again under its name starts without it.
        client.dropTable("crm", "clients");
        assertThat(client.getForeignKeys(foreignKeysOf("sales", "purchases"))).isEmpty();
        client.createTableWithConstraints(
                recreated(),
                new ArrayList<>(
                        List.of(new SQLPrimaryKey("crm", "clients", "id", 1, "pk_customers", false, false, true))),
                null,
                null,
                null,
                null,
                null);
        assertThat(client.getForeignKeys(foreignKeysOf("sales", "purchases"))).isEmpty();
        // The stale half no longer holds its name: a new key may take it.
        client.addForeignKey(
                new ArrayList<>(List.of(fk("crm", "clients", "id", "purchases", "customer", 1, "fk_customer"))));
        assertThat(client.getForeignKeys(foreignKeysOf("sales", "purchases"))).hasSize(1);

        // Dropping the child ends it seen from the parent too.
        client.dropTable("sales", "purchases");
        assertThat(client.getForeignKeys(new ForeignKeysRequest("crm", "clients", null, null)))
                .isEmpty();
        // Dropping a key by its name from the parent's side removes it from the child as well.
        client.createTable(table("lines", columns("id", "bigint"), List.of(), Map.of()));
        client.addForeignKey(new ArrayList<>(List.of(fk("crm", "clients", "id", "lines", "id", 1, "fk_lines"))));
        client.dropConstraint("crm", "clients", "fk_lines");
        assertThat(client.getForeignKeys(foreignKeysOf("sales", "lines"))).isEmpty();
    }

    private static Table recreated() {
        Table table = table("clients", columns("id", "bigint", "region", "string"), List.of(), Map.of());
        table.setDbName("crm");
        return table;
    }

    @Test
    void aKeyWhoseParentLostItsPrimaryKeyIsNotListedAsHiveJoinsThem() throws Exception {
        customersAndOrders();
        client.dropConstraint("sales", "customers", "pk_customers");
        assertThat(client.getForeignKeys(foreignKeysOf("sales", "orders"))).isEmpty();
        // Still there: a primary key on the referenced columns brings it back, as in Hive.
        client.addPrimaryKey(new ArrayList<>(
                List.of(pk("customers", "id", 1, "pk_again"), pk("customers", "region", 2, "pk_again"))));
        assertThat(client.getForeignKeys(foreignKeysOf("sales", "orders")))
                .extracting(SQLForeignKey::getPk_name)
                .containsOnly("pk_again");
    }

    @Test
    void badNamesGetHivesAnswersOverRawThrift() throws Exception {
        customersAndOrders();
        String huge = "x".repeat(10_000);
        // Getters: a table that cannot exist has no constraints.
        assertThat(raw.get_primary_keys(new PrimaryKeysRequest("sales", huge)).getPrimaryKeys())
                .isEmpty();
        assertThat(raw.get_primary_keys(new PrimaryKeysRequest(huge, "orders")).getPrimaryKeys())
                .isEmpty();
        assertThat(raw.get_foreign_keys(new ForeignKeysRequest(null, null, "sales", ""))
                        .getForeignKeys())
                .isEmpty();
        assertThat(raw.get_check_constraints(new CheckConstraintsRequest("other_catalog", "sales", "orders"))
                        .getCheckConstraints())
                .isEmpty();
        assertThatThrownBy(() -> raw.get_foreign_keys(new ForeignKeysRequest(null, null, null, null)))
                .isInstanceOf(MetaException.class)
                .hasMessageStartingWith("get_foreign_keys needs the foreign table");
        // Adds naming no table, or an oversized one.
        assertThatThrownBy(() -> raw.add_primary_key(new org.apache.hadoop.hive.metastore.api.AddPrimaryKeyRequest(
                        new ArrayList<>(List.of(pk(huge, "id", 1, "pk_huge"))))))
                .isInstanceOf(MetaException.class)
                .hasMessage("Parent table not found: " + huge);
        assertThatThrownBy(() -> raw.add_foreign_key(new org.apache.hadoop.hive.metastore.api.AddForeignKeyRequest(
                        new ArrayList<>(List.of(fk("sales", "customers", "id", huge, "id", 1, "fk_huge"))))))
                .isInstanceOf(MetaException.class)
                .hasMessage("Child table not found: " + huge);
        assertThatThrownBy(() -> raw.drop_constraint(
                        new org.apache.hadoop.hive.metastore.api.DropConstraintRequest("sales", huge, "pk_customers")))
                .isInstanceOf(MetaException.class)
                .hasMessageStartingWith("The constraint: pk_customers does not exist for the associated table");
        // An empty list adds nothing, as in Hive.
        raw.add_primary_key(new org.apache.hadoop.hive.metastore.api.AddPrimaryKeyRequest(new ArrayList<>()));
        // Nothing changed, the server still serves.
        assertThat(client.getPrimaryKeys(primaryKeys("sales", "customers"))).hasSize(2);
        assertThat(client.getForeignKeys(foreignKeysOf("sales", "orders"))).hasSize(2);
    }

    @Test
    void aRefusedCreateLeavesNoTable() throws Exception {
        Table bad = table("bad", columns("id", "bigint"), List.of(), Map.of());
        assertThatThrownBy(() -> client.createTableWithConstraints(
                        bad, new ArrayList<>(List.of(pk("bad", "nope", 1, "pk_bad"))), null, null, null, null, null))
                .isInstanceOf(org.apache.hadoop.hive.metastore.api.InvalidObjectException.class)
                .hasMessage("Parent column not found: nope");
        assertThat(client.getAllTables("sales")).doesNotContain("bad");
        // The Hive 4 request form stores them too.
        org.apache.hadoop.hive.metastore.api.CreateTableRequest request =
                new org.apache.hadoop.hive.metastore.api.CreateTableRequest(
                        table("good", columns("id", "bigint"), List.of(), Map.of()));
        request.setPrimaryKeys(new ArrayList<>(List.of(pk("good", "id", 1, "pk_good"))));
        raw.create_table_req(request);
        assertThat(client.getPrimaryKeys(primaryKeys("sales", "good")))
                .extracting(SQLPrimaryKey::getPk_name)
                .containsExactly("pk_good");
    }
}
