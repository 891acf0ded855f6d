package io.treecat.lakehouse.model;

import static java.util.Objects.requireNonNull;

import java.util.Set;
import org.bson.BsonDocument;

/**
 * A Hive permanent function: {@code /<catalog>/<db>/.functions/<fn>}. Its class, type and owner are
 * plain fields so path queries can read them; the whole Hive {@code Function} struct is kept,
 * Thrift-binary encoded, in {@link #hiveFunction()} (HMS-owned).
 *
 * @param className the implementing class
 * @param functionType Hive's function type name ({@code JAVA}); null when not given
 * @param owner the owner's name; null when not given
 * @param hiveFunction the Hive {@code Function} struct, Thrift-binary encoded; null if never written over HMS
 * @param others fields no interface declares, kept as they are
 */
public record FunctionEntry(
        String className, String functionType, String owner, byte[] hiveFunction, BsonDocument others)
        implements LakeObject {
    private static final Set<String> DECLARED = Set.of(
            LakeKeys.OBJ_TYPE,
            LakeKeys.FUNCTION_CLASS_NAME,
            LakeKeys.FUNCTION_TYPE,
            LakeKeys.OWNER,
            LakeKeys.HMS_FUNCTION);

    public FunctionEntry {
        requireNonNull(className, "className is null");
        hiveFunction = hiveFunction == null ? null : hiveFunction.clone();
        others = requireNonNull(others, "others is null").clone();
    }

    /** A function as the HMS interface writes it. */
    public static FunctionEntry hive(String className, String functionType, String owner, byte[] struct) {
        return new FunctionEntry(
                className, functionType, owner, requireNonNull(struct, "struct is null"), new BsonDocument());
    }

    public static FunctionEntry decode(BsonDocument stored) {
        BsonDocument value = Fields.plain(stored);
        ObjectType type = ObjectType.FUNCTION;
        Fields.requireType(value, type);
        String className = Fields.string(value, LakeKeys.FUNCTION_CLASS_NAME, type);
        if (className == null) {
            throw Fields.missing(type, LakeKeys.FUNCTION_CLASS_NAME, "for a function");
        }
        return new FunctionEntry(
                className,
                Fields.string(value, LakeKeys.FUNCTION_TYPE, type),
                Fields.string(value, LakeKeys.OWNER, type),
                Fields.binary(value, LakeKeys.HMS_FUNCTION, type),
                Fields.others(value, DECLARED));
    }

    @Override
    public BsonDocument encode() {
        return Values.of(ObjectType.FUNCTION)
                .string(LakeKeys.FUNCTION_CLASS_NAME, className)
                .string(LakeKeys.FUNCTION_TYPE, functionType)
                .string(LakeKeys.OWNER, owner)
                .binary(LakeKeys.HMS_FUNCTION, hiveFunction)
                .with(others);
    }

    /** The value of a database's function container ({@link ObjectType#FUNCTIONS}). */
    public static BsonDocument container() {
        return new BsonDocument(LakeKeys.OBJ_TYPE, ObjectType.FUNCTIONS.bson());
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof FunctionEntry entry && encode().equals(entry.encode());
    }

    @Override
    public int hashCode() {
        return encode().hashCode();
    }

    @Override
    public String toString() {
        return "FunctionEntry" + encode().toJson();
    }
}
