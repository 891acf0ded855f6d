package io.treecat.lakehouse.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Hive's rules for new names, with Hive's own messages: databases (ASCII letters, digits and '_'), tables (those and
 * Hive 4's special characters, then the lake's rule), columns and partition keys.
 */
class TestHiveNames {
    @Test
    void keepsWhatHiveKeeps() {
        for (String name : List.of("default", "sales_2024", "_tmp", "Sales", "9")) {
            assertThatCode(() -> HiveNames.checkDatabase(name)).as(name).doesNotThrowAnyException();
        }
    }

    @Test
    void refusesWhatHiveRefusesWithHivesMessage() {
        for (String name : List.of("..", "x/y", "a.b", "a-b", "a b", "données", "c\u001Fd")) {
            assertThatThrownBy(() -> HiveNames.checkDatabase(name))
                    .as(name)
                    .isInstanceOfSatisfying(CatalogException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_NAME);
                        assertThat(e.context()).containsEntry("kind", "database");
                    })
                    .hasMessageEndingWith(" is not a valid database name");
        }
        assertThatThrownBy(() -> HiveNames.checkDatabase("x/y")).hasMessage("x/y is not a valid database name");
        assertThatThrownBy(() -> HiveNames.checkDatabase("c\u001Fd"))
                .hasMessage("c\\u001Fd is not a valid database name");
        assertThatThrownBy(() -> HiveNames.checkDatabase("")).hasMessage(" is not a valid database name");
    }

    @Test
    void tablesTakeHive4sSpecialCharacters() {
        for (String name :
                List.of("t", "Sales_2024", "a.b", "bad name", "bad-name", "a/b", "50%", "x=y", "a:b", "`q`")) {
            assertThatCode(() -> HiveNames.checkTable(name)).as(name).doesNotThrowAnyException();
        }
    }

    @Test
    void tablesHiveRefusesGetHivesMessage() {
        for (String name : List.of("", "données", "a\\b", "tab\tle", "nul\u0000", "\uD800x", "日本")) {
            assertThatThrownBy(() -> HiveNames.checkTable(name))
                    .as(name)
                    .isInstanceOfSatisfying(CatalogException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_NAME);
                        assertThat(e.context()).containsEntry("kind", "table");
                    })
                    .hasMessageEndingWith(" is not a valid object name");
        }
        assertThatThrownBy(() -> HiveNames.checkTable("a\\b")).hasMessage("a\\b is not a valid object name");
        assertThatThrownBy(() -> HiveNames.checkTable("tab\tle")).hasMessage("tab\\u0009le is not a valid object name");
        assertThatThrownBy(() -> HiveNames.checkTable(null)).hasMessage(" is not a valid object name");
    }

    @Test
    void tablesTheLakeRefusesThoughHiveTakesThem() {
        // Hive takes '..' (its default location encodes the dots); the lake keeps '.' and '..' out of every path.
        for (String name : List.of(".", "..", "../x", "a/../b", "x/.")) {
            assertThatThrownBy(() -> HiveNames.checkTable(name))
                    .as(name)
                    .isInstanceOf(CatalogException.class)
                    .hasMessage("Invalid table name: it is '.' or '..', or has such a part between slashes");
        }
        assertThatThrownBy(() -> HiveNames.checkTable("t".repeat(256)))
                .hasMessage("Invalid table name: it is longer than 255 bytes of UTF-8");
    }

    @Test
    void columnsAndPartitionKeysHiveTakes() {
        assertThatCode(() -> HiveNames.checkColumns(
                        List.of(
                                column("id", "bigint"),
                                column("Name With Spaces", "string"),
                                column("a=b", "decimal(10,2)"),
                                column("m", "map<string,array<int>>"),
                                column("s", "struct<a:int>"),
                                column("d", "<derived from deserializer>")),
                        List.of(column("ds", "string"), column("hr_1", "int"))))
                .doesNotThrowAnyException();
        assertThatCode(() -> HiveNames.checkColumns(null, null)).doesNotThrowAnyException();
    }

    @Test
    void columnsHiveRefuses() {
        assertRefused(
                List.of(column("id", "int"), column("ID", "string")),
                List.of(),
                "column",
                "Invalid column name: ID is named twice");
        assertRefused(List.of(column("", "int")), List.of(), "column", "Invalid column name: it is empty");
        assertRefused(List.of(column(null, "int")), List.of(), "column", "Invalid column name: it is empty");
        assertRefused(List.of(column("c", "no such type(")), List.of(), "column", "Invalid column type: no such type(");
        // Hive's types are lower case, and its check is case-sensitive.
        assertRefused(List.of(column("c", "INT")), List.of(), "column", "Invalid column type: INT");
        assertRefused(List.of(column("c", "")), List.of(), "column", "Invalid column type: it is empty");
        assertRefused(List.of(column("c", null)), List.of(), "column", "Invalid column type: it is empty");
    }

    @Test
    void partitionKeysThatWouldNotReadBackAreRefused() {
        List<HiveNames.Column> columns = List.of(column("id", "bigint"));
        assertRefused(
                columns,
                List.of(column("ds", "string"), column("DS", "string")),
                "partition key",
                "Invalid partition column name: DS is named twice");
        assertRefused(
                columns,
                List.of(column("Id", "string")),
                "partition key",
                "Invalid partition column name: Id is also a column of the table");
        assertRefused(
                columns, List.of(column("", "string")), "partition key", "Invalid partition column name: it is empty");
        assertRefused(
                columns, List.of(column("k", "nosuch")), "partition key", "Invalid partition column type: nosuch");
        for (String key : List.of("a=b", "a/b", "50%", "a:b", "x\\y", "q?", "c\u001F", "n\u0000")) {
            char first = key.chars()
                    .filter(c -> "=/%:\\?".indexOf(c) >= 0 || c < 0x20)
                    .mapToObj(c -> (char) c)
                    .findFirst()
                    .orElseThrow();
            assertRefused(
                    columns,
                    List.of(column(key, "string")),
                    "partition key",
                    "Invalid partition column name: " + io.treecat.lakehouse.model.LakeNames.printable(key) + " holds '"
                            + io.treecat.lakehouse.model.LakeNames.printable(String.valueOf(first))
                            + "', which a partition name would have to escape");
        }
    }

    @Test
    void aNameGivenTwiceSaysSoInItsContext() {
        // Hive answers a name given twice with another exception than the rest: adapters read it here.
        assertThatThrownBy(() -> HiveNames.checkColumns(List.of(column("a", "int"), column("A", "int")), null))
                .isInstanceOfSatisfying(
                        CatalogException.class,
                        e -> assertThat(e.context()).containsEntry(HiveNames.PROBLEM, HiveNames.NAMED_TWICE));
        assertThatThrownBy(() -> HiveNames.checkColumns(List.of(), List.of(column("a", "int"), column("a", "int"))))
                .isInstanceOfSatisfying(
                        CatalogException.class,
                        e -> assertThat(e.context()).containsEntry(HiveNames.PROBLEM, HiveNames.NAMED_TWICE));
        assertThatThrownBy(() -> HiveNames.checkColumns(List.of(column("c", "INT")), null))
                .isInstanceOfSatisfying(
                        CatalogException.class, e -> assertThat(e.context()).doesNotContainKey(HiveNames.PROBLEM));
    }

    private static HiveNames.Column column(String name, String type) {
        return new HiveNames.Column(name, type);
    }

    private static void assertRefused(
            List<HiveNames.Column> columns, List<HiveNames.Column> keys, String kind, String message) {
        assertThatThrownBy(() -> HiveNames.checkColumns(columns, keys))
                .as(message)
                .isInstanceOfSatisfying(CatalogException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_NAME);
                    assertThat(e.context()).containsEntry("kind", kind);
                })
                .hasMessage(message);
    }
}
