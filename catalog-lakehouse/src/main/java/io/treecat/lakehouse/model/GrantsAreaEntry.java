package io.treecat.lakehouse.model;

import org.bson.BsonDocument;

/**
 * {@code /.system/grants}: the grants' area. Its one field counts the changes to roles, role members and grants: every
 * such change updates it in the same commit, so an authorizer that cached the grants knows from one read whether they
 * are still current.
 *
 * @param generation how many changes roles and grants have had
 */
public record GrantsAreaEntry(long generation) implements LakeObject {
    public static GrantsAreaEntry decode(BsonDocument stored) {
        BsonDocument value = Fields.plain(stored);
        ObjectType type = ObjectType.GRANTS_AREA;
        Fields.requireType(value, type);
        Long generation = Fields.int64(value, LakeKeys.GENERATION, type);
        if (generation == null) {
            throw Fields.missing(type, LakeKeys.GENERATION, "for the grants' area");
        }
        return new GrantsAreaEntry(generation);
    }

    /** The next generation: what a change of roles or grants writes. */
    public GrantsAreaEntry next() {
        return new GrantsAreaEntry(generation + 1);
    }

    @Override
    public BsonDocument encode() {
        return Values.of(ObjectType.GRANTS_AREA)
                .int64(LakeKeys.GENERATION, generation)
                .with(new BsonDocument());
    }
}
