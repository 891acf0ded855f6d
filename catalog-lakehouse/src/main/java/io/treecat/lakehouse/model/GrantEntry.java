package io.treecat.lakehouse.model;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.ObjectPath;
import java.util.Set;
import org.bson.BsonDocument;

/**
 * One grant, {@code /.system/grants/<id>}: {@code privilege} on the object at {@code on} (and, inherited, everything
 * below it) to a role or a principal. The id is derived from the four fields, so granting twice is one grant and a
 * revoke finds it without a scan.
 *
 * @param granteeKind {@code role} or {@code principal}
 * @param grantee the role's or principal's name
 * @param privilege the privilege's name (the auth package's {@code Privilege})
 * @param on the object's path
 * @param created when it was granted, ms since the epoch
 * @param others fields no interface declares, kept as they are
 */
public record GrantEntry(
        String granteeKind, String grantee, String privilege, ObjectPath on, long created, BsonDocument others)
        implements LakeObject {
    public static final String ROLE = "role";
    public static final String PRINCIPAL = "principal";

    private static final Set<String> DECLARED = Set.of(
            LakeKeys.OBJ_TYPE,
            LakeKeys.GRANTEE_KIND,
            LakeKeys.GRANTEE,
            LakeKeys.PRIVILEGE,
            LakeKeys.GRANTED_ON,
            LakeKeys.CREATED);

    public GrantEntry {
        requireNonNull(granteeKind, "granteeKind is null");
        requireNonNull(grantee, "grantee is null");
        requireNonNull(privilege, "privilege is null");
        requireNonNull(on, "on is null");
        others = requireNonNull(others, "others is null").clone();
    }

    public static GrantEntry of(String granteeKind, String grantee, String privilege, ObjectPath on, long created) {
        return new GrantEntry(granteeKind, grantee, privilege, on, created, new BsonDocument());
    }

    public static GrantEntry decode(BsonDocument stored) {
        BsonDocument value = Fields.plain(stored);
        ObjectType type = ObjectType.GRANT;
        Fields.requireType(value, type);
        String kind = Fields.string(value, LakeKeys.GRANTEE_KIND, type);
        if (!ROLE.equals(kind) && !PRINCIPAL.equals(kind)) {
            throw Fields.missing(type, LakeKeys.GRANTEE_KIND, "(role or principal) for a grant");
        }
        String grantee = Fields.string(value, LakeKeys.GRANTEE, type);
        if (grantee == null) {
            throw Fields.missing(type, LakeKeys.GRANTEE, "for a grant");
        }
        String privilege = Fields.string(value, LakeKeys.PRIVILEGE, type);
        if (privilege == null) {
            throw Fields.missing(type, LakeKeys.PRIVILEGE, "for a grant");
        }
        String on = Fields.string(value, LakeKeys.GRANTED_ON, type);
        if (on == null) {
            throw Fields.missing(type, LakeKeys.GRANTED_ON, "for a grant");
        }
        Long created = Fields.int64(value, LakeKeys.CREATED, type);
        return new GrantEntry(
                kind,
                grantee,
                privilege,
                ObjectPath.parse(on),
                created == null ? 0 : created,
                Fields.others(value, DECLARED));
    }

    @Override
    public BsonDocument encode() {
        return Values.of(ObjectType.GRANT)
                .string(LakeKeys.GRANTEE_KIND, granteeKind)
                .string(LakeKeys.GRANTEE, grantee)
                .string(LakeKeys.PRIVILEGE, privilege)
                .string(LakeKeys.GRANTED_ON, on.toString())
                .int64(LakeKeys.CREATED, created)
                .with(others);
    }
}
