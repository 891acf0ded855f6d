package io.treecat.rest.nativeapi;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectReader;
import io.treecat.core.json.JsonLimits;
import io.treecat.core.service.WriteSetJson;
import io.treecat.core.version.WriteSet;
import java.io.InputStream;

/**
 * Request bodies of the JSON mirror, read within the server's {@link JsonLimits} and strictly
 * ({@link StrictJson}): a body over a limit is 400 {@code INVALID_REQUEST} naming the limit's key, a
 * field of the wrong JSON type 400 naming the field.
 */
final class JsonBodies {
    private final JsonLimits limits;
    private final ObjectReader reader;

    JsonBodies(JsonLimits limits) {
        this.limits = requireNonNull(limits, "limits is null");
        // Unknown fields are refused so a misspelt field never goes unnoticed.
        this.reader = StrictJson.reader(StrictJson.builder(limits)
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .build());
    }

    JsonLimits limits() {
        return limits;
    }

    /** A JSON body bound to {@code type}; null if the body is empty. */
    <T> T read(InputStream body, Class<T> type) {
        String text = Requests.text(body);
        if (text.isBlank()) {
            return null;
        }
        try {
            return reader.forType(type).readValue(text);
        } catch (JsonProcessingException e) {
            limits.exceeded(e).ifPresent(exceeded -> {
                throw exceeded;
            });
            ApiException invalid = ApiException.invalidRequest("Request body is not valid JSON for this operation")
                    .with("detail", e.getOriginalMessage());
            JsonLocation location = e.getLocation();
            if (location != null) {
                invalid.with("line", location.getLineNr()).with("column", location.getColumnNr());
            }
            throw invalid;
        }
    }

    /** A write set ({@link WriteSetJson}) within the limits. */
    WriteSet writeSet(InputStream body, long newestVid) {
        return WriteSetJson.parse(Requests.text(body), newestVid, limits);
    }
}
