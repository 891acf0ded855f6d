package io.treecat.lakehouse.model;

import static java.util.Objects.requireNonNull;

import java.util.Set;
import org.bson.BsonDocument;

/**
 * One role, {@code /.system/roles/<name>}: what grants go to and principals hold. Its members are its children
 * ({@link RoleMemberEntry}), so adding a member does not rewrite the role.
 *
 * @param name the role's name, also its id
 * @param created when it was created, ms since the epoch
 * @param others fields no interface declares, kept as they are
 */
public record RoleEntry(String name, long created, BsonDocument others) implements LakeObject {
    private static final Set<String> DECLARED = Set.of(LakeKeys.OBJ_TYPE, LakeKeys.ROLE_NAME, LakeKeys.CREATED);

    public RoleEntry {
        requireNonNull(name, "name is null");
        others = requireNonNull(others, "others is null").clone();
    }

    public static RoleEntry of(String name, long created) {
        return new RoleEntry(name, created, new BsonDocument());
    }

    public static RoleEntry decode(BsonDocument stored) {
        BsonDocument value = Fields.plain(stored);
        ObjectType type = ObjectType.ROLE;
        Fields.requireType(value, type);
        String name = Fields.string(value, LakeKeys.ROLE_NAME, type);
        if (name == null) {
            throw Fields.missing(type, LakeKeys.ROLE_NAME, "for a role");
        }
        Long created = Fields.int64(value, LakeKeys.CREATED, type);
        if (created == null) {
            throw Fields.missing(type, LakeKeys.CREATED, "for a role");
        }
        return new RoleEntry(name, created, Fields.others(value, DECLARED));
    }

    @Override
    public BsonDocument encode() {
        return Values.of(ObjectType.ROLE)
                .string(LakeKeys.ROLE_NAME, name)
                .int64(LakeKeys.CREATED, created)
                .with(others);
    }
}
