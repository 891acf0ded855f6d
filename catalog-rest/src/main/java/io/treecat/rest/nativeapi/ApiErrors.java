package io.treecat.rest.nativeapi;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCategory;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one table that turns every failure into an HTTP status and the body
 * {@code {"error":{"message","type","code","context"}}} (Iceberg's error model plus the context core
 * attaches: a syntax error's line, column and position; a conflict's path and predicate). It maps
 * {@code Throwable}, so nothing reaches Jersey's or Jetty's HTML error pages, and the connection
 * handler survives every failure.
 */
@Provider
public final class ApiErrors implements ExceptionMapper<Throwable> {
    private static final Logger LOG = LoggerFactory.getLogger(ApiErrors.class);

    /** The HTTP status of each error category (DESIGN §9). */
    public static int status(ErrorCategory category) {
        return switch (category) {
            case NOT_FOUND -> 404;
            case ALREADY_EXISTS, CONFLICT -> 409;
            case INVALID_ARGUMENT -> 400;
            case UNKNOWN_OUTCOME, INTERNAL -> 500;
            case RESOURCE_EXHAUSTED -> 429;
            case UNAVAILABLE -> 503;
            case PERMISSION_DENIED -> 403;
        };
    }

    @Override
    public Response toResponse(Throwable failure) {
        if (failure instanceof CatalogException e) {
            int status = status(e.category());
            if (e.category() == ErrorCategory.UNAVAILABLE) {
                // The store's own error, which the lakehouse stripped of credentials: the client can see what failed.
                LOG.warn("Object store failure {}: {}", e.code(), e.getMessage());
                return response(status, e.code().name(), e.getMessage(), e.context());
            }
            if (status >= 500) {
                // The message and context of a storage failure can name the data directory and the store's
                // files: they are logged, and the body says only what the client needs.
                LOG.error("Catalog failure {}", e.code(), e);
                return response(status, e.code().name(), serverMessage(e.category()), Map.of());
            }
            return response(status, e.code().name(), e.getMessage(), e.context());
        }
        if (failure instanceof ApiException e) {
            return response(e.status(), e.type(), e.getMessage(), e.context());
        }
        if (failure instanceof JsonProcessingException e) {
            Map<String, Object> context = new LinkedHashMap<>();
            JsonLocation location = e.getLocation();
            if (location != null) {
                context.put("line", String.valueOf(location.getLineNr()));
                context.put("column", String.valueOf(location.getColumnNr()));
            }
            return response(
                    400,
                    ApiException.INVALID_REQUEST,
                    "Request body is not valid JSON: " + e.getOriginalMessage(),
                    context);
        }
        if (failure instanceof WebApplicationException e && e.getResponse().getStatus() < 500) {
            Response original = e.getResponse();
            Response.ResponseBuilder builder = Response.status(original.getStatus())
                    .type(MediaType.APPLICATION_JSON_TYPE)
                    .entity(body(original.getStatus(), statusType(original.getStatusInfo()), message(e), Map.of()));
            if (original.getHeaderString(HttpHeaders.ALLOW) != null) {
                builder.header(HttpHeaders.ALLOW, original.getHeaderString(HttpHeaders.ALLOW));
            }
            return builder.build();
        }
        LOG.error("Unexpected failure serving a request", failure);
        return response(500, "INTERNAL_ERROR", "Internal server error", Map.of());
    }

    /** The fixed message of a failure on the server's side: its details stay in the server's log. */
    private static String serverMessage(ErrorCategory category) {
        return category == ErrorCategory.UNKNOWN_OUTCOME
                ? "The commit may or may not have happened; read before retrying"
                : "Internal server error";
    }

    /** The native API's error body with {@code status}; for the other packages' filters. */
    public static Response errorResponse(int status, String type, String message, Map<String, Object> context) {
        return response(status, type, message, context);
    }

    static Response response(int status, String type, String message, Map<String, Object> context) {
        return Response.status(status)
                .type(MediaType.APPLICATION_JSON_TYPE)
                .entity(body(status, type, message, context))
                .build();
    }

    private static Map<String, Object> body(int status, String type, String message, Map<String, Object> context) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("message", message);
        error.put("type", type);
        error.put("code", status);
        error.put("context", context);
        return Map.of("error", error);
    }

    /** NOT_FOUND, METHOD_NOT_ALLOWED, UNSUPPORTED_MEDIA_TYPE, ...: the status's reason phrase as a name. */
    private static String statusType(Response.StatusType status) {
        String reason = status.getReasonPhrase() == null ? "HTTP_" + status.getStatusCode() : status.getReasonPhrase();
        return reason.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]+", "_");
    }

    private static String message(WebApplicationException e) {
        return switch (e.getResponse().getStatus()) {
            case 404 -> "No such resource";
            case 405 -> "Method not allowed";
            case 406 -> "Not acceptable";
            case 415 -> "Unsupported media type";
            default -> e.getMessage() == null ? e.getResponse().getStatusInfo().getReasonPhrase() : e.getMessage();
        };
    }
}
