package io.treecat.conformance.hive3;

import static io.treecat.conformance.hive3.Hive3Metastore.columns;
import static io.treecat.conformance.hive3.Hive3Metastore.database;
import static io.treecat.conformance.hive3.Hive3Metastore.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.TableType;
import org.apache.hadoop.hive.metastore.api.CheckConstraintsRequest;
import org.apache.hadoop.hive.metastore.api.DefaultConstraintsRequest;
import org.apache.hadoop.hive.metastore.api.ForeignKeysRequest;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NotNullConstraintsRequest;
import org.apache.hadoop.hive.metastore.api.PrimaryKeysRequest;
import org.apache.hadoop.hive.metastore.api.SQLCheckConstraint;
import org.apache.hadoop.hive.metastore.api.SQLDefaultConstraint;
import org.apache.hadoop.hive.metastore.api.SQLForeignKey;
import org.apache.hadoop.hive.metastore.api.SQLNotNullConstraint;
import org.apache.hadoop.hive.metastore.api.SQLPrimaryKey;
import org.apache.hadoop.hive.metastore.api.SQLUniqueConstraint;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.hadoop.hive.metastore.api.UniqueConstraintsRequest;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hive 3.1's client on the six constraint getters HiveServer2 and Impala call on every {@code DESCRIBE FORMATTED}
 * ({@code get_primary_keys}, {@code get_foreign_keys}, {@code get_unique_constraints},
 * {@code get_not_null_constraints}, {@code get_default_constraints}, {@code get_check_constraints}), the constraints
 * made by Hive 3.1's {@code create_table_with_constraints} and {@code add_*} calls. Hive 3.1's client fills a
 * request's {@code catName} when it is unset; the raw requests here leave it unset, as Hive 2-era clients do.
 */
class Hive3ConstraintCallsIT {
    private static final String DB = "h3_keys";

    @RegisterExtension
    static final Hive3Metastore hms = new Hive3Metastore();

    private static HiveMetaStoreClient client;
    private static ThriftHiveMetastore.Client raw;

    @BeforeAll
    static void customersAndOrders() throws Exception {
        client = hms.client();
        raw = hms.thrift();
        client.createDatabase(database(DB));
        client.createTable(table(DB, "plain", TableType.EXTERNAL_TABLE));

        Table customers = table(DB, "customers", TableType.MANAGED_TABLE);
        customers.getSd().setCols(columns("id", "bigint", "region", "string", "name", "string", "email", "string"));
        client.createTableWithConstraints(
                customers,
                new ArrayList<>(List.of(
                        new SQLPrimaryKey(DB, "customers", "id", 1, "pk_customers", false, false, true),
                        new SQLPrimaryKey(DB, "customers", "region", 2, "pk_customers", false, false, true))),
                null,
                new ArrayList<>(List.of(
                        new SQLUniqueConstraint(null, DB, "customers", "email", 1, "uk_email", false, false, true))),
                new ArrayList<>(List.of(
                        new SQLNotNullConstraint(null, DB, "customers", "name", "nn_name", false, false, true))),
                null,
                null);

        Table orders = table(DB, "orders", TableType.MANAGED_TABLE);
        orders.getSd().setCols(columns("id", "bigint", "customer", "bigint", "region", "string", "amount", "double"));
        client.createTableWithConstraints(
                orders,
                new ArrayList<>(List.of(new SQLPrimaryKey(DB, "orders", "id", 1, null, false, false, true))),
                new ArrayList<>(List.of(foreignKey("id", "customer", 1), foreignKey("region", "region", 2))),
                null,
                null,
                new ArrayList<>(List.of(new SQLDefaultConstraint(
                        null, DB, "orders", "amount", "0.0", "dc_amount", false, false, true))),
                new ArrayList<>(List.of(new SQLCheckConstraint(
                        null, DB, "orders", "amount", "amount >= 0", "ck_amount", false, false, true))));
    }

    private static SQLForeignKey foreignKey(String parentColumn, String column, int seq) {
        return new SQLForeignKey(
                DB,
                "customers",
                parentColumn,
                DB,
                "orders",
                column,
                seq,
                1,
                2,
                "fk_customer",
                null,
                false,
                false,
                true);
    }

    @Test
    void primaryKeysWithAndWithoutCatName() throws Exception {
        List<SQLPrimaryKey> keys = client.getPrimaryKeys(new PrimaryKeysRequest(DB, "customers"));
        assertThat(keys)
                .extracting(SQLPrimaryKey::getColumn_name, SQLPrimaryKey::getKey_seq, SQLPrimaryKey::getPk_name)
                .containsExactly(Tuple.tuple("id", 1, "pk_customers"), Tuple.tuple("region", 2, "pk_customers"));
        assertThat(keys.get(0).isRely_cstr()).isTrue();
        assertThat(keys.get(0).getCatName()).isEqualTo("hive");
        // No catName, as older clients send it: the default catalog.
        assertThat(raw.get_primary_keys(new PrimaryKeysRequest(DB, "customers")).getPrimaryKeys())
                .extracting(SQLPrimaryKey::getColumn_name)
                .containsExactly("id", "region");
        // A key made without a name gets one as Hive makes it.
        assertThat(client.getPrimaryKeys(new PrimaryKeysRequest(DB, "orders"))
                        .get(0)
                        .getPk_name())
                .matches("pk_\\d+_\\d+_0");
    }

