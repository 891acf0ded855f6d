package io.treecat.core.model;

import static java.util.Objects.requireNonNull;

import org.bson.BsonDocument;

/**
 * One object as read at some vid.
 *
 * @param path where it was found (for a shared leaf, the path it was read through)
 * @param kind inner or leaf
 * @param value its BSON value; may be a lazily parsed {@code RawBsonDocument}
 * @param version the vid of the write that produced this version of the object
 */
public record CatalogObject(ObjectPath path, ObjectKind kind, BsonDocument value, long version) {
    public CatalogObject {
        requireNonNull(path, "path is null");
        requireNonNull(kind, "kind is null");
        requireNonNull(value, "value is null");
    }

    public String id() {
        return path.id();
    }
}
