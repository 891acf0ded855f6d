package io.treecat.lakehouse.model;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * The record of one idempotency key whose request committed, {@code /.idempotency_keys/<key>}: written in the
 * request's own commit, so it exists exactly when the request's change does.
 *
 * @param fingerprint the SHA-256 (hex) of the request the key was first used with; a repeat must match it
 * @param created when the key was first used, ms since the epoch; the key's lifetime counts from there
 * @param outcome what the commit did that its answer is rebuilt from (e.g. {@code metadata_location}); the adapter
 *     that wrote the record defines the names
 * @param others fields no interface declares, kept as they are
 */
public record IdempotencyKeyEntry(
        String fingerprint, long created, Map<String, List<String>> outcome, BsonDocument others)
        implements LakeObject {
    private static final Set<String> DECLARED =
            Set.of(LakeKeys.OBJ_TYPE, LakeKeys.FINGERPRINT, LakeKeys.CREATED, LakeKeys.OUTCOME);

    public IdempotencyKeyEntry {
        requireNonNull(fingerprint, "fingerprint is null");
        Map<String, List<String>> copy = new LinkedHashMap<>();
        requireNonNull(outcome, "outcome is null").forEach((name, values) -> copy.put(name, List.copyOf(values)));
        outcome = Collections.unmodifiableMap(copy);
        others = requireNonNull(others, "others is null").clone();
    }

    public static IdempotencyKeyEntry of(String fingerprint, long created, Map<String, List<String>> outcome) {
        return new IdempotencyKeyEntry(fingerprint, created, outcome, new BsonDocument());
    }

    public static IdempotencyKeyEntry decode(BsonDocument stored) {
        BsonDocument value = Fields.plain(stored);
        ObjectType type = ObjectType.IDEMPOTENCY_KEY;
        Fields.requireType(value, type);
        String fingerprint = Fields.string(value, LakeKeys.FINGERPRINT, type);
        if (fingerprint == null) {
            throw Fields.missing(type, LakeKeys.FINGERPRINT, "for an idempotency key");
        }
        Long created = Fields.int64(value, LakeKeys.CREATED, type);
        if (created == null) {
            throw Fields.missing(type, LakeKeys.CREATED, "for an idempotency key");
        }
        Map<String, List<String>> outcome = new LinkedHashMap<>();
        BsonDocument document = Fields.document(value, LakeKeys.OUTCOME, type);
        if (document != null) {
            for (Map.Entry<String, BsonValue> entry : document.entrySet()) {
                String field = LakeKeys.OUTCOME + "." + entry.getKey();
                if (!entry.getValue().isArray()) {
                    throw Fields.invalid(type, field, "an array of strings", entry.getValue());
                }
                List<String> values = new ArrayList<>();
                for (BsonValue element : entry.getValue().asArray()) {
                    if (!element.isString()) {
                        throw Fields.invalid(type, field, "an array of strings", element);
                    }
                    values.add(element.asString().getValue());
                }
                outcome.put(entry.getKey(), values);
            }
        }
        return new IdempotencyKeyEntry(fingerprint, created, outcome, Fields.others(value, DECLARED));
    }

    @Override
    public BsonDocument encode() {
        BsonDocument document = new BsonDocument();
        outcome.forEach((name, values) -> {
            BsonArray array = new BsonArray();
            values.forEach(text -> array.add(new BsonString(text)));
            document.put(name, array);
        });
        return Values.of(ObjectType.IDEMPOTENCY_KEY)
                .string(LakeKeys.FINGERPRINT, fingerprint)
                .int64(LakeKeys.CREATED, created)
                .value(LakeKeys.OUTCOME, document)
                .with(others);
    }
}
