package io.treecat.lakehouse.iceberg;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.iceberg.MetadataUpdate;
import org.apache.iceberg.UpdateRequirement;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * A change to one table's (or one view's) metadata: the requirements its base must meet and the
 * updates applied to it, as Iceberg's own {@code TableOperations.commit} takes them. A protocol
 * builds it from its request (REST's {@code UpdateTableRequest}, also the form of a view's replace);
 * the lakehouse checks the requirements against the current metadata in the commit's transaction.
 */
public record TableChange(
        TableIdentifier identifier, List<UpdateRequirement> requirements, List<MetadataUpdate> updates) {
    public TableChange {
        requireNonNull(identifier, "identifier is null");
        requirements = List.copyOf(requireNonNull(requirements, "requirements is null"));
        updates = List.copyOf(requireNonNull(updates, "updates is null"));
    }
}
