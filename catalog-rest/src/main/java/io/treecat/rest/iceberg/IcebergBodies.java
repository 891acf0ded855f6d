package io.treecat.rest.iceberg;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.UncheckedIOException;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.rest.RESTRequest;

/**
 * Request and response bodies of the Iceberg routes, as text through Iceberg's own serializers
 * ({@link IcebergRest#mapper()}), so Dropwizard's Jackson provider never sees them.
 */
final class IcebergBodies {
    private final ObjectMapper mapper;

    IcebergBodies(ObjectMapper mapper) {
        this.mapper = requireNonNull(mapper, "mapper is null");
    }

    Response ok(Object response) {
        return Response.ok(json(response), MediaType.APPLICATION_JSON_TYPE).build();
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
     * {@code action}) is the client's mistake: 400 {@code BadRequestException}. A request that parses
     * but fails its own {@code validate()} keeps that exception (400 through {@link IcebergErrors}).
     */
    <T extends RESTRequest> T read(String body, Class<T> type) {
        if (body == null || body.isBlank()) {
            throw new BadRequestException("Missing request body");
        }
        T request;
        try {
            request = mapper.readValue(body, type);
        } catch (JsonProcessingException e) {
            throw new BadRequestException(e, "Malformed request: %s", e.getOriginalMessage());
        } catch (IllegalArgumentException
                | IllegalStateException
                | NullPointerException
                | UnsupportedOperationException
                | ClassCastException e) {
            throw new BadRequestException(e, "Malformed request: %s", String.valueOf(e.getMessage()));
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
}
