package io.treecat.lakehouse.model;

import static java.util.Objects.requireNonNull;

import java.util.Set;
import org.bson.BsonDocument;

/**
 * An Iceberg view: {@code /<catalog>/<ns…>/<view>}, beside tables on the same level. Like a table, it
 * is a pointer to a metadata file plus the fields a reader needs without it.
 *
 * @param pointer the view's metadata file and its summary ({@code currentSnapshotId} holds the current version id)
 * @param others fields no interface declares, kept as they are
 */
public record ViewEntry(IcebergPointer pointer, BsonDocument others) implements LakeObject {
    private static final Set<String> DECLARED = Set.of(
            LakeKeys.OBJ_TYPE,
            LakeKeys.FORMAT_VERSION,
            LakeKeys.METADATA_LOCATION,
            LakeKeys.UUID,
            LakeKeys.CURRENT_VERSION_ID,
            LakeKeys.LOCATION,
            LakeKeys.PROPERTIES);

    public ViewEntry {
        requireNonNull(pointer, "pointer is null");
        others = requireNonNull(others, "others is null").clone();
    }

    public static ViewEntry of(IcebergPointer pointer) {
        return new ViewEntry(pointer, new BsonDocument());
    }

    public static ViewEntry decode(BsonDocument stored) {
        BsonDocument value = Fields.plain(stored);
        ObjectType type = ObjectType.VIEW;
        Fields.requireType(value, type);
        String metadataLocation = Fields.string(value, LakeKeys.METADATA_LOCATION, type);
        Integer formatVersion = Fields.int32(value, LakeKeys.FORMAT_VERSION, type);
        String uuid = Fields.string(value, LakeKeys.UUID, type);
        String location = Fields.string(value, LakeKeys.LOCATION, type);
        if (metadataLocation == null) {
            throw Fields.missing(type, LakeKeys.METADATA_LOCATION, "(a view is its metadata file)");
        }
        if (formatVersion == null) {
            throw Fields.missing(type, LakeKeys.FORMAT_VERSION, "for a view");
        }
        if (uuid == null) {
            throw Fields.missing(type, LakeKeys.UUID, "for a view");
        }
        if (location == null) {
            throw Fields.missing(type, LakeKeys.LOCATION, "for a view");
        }
        Integer versionId = Fields.int32(value, LakeKeys.CURRENT_VERSION_ID, type);
        return new ViewEntry(
                new IcebergPointer(
                        metadataLocation,
                        formatVersion,
                        uuid,
                        versionId == null ? null : versionId.longValue(),
                        location,
                        Fields.stringMap(value, LakeKeys.PROPERTIES, type)),
                Fields.others(value, DECLARED));
    }

    @Override
    public BsonDocument encode() {
        return Values.of(ObjectType.VIEW)
                .int32(LakeKeys.FORMAT_VERSION, pointer.formatVersion())
                .string(LakeKeys.METADATA_LOCATION, pointer.metadataLocation())
                .string(LakeKeys.UUID, pointer.uuid())
                .int32(
                        LakeKeys.CURRENT_VERSION_ID,
                        pointer.currentSnapshotId() == null
                                ? null
                                : pointer.currentSnapshotId().intValue())
                .string(LakeKeys.LOCATION, pointer.location())
                .stringMap(LakeKeys.PROPERTIES, pointer.properties())
                .with(others);
    }
}
