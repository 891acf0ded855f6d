package io.treecat.lakehouse.iceberg;

import java.util.List;
import org.apache.iceberg.MetadataUpdate;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.exceptions.ValidationException;

/**
 * A commit's updates applied to a table's metadata, in memory: the step of a table commit
 * ({@link TableCommits}) that depends on nothing but the client's request and the table's metadata.
 * Public for the fuzz tests that feed it hostile requests.
 */
public final class TableUpdates {
    private TableUpdates() {}

    /**
     * Applies {@code updates} to {@code builder} and builds the new metadata. A client's update that
     * Iceberg refuses is Iceberg's {@link ValidationException} or {@link IllegalArgumentException}
     * (400). Iceberg also refuses some with UnsupportedOperationException (a transform that does not
     * apply to its column's type in a new spec or sort order: {@code truncate} of a timestamp; a view
     * update sent for a table) or IllegalStateException (a schema with a type the table's format
     * version does not have); these are the client's mistake too, a ValidationException here.
     * Iceberg's builder also takes the id of a {@code set-default-spec} or {@code
     * set-default-sort-order} without checking it, and {@code build()} then fails on the missing spec
     * or order with a NullPointerException: that too is the client naming an id the table does not
     * have, so it is a ValidationException here, not a server failure.
     */
    public static TableMetadata apply(TableMetadata.Builder builder, List<MetadataUpdate> updates) {
        for (MetadataUpdate update : updates) {
            try {
                update.applyTo(builder);
            } catch (UnsupportedOperationException | IllegalStateException e) {
                throw new ValidationException(
                        e, "Cannot apply update %s: %s", update.getClass().getSimpleName(), e.getMessage());
            }
        }
        try {
            return builder.build();
        } catch (NullPointerException e) {
            throw new ValidationException(
                    e, "Cannot commit: an update sets a default partition spec or sort order the table does not have");
        }
    }
}
