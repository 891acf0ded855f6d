package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.TApplicationException;
import org.junit.jupiter.api.Test;

/** The dispatcher serves each Iface call from the one area that has it. */
class TestHmsDispatch {
    /** An area serving two calls, one of which fails. */
    static final class Names {
        public String getName() {
            return "names";
        }

        public List<String> get_all_databases() throws MetaException {
            throw new IllegalStateException("boom");
        }

        /** Not an Iface signature (the parameter types differ): not served. */
        public List<String> get_databases(int pattern) {
            return List.of();
        }
    }

    /** Serves getName too. */
    static final class OtherNames {
        public String getName() {
            return "other";
        }
    }

    /** Serves a call only through a static method: not served. */
    static final class StaticOnly {
        public static String getVersion() {
            return "1";
        }
    }

    @Test
    void aCallTwoAreasServeIsRefusedAtStart() {
        assertThatThrownBy(() -> HmsDispatch.implementations(List.of(Names.class, OtherNames.class)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("HMS call getName is served by more than one area: [Names, OtherNames]");
        assertThatThrownBy(() -> HmsDispatch.iface(List.of(new Names(), new OtherNames())))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> HmsDispatch.iface(List.of(new Names(), new Names())))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("Two HMS call areas of one class: Names");
    }

    @Test
    void onlyPublicInstanceMethodsWithTheIfaceSignatureAreServed() {
        assertThat(HmsDispatch.implementations(List.of(Names.class, StaticOnly.class))
                        .keySet())
                .containsExactly("getName", "get_all_databases");
    }

    @Test
    void eachCallGoesToItsAreaAndFailuresAreMappedOnce() throws Exception {
        ThriftHiveMetastore.Iface iface = HmsDispatch.iface(List.of(new Names(), new StaticOnly()));
        assertThat(iface.getName()).isEqualTo("names");
        // A failure the call does not declare becomes the MetaException it does.
        assertThatThrownBy(iface::get_all_databases)
                .isInstanceOf(MetaException.class)
                .hasMessageStartingWith("Internal error: ");
        assertThatThrownBy(() -> iface.get_database("db"))
                .isInstanceOfSatisfying(
                        TApplicationException.class,
                        e -> assertThat(e.getType()).isEqualTo(TApplicationException.UNKNOWN_METHOD));
    }

    @Test
    void theServerAreasServeEveryCallOnce() {
        // The server's own areas: building the map would throw on a duplicate.
        assertThat(HmsDispatch.implementations(TreeCatHmsServer.AREAS))
                .containsKeys(
                        "getName",
                        "create_database",
                        "get_table_req",
                        "add_partitions_req",
                        "update_table_column_statistics",
                        "lock",
                        "create_function");
        assertThat(TreeCatHmsServer.servedCalls())
                .doesNotContain("get_partitions_by_expr")
                .contains("get_table");
    }

    @Test
    void aLakeCodeMapsToHivesAnswer() {
        var mismatch = new io.treecat.core.error.CatalogException(
                        io.treecat.core.error.ErrorCode.METADATA_LOCATION_MISMATCH, "moved")
                .with("expected", "v1")
                .with("actual", "v2");
        assertThat(HmsErrors.map("alter_table_req", mismatch))
                .isInstanceOf(MetaException.class)
                .hasMessage(
                        "The table has been modified. The parameter value for key 'metadata_location' is 'v2'. The expected was value was 'v1'");
        var missing = new io.treecat.core.error.CatalogException(
                io.treecat.core.error.ErrorCode.NAMESPACE_NOT_FOUND, "Namespace does not exist: db");
        assertThat(HmsErrors.map("get_database", missing)).isInstanceOf(NoSuchObjectException.class);
    }
}
