package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.apache.hadoop.hive.metastore.api.AddPartitionsRequest;
import org.apache.hadoop.hive.metastore.api.ColumnStatistics;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsDesc;
import org.apache.hadoop.hive.metastore.api.CreateTableRequest;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.GetTableRequest;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.SetPartitionsStatsRequest;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.TableMeta;
import org.junit.jupiter.api.Test;

/** Where a call's catalog is found in its arguments, and how an answer in another catalog is relabelled. */
class TestHmsCallCatalog {
    private final HmsCallCatalog catalogs = new HmsCallCatalog();
    private final HmsNames names = new HmsNames("warehouse");

    private String of(String method, Object... arguments) throws MetaException {
        return catalogs.of(method, arguments, names);
    }

    @Test
    void databaseArgumentsNameTheirCatalog() throws Exception {
        assertThat(of("get_all_tables", "@sales#db")).isEqualTo("sales");
        assertThat(of("get_all_tables", "@SALES#db")).isEqualTo("sales");
        assertThat(of("get_databases", "@sales#*")).isEqualTo("sales");
        assertThat(of("get_database", "@sales#db")).isEqualTo("sales");
        assertThat(of("get_table_meta", "@sales#*", "*", null)).isEqualTo("sales");
        assertThat(of("get_partition_by_name", "@sales#db", "t", "ds=@x#y")).isEqualTo("sales");
        // hive, the configured catalog's own name, or no catalog at all: the default (null).
        assertThat(of("get_all_tables", "@hive#db")).isNull();
        assertThat(of("get_all_tables", "@warehouse#db")).isNull();
        assertThat(of("get_all_tables", "db")).isNull();
        assertThat(of("get_all_tables", (Object) null)).isNull();
        // A string that is no database argument is never read as one.
        assertThat(of("partition_name_to_vals", "@sales#x")).isNull();
        assertThat(of("get_config_value", "@sales#x", "d")).isNull();
    }

    @Test
    void catalogFieldsOfRequestsAndTheirStructsNameTheirCatalog() throws Exception {
        GetTableRequest get = new GetTableRequest("db", "t");
        get.setCatName("sales");
        assertThat(of("get_table_req", get)).isEqualTo("sales");
        Database database = new Database();
        database.setName("db");
        database.setCatalogName("sales");
        assertThat(of("create_database", database)).isEqualTo("sales");
        Table table = new Table();
        table.setCatName("sales");
        assertThat(of("create_table_req", new CreateTableRequest(table))).isEqualTo("sales");
        Partition partition = new Partition();
        partition.setCatName("sales");
        assertThat(of("add_partitions", List.of(partition))).isEqualTo("sales");
        assertThat(of("add_partitions_req", new AddPartitionsRequest("db", "t", List.of(partition), false)))
                .isEqualTo("sales");
        ColumnStatisticsDesc desc = new ColumnStatisticsDesc(true, "db", "t");
        desc.setCatName("sales");
        ColumnStatistics statistics = new ColumnStatistics(desc, List.of());
        assertThat(of("set_aggr_stats_for", new SetPartitionsStatsRequest(List.of(statistics))))
                .isEqualTo("sales");
        assertThat(of("get_table_req", new GetTableRequest("db", "t"))).isNull();
    }

    @Test
    void aCallNamingTwoCatalogsIsRefused() {
        GetTableRequest get = new GetTableRequest("@hive#db", "t");
        get.setCatName("sales");
        assertThatThrownBy(() -> of("get_table_req", get))
                .isInstanceOf(MetaException.class)
                .hasMessage("A call acts in one catalog; this one names hive and sales");
    }

    @Test
    void answersInAnotherCatalogCarryItsName() {
        Table table = new Table();
        table.setCatName("hive");
        Partition partition = new Partition();
        partition.setCatName("hive");
        TableMeta meta = new TableMeta("db", "t", "EXTERNAL_TABLE");
        meta.setCatName("hive");
        Database database = new Database();
        database.setCatalogName("hive");

        HmsCallCatalog.relabel(List.of(table, partition), "sales");
        HmsCallCatalog.relabel(Map.of("m", meta), "sales");
        HmsCallCatalog.relabel(database, "sales");

        assertThat(table.getCatName()).isEqualTo("sales");
        assertThat(partition.getCatName()).isEqualTo("sales");
        assertThat(meta.getCatName()).isEqualTo("sales");
        assertThat(database.getCatalogName()).isEqualTo("sales");
    }
}
