package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.lakehouse.auth.Principal;
import java.util.Set;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.PrincipalType;
import org.apache.hadoop.hive.metastore.api.Role;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * With grants in force and the anonymous principal (the HMS port's, until it authenticates) not an admin, every
 * privilege and role call is refused by the one check, {@code MANAGE_GRANTS}, naming it; nothing is written and the
 * connection keeps serving.
 */
final class TestHmsPrivilegeCallsRefused {
    @RegisterExtension
    final HmsTestServer hms = HmsTestServer.withGrants(Set.of("root"));

    @Test
    void withoutManageGrantsEveryCallIsRefusedAndNothingChanges() throws Exception {
        ThriftHiveMetastore.Client raw = hms.client();
        long before = hms.catalog().lastVid();
        String denied = "Permission denied {privilege=MANAGE_GRANTS, object=/}";
        assertThatThrownBy(() -> raw.create_role(new Role("analysts", 0, null)))
                .isInstanceOf(MetaException.class)
                .hasMessage(denied);
        assertThatThrownBy(raw::get_role_names)
                .isInstanceOf(MetaException.class)
                .hasMessage(denied);
        assertThatThrownBy(
                        () -> raw.grant_role("admin", "anonymous", PrincipalType.USER, "x", PrincipalType.USER, false))
                .isInstanceOf(MetaException.class)
                .hasMessage(denied);
        assertThatThrownBy(() -> raw.grant_privileges(TestHmsPrivilegeCalls.bag(
                        TestHmsPrivilegeCalls.global(), Principal.ANONYMOUS.name(), PrincipalType.USER, "ALL")))
                .isInstanceOf(MetaException.class)
                .hasMessage(denied);
        assertThatThrownBy(() -> raw.list_privileges(null, null, TestHmsPrivilegeCalls.global()))
                .isInstanceOf(MetaException.class)
                .hasMessage(denied);
        assertThat(hms.catalog().lastVid()).isEqualTo(before);
        assertThat(raw.getStatus()).isNotNull();
    }
}
