package io.treecat.core.query.tree;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import java.util.List;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonValue;

/** One side of a comparison: a field of the object, or a constant. */
public sealed interface Operand permits Operand.FieldRef, Operand.Literal {
    /**
     * A field path: {@code a.b.c} walks nested documents of the object's value. The single name
     * {@code obj_id} is the object's own id instead.
     */
    record FieldRef(List<String> names) implements Operand {
        public static final String OBJECT_ID = "obj_id";

        public FieldRef {
            requireNonNull(names, "names is null");
            names = ImmutableList.copyOf(names);
            if (names.isEmpty()) {
                throw new IllegalArgumentException("a field path has at least one name");
            }
            for (String name : names) {
                if (name.isEmpty()) {
                    throw new IllegalArgumentException("a field name is not empty");
                }
            }
        }

        public static FieldRef of(String... names) {
            return new FieldRef(List.of(names));
        }

        public static FieldRef objectId() {
            return of(OBJECT_ID);
        }

        /** True for the object's id, which needs no read of the value. */
        public boolean isObjectId() {
            return names.size() == 1 && names.get(0).equals(OBJECT_ID);
        }

        @Override
        public String toString() {
            StringBuilder out = new StringBuilder();
            for (String name : names) {
                if (out.length() > 0) {
                    out.append('.');
                }
                out.append(QueryText.fieldName(name));
            }
            return out.toString();
        }
    }

    /**
     * A constant of one of the types the grammar can write: string, int32, int64, double (finite),
     * boolean or null. An int64 that fits in 32 bits is stored as int32, as the parser reads it, so
     * that a literal equals the parse of its own text.
     */
    record Literal(BsonValue value) implements Operand {
        public Literal {
            requireNonNull(value, "value is null");
            switch (value.getBsonType()) {
                case STRING, INT32, BOOLEAN, NULL -> {}
                case INT64 -> {
                    long number = value.asInt64().getValue();
                    if (number == (int) number) {
                        value = new BsonInt32((int) number);
                    }
                }
                case DOUBLE -> {
                    if (!Double.isFinite(value.asDouble().getValue())) {
                        throw new IllegalArgumentException("a double literal is finite: " + value);
                    }
                }
                default -> throw new IllegalArgumentException("no literal syntax for " + value.getBsonType());
            }
        }

        public static Literal of(long number) {
            return new Literal(new BsonInt64(number));
        }

        public static Literal of(String text) {
            return new Literal(new org.bson.BsonString(text));
        }

        @Override
        public String toString() {
            return switch (value.getBsonType()) {
                case STRING -> QueryText.string(value.asString().getValue());
                case INT32 -> Integer.toString(value.asInt32().getValue());
                case INT64 -> Long.toString(value.asInt64().getValue());
                case DOUBLE -> Double.toString(value.asDouble().getValue());
                case BOOLEAN -> Boolean.toString(value.asBoolean().getValue());
                case NULL -> "null";
                default -> throw new IllegalStateException("no literal syntax for " + value.getBsonType());
            };
        }
    }
}
