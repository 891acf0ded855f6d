package io.treecat.lakehouse.model;

import static java.util.Objects.requireNonNull;

import java.util.Set;
import org.bson.BsonDocument;

/**
 * One principal holding a role, {@code /.system/roles/<role>/<principal>}. The principal is named, not referenced:
 * an identity provider's principals are not stored, and a built-in principal deleted and made again under the same
 * name holds the role again.
 *
 * @param principal the principal's name, also its id
 * @param created when it was assigned, ms since the epoch
 * @param others fields no interface declares, kept as they are
 */
public record RoleMemberEntry(String principal, long created, BsonDocument others) implements LakeObject {
    private static final Set<String> DECLARED = Set.of(LakeKeys.OBJ_TYPE, LakeKeys.MEMBER, LakeKeys.CREATED);

    public RoleMemberEntry {
        requireNonNull(principal, "principal is null");
        others = requireNonNull(others, "others is null").clone();
    }

    public static RoleMemberEntry of(String principal, long created) {
        return new RoleMemberEntry(principal, created, new BsonDocument());
    }

    public static RoleMemberEntry decode(BsonDocument stored) {
        BsonDocument value = Fields.plain(stored);
        ObjectType type = ObjectType.ROLE_MEMBER;
        Fields.requireType(value, type);
        String principal = Fields.string(value, LakeKeys.MEMBER, type);
        if (principal == null) {
            throw Fields.missing(type, LakeKeys.MEMBER, "for a role member");
        }
        Long created = Fields.int64(value, LakeKeys.CREATED, type);
        return new RoleMemberEntry(principal, created == null ? 0 : created, Fields.others(value, DECLARED));
    }

    @Override
    public BsonDocument encode() {
        return Values.of(ObjectType.ROLE_MEMBER)
                .string(LakeKeys.MEMBER, principal)
                .int64(LakeKeys.CREATED, created)
                .with(others);
    }
}
