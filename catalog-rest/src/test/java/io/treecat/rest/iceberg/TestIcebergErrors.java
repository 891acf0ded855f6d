package io.treecat.rest.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.lakehouse.iceberg.IcebergNames;
import io.treecat.lakehouse.model.ObjectType;
import java.util.List;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.UnprocessableEntityException;
import org.junit.jupiter.api.Test;

/** The lake codes as Iceberg's exceptions, with the messages Iceberg's own catalogs give (the RCK checks several). */
class TestIcebergErrors {
    private static CatalogException taken(String wanted, String name, ObjectType existing) {
        return new CatalogException(ErrorCode.NAME_ALREADY_EXISTS, "taken")
                .with(wanted, name)
                .with(IcebergNames.EXISTING, existing.storedName());
    }

    @Test
    void aTakenNameSaysWhatWasAskedForAndWhatHoldsIt() {
        assertThat(IcebergErrors.translate(taken(IcebergNames.NAMESPACE, "a.b", ObjectType.NAMESPACE)))
                .isInstanceOf(AlreadyExistsException.class)
                .hasMessage("Namespace already exists: a.b");
        assertThat(IcebergErrors.translate(taken(IcebergNames.NAMESPACE, "a.b", ObjectType.TABLE)))
                .hasMessage("A table or view already has this name: a.b");
        assertThat(IcebergErrors.translate(taken(IcebergNames.TABLE, "a.t", ObjectType.VIEW)))
                .hasMessage("View with same name already exists: a.t");
        assertThat(IcebergErrors.translate(taken(IcebergNames.TABLE, "a.t", ObjectType.TABLE)))
                .hasMessage("Table already exists: a.t");
        assertThat(IcebergErrors.translate(taken(IcebergNames.VIEW, "a.v", ObjectType.TABLE)))
                .hasMessage("Table with same name already exists: a.v");
        assertThat(IcebergErrors.translate(taken(IcebergNames.VIEW, "a.v", ObjectType.NAMESPACE)))
                .hasMessage("A namespace already has this name: a.v");
        assertThat(IcebergErrors.translate(
                        taken(IcebergNames.TABLE, "a.u", ObjectType.VIEW).with(IcebergNames.SOURCE, "a.t")))
                .hasMessage("Cannot rename a.t to a.u. View already exists");
    }

    @Test
    void lostRacesAreIcebergsRetryableConflictAndAnUnknownOutcomeStaysUnknown() {
        assertThat(IcebergErrors.translate(new CatalogException(ErrorCode.COMMIT_CONFLICT, "x changed")))
                .isInstanceOf(CommitFailedException.class)
                .hasMessage("Commit conflict, retry: x changed");
        assertThat(IcebergErrors.translate(new CatalogException(ErrorCode.COMMIT_STATE_UNKNOWN, "lost")))
                .isInstanceOf(CommitStateUnknownException.class);
        assertThat(IcebergErrors.translate(
                        new CatalogException(ErrorCode.NAMESPACE_NOT_FOUND, "gone").with(IcebergNames.NAMESPACE, "a")))
                .isInstanceOf(NoSuchNamespaceException.class)
                .hasMessage("Namespace does not exist: a");
        assertThat(IcebergErrors.translate(new CatalogException(ErrorCode.VID_NOT_FOUND, "no vid")))
                .isNull();
    }

    @Test
    void aFullCommitQueueIs429WithRetryAfterWhichIcebergsClientRetriesForACommitToo() {
        CatalogException full = new CatalogException(ErrorCode.COMMIT_QUEUE_FULL, "Too many commits are waiting")
                .with("table", "db.t")
                .with("limit", 256)
                .with("configKey", "iceberg.max-queued-commits-per-table");
        // Not 503: on a commit route Iceberg's client reads every 5xx as an unknown outcome.
        assertThat(IcebergErrors.toIceberg(full).getStatus()).isEqualTo(429);
        assertThat(IcebergErrors.toIceberg(full).getHeaderString("Retry-After")).isEqualTo("1");
        assertThat((String) IcebergErrors.toIceberg(full).getEntity())
                .contains("\"type\":\"TooManyRequestsException\"")
                .contains("iceberg.max-queued-commits-per-table");
        // Other exhausted limits stay 503.
        CatalogException subscribers = new CatalogException(ErrorCode.SUBSCRIBER_LIMIT_REACHED, "Too many subscribers");
        assertThat(IcebergErrors.toIceberg(subscribers).getStatus()).isEqualTo(503);
    }

    @Test
    void aRequestThatContradictsItselfIs422() {
        // Found by TestIcebergRequestsFuzzing: a namespace property both set and removed answered 500.
        UnprocessableEntityException contradiction = new UnprocessableEntityException(
                "Invalid namespace update, cannot simultaneously set and remove keys: %s", List.of("a"));
        assertThat(IcebergErrors.toIceberg(contradiction).getStatus()).isEqualTo(422);
        assertThat((String) IcebergErrors.toIceberg(contradiction).getEntity())
                .contains("\"type\":\"UnprocessableEntityException\"")
                .contains("cannot simultaneously set and remove keys: [a]");
    }
}
