package io.treecat.core.version;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import org.bson.BsonDocument;

/**
 * What one commit did to one path: the before- and after-images that precision locking evaluates
 * predicates on. A null image means the object was absent on that side.
 */
public record ObjectChange(
        ObjectPath path, ObjectKind beforeKind, BsonDocument before, ObjectKind afterKind, BsonDocument after) {
    public ObjectChange {
        requireNonNull(path, "path is null");
    }
}
