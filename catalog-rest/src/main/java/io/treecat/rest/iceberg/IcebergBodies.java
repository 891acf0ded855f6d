package io.treecat.rest.iceberg;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.treecat.core.error.CatalogException;
import io.treecat.core.json.JsonLimits;
import io.treecat.rest.nativeapi.StrictJson;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.rest.RESTRequest;

/**
 * Request and response bodies of the Iceberg routes, as text through Iceberg's own serializers
 * ({@link IcebergRest#mapper(JsonLimits)}), so Dropwizard's Jackson provider never sees them.
 */
final class IcebergBodies {
    private final ObjectMapper mapper;
    private final ObjectReader bodyReader;
    private final JsonLimits limits;

    IcebergBodies(ObjectMapper mapper, JsonLimits limits) {
        this.mapper = requireNonNull(mapper, "mapper is null");
        this.bodyReader = StrictJson.reader(mapper);
        this.limits = requireNonNull(limits, "limits is null");
    }

    /**
     * A 200 with the response as UTF-8 bytes: Jackson's byte generator, not text re-encoded by Jersey, since a
     * large scan plan's tasks run to tens of megabytes.
     */
    Response ok(Object response) {
        try {
            return Response.ok(mapper.writeValueAsBytes(response), MediaType.APPLICATION_JSON_TYPE)
                    .build();
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    String json(Object response) {
        try {
            return mapper.writeValueAsString(response);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Parses and validates a request body. Whatever fails while parsing the client's JSON (Jackson's
     * errors, and the argument/state checks of Iceberg's hand-written parsers, e.g. an unknown update
     * {@code action}) is the client's mistake: 400 {@code BadRequestException}; a body over a JSON limit
     * is the lake's {@code INVALID_REQUEST} naming the limit (400 through {@link IcebergErrors}). A
     * request that parses but fails its own {@code validate()} keeps that exception (400 through
     * {@link IcebergErrors}).
     *
     * <p>Iceberg's parsers read what is there and take the rest as absent: a body of {@code "x"} or
     * {@code -1} reads as a request with no updates, and a namespace level of {@code null} or {@code 1}
     * as the text {@code "null"} or {@code "1"} ({@code JsonUtil.getStringArray}). So the body is read
     * as a tree first and must be an object, and every namespace array in it must hold strings only,
     * before Iceberg's parser sees it.
     */
    <T extends RESTRequest> T read(String body, Class<T> type) {
        if (body == null || body.isBlank()) {
            throw new BadRequestException("Missing request body");
        }
        JsonNode tree;
        try {
            tree = bodyReader.readTree(body);
        } catch (JsonProcessingException e) {
            throw malformed(e);
        }
        if (tree == null || tree.isMissingNode() || tree.isNull()) {
            throw new BadRequestException("Missing request body");
        }
        if (!tree.isObject()) {
            throw new BadRequestException(
                    "Malformed request: the body must be a JSON object, not %s",
                    tree.getNodeType().name().toLowerCase(Locale.ROOT));
        }
        checkNamespaces(tree);
        T request;
        try {
            request = mapper.treeToValue(tree, type);
        } catch (JsonProcessingException e) {
            throw malformed(e);
        } catch (IllegalArgumentException | IllegalStateException | UnsupportedOperationException e) {
            throw new BadRequestException(e, "Malformed request: %s", String.valueOf(e.getMessage()));
        } catch (NullPointerException e) {
            throw new BadRequestException(
                    e,
                    "Malformed request: %s",
                    e.getMessage() == null ? "a required field is missing" : e.getMessage());
        } catch (ClassCastException e) {
            // Its message names the JVM's classes, not the request's fields.
            throw new BadRequestException(e, "Malformed request: a field has the wrong JSON type");
        }
        if (request == null) {
            throw new BadRequestException("Missing request body");
        }
        try {
            request.validate();
        } catch (NullPointerException e) {
            throw new BadRequestException(e, "Invalid request: %s", String.valueOf(e.getMessage()));
        }
        return request;
    }

    private RuntimeException malformed(JsonProcessingException e) {
        Optional<CatalogException> exceeded = limits.exceeded(e);
        if (exceeded.isPresent()) {
            return exceeded.get();
        }
        return new BadRequestException(e, "Malformed request: %s", e.getOriginalMessage());
    }

    /** The fields Iceberg reads with {@code JsonUtil.getStringArray} (namespaces, a view version's default namespace). */
    private static final Set<String> NAMESPACE_FIELDS = Set.of("namespace", "default-namespace");

    /** Refuses a namespace array holding anything but strings, wherever it is in the request. */
    private static void checkNamespaces(JsonNode node) {
        if (node.isObject()) {
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                JsonNode value = field.getValue();
                if (NAMESPACE_FIELDS.contains(field.getKey()) && value.isArray()) {
                    for (JsonNode level : value) {
                        if (!level.isTextual()) {
                            throw new BadRequestException(
                                    "Malformed request: %s levels must be strings, not %s",
                                    field.getKey(), level.getNodeType().name().toLowerCase(Locale.ROOT));
                        }
                    }
                }
                checkNamespaces(value);
            }
        } else if (node.isArray()) {
            for (JsonNode element : node) {
                checkNamespaces(element);
            }
        }
    }
}
