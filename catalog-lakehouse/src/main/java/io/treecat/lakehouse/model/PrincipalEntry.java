package io.treecat.lakehouse.model;

import static java.util.Objects.requireNonNull;

import java.util.Set;
import org.bson.BsonDocument;

/**
 * One built-in principal, {@code /.system/principals/<client id>}: who a client that holds its secret is. The secret
 * itself is never stored, only its bcrypt hash.
 *
 * @param name the principal's name, what its tokens and the commit log say
 * @param clientId the id a client sends with the secret ({@code credential=<client id>:<secret>})
 * @param secretHash the secret's bcrypt hash (OpenBSD form, {@code $2y$…}), salt and cost included
 * @param created when the principal was created, ms since the epoch
 * @param secretSet when the secret was last set (created or rotated), ms since the epoch
 * @param others fields no interface declares, kept as they are
 */
public record PrincipalEntry(
        String name, String clientId, String secretHash, long created, long secretSet, BsonDocument others)
        implements LakeObject {
    private static final Set<String> DECLARED = Set.of(
            LakeKeys.OBJ_TYPE,
            LakeKeys.PRINCIPAL_NAME,
            LakeKeys.CLIENT_ID,
            LakeKeys.SECRET_HASH,
            LakeKeys.CREATED,
            LakeKeys.SECRET_SET);

    public PrincipalEntry {
        requireNonNull(name, "name is null");
        requireNonNull(clientId, "clientId is null");
        requireNonNull(secretHash, "secretHash is null");
        others = requireNonNull(others, "others is null").clone();
    }

    public static PrincipalEntry of(String name, String clientId, String secretHash, long created) {
        return new PrincipalEntry(name, clientId, secretHash, created, created, new BsonDocument());
    }

    /** The same principal with a new secret's hash, set at {@code when}. */
    public PrincipalEntry withSecretHash(String newHash, long when) {
        return new PrincipalEntry(name, clientId, newHash, created, when, others);
    }

    public static PrincipalEntry decode(BsonDocument stored) {
        BsonDocument value = Fields.plain(stored);
        ObjectType type = ObjectType.PRINCIPAL;
        Fields.requireType(value, type);
        String name = Fields.string(value, LakeKeys.PRINCIPAL_NAME, type);
        if (name == null) {
            throw Fields.missing(type, LakeKeys.PRINCIPAL_NAME, "for a principal");
        }
        String clientId = Fields.string(value, LakeKeys.CLIENT_ID, type);
        if (clientId == null) {
            throw Fields.missing(type, LakeKeys.CLIENT_ID, "for a principal");
        }
        String hash = Fields.string(value, LakeKeys.SECRET_HASH, type);
        if (hash == null) {
            throw Fields.missing(type, LakeKeys.SECRET_HASH, "for a principal");
        }
        Long created = Fields.int64(value, LakeKeys.CREATED, type);
        if (created == null) {
            throw Fields.missing(type, LakeKeys.CREATED, "for a principal");
        }
        Long secretSet = Fields.int64(value, LakeKeys.SECRET_SET, type);
        return new PrincipalEntry(
                name, clientId, hash, created, secretSet == null ? created : secretSet, Fields.others(value, DECLARED));
    }

    @Override
    public BsonDocument encode() {
        return Values.of(ObjectType.PRINCIPAL)
                .string(LakeKeys.PRINCIPAL_NAME, name)
                .string(LakeKeys.CLIENT_ID, clientId)
                .string(LakeKeys.SECRET_HASH, secretHash)
                .int64(LakeKeys.CREATED, created)
                .int64(LakeKeys.SECRET_SET, secretSet)
                .with(others);
    }

    /** Never the hash: a principal as logs and answers may show it. */
    @Override
    public String toString() {
        return "PrincipalEntry[name=" + name + ", clientId=" + clientId + ", created=" + created + "]";
    }
}