    @Test
    void foreignKeysSeenFromTheChildAndFromTheParent() throws Exception {
        List<SQLForeignKey> fromChild = client.getForeignKeys(new ForeignKeysRequest(null, null, DB, "orders"));
        assertThat(fromChild)
                .extracting(
                        SQLForeignKey::getPktable_name,
                        SQLForeignKey::getPkcolumn_name,
                        SQLForeignKey::getFkcolumn_name,
                        SQLForeignKey::getKey_seq,
                        SQLForeignKey::getFk_name,
                        SQLForeignKey::getPk_name)
                .containsExactly(
                        Tuple.tuple("customers", "id", "customer", 1, "fk_customer", "pk_customers"),
                        Tuple.tuple("customers", "region", "region", 2, "fk_customer", "pk_customers"));
        assertThat(raw.get_foreign_keys(new ForeignKeysRequest(DB, "customers", DB, "orders"))
                        .getForeignKeys())
                .hasSize(2);
        assertThat(client.getForeignKeys(new ForeignKeysRequest(DB, "customers", null, null)))
                .extracting(SQLForeignKey::getFktable_name)
                .containsOnly("orders");
        assertThat(client.getForeignKeys(new ForeignKeysRequest(DB, "plain", null, null)))
                .isEmpty();
    }

    @Test
    void uniqueNotNullDefaultAndCheckConstraints() throws Exception {
        assertThat(client.getUniqueConstraints(new UniqueConstraintsRequest("hive", DB, "customers")))
                .extracting(SQLUniqueConstraint::getColumn_name, SQLUniqueConstraint::getUk_name)
                .containsExactly(Tuple.tuple("email", "uk_email"));
        assertThat(client.getNotNullConstraints(new NotNullConstraintsRequest("hive", DB, "customers")))
                .extracting(SQLNotNullConstraint::getColumn_name, SQLNotNullConstraint::getNn_name)
                .containsExactly(Tuple.tuple("name", "nn_name"));
        assertThat(client.getDefaultConstraints(new DefaultConstraintsRequest("hive", DB, "orders")))
                .extracting(SQLDefaultConstraint::getColumn_name, SQLDefaultConstraint::getDefault_value)
                .containsExactly(Tuple.tuple("amount", "0.0"));
        assertThat(client.getCheckConstraints(new CheckConstraintsRequest("hive", DB, "orders")))
                .extracting(SQLCheckConstraint::getDc_name, SQLCheckConstraint::getCheck_expression)
                .containsExactly(Tuple.tuple("ck_amount", "amount >= 0"));

        // Added afterwards through Hive 3.1's add calls.
        client.addNotNullConstraint(new ArrayList<>(List.of(
                new SQLNotNullConstraint("hive", DB, "orders", "customer", "nn_customer", false, false, true))));
        assertThat(client.getNotNullConstraints(new NotNullConstraintsRequest("hive", DB, "orders")))
                .extracting(SQLNotNullConstraint::getColumn_name)
                .containsExactly("customer");
        assertThatThrownBy(() -> client.addUniqueConstraint(new ArrayList<>(List.of(
                        new SQLUniqueConstraint("hive", DB, "orders", "nope", 1, "uk_nope", false, false, true)))))
                .isInstanceOf(MetaException.class);
        assertThat(client.getUniqueConstraints(new UniqueConstraintsRequest("hive", DB, "orders")))
                .isEmpty();
    }

    @Test
    void aTableWithoutConstraintsOrAnUnknownOneAnswersEmptyLists() throws Exception {
        for (String table : List.of("plain", "nope")) {
            assertThat(client.getPrimaryKeys(new PrimaryKeysRequest(DB, table))).isEmpty();
            assertThat(client.getForeignKeys(new ForeignKeysRequest(null, null, DB, table)))
                    .isEmpty();
            assertThat(client.getUniqueConstraints(new UniqueConstraintsRequest("hive", DB, table)))
                    .isEmpty();
            assertThat(client.getNotNullConstraints(new NotNullConstraintsRequest("hive", DB, table)))
                    .isEmpty();
            assertThat(client.getDefaultConstraints(new DefaultConstraintsRequest("hive", DB, table)))
                    .isEmpty();
            assertThat(client.getCheckConstraints(new CheckConstraintsRequest("hive", DB, table)))
                    .isEmpty();
        }
        assertThat(client.getPrimaryKeys(new PrimaryKeysRequest("h3_nodb", "nope")))
                .isEmpty();
    }
}
