package io.treecat.lakehouse.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Hive's rule for a new database name: ASCII letters, digits and '_', with Hive's own message. */
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
}
