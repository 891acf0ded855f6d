package io.treecat.rest.iceberg;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.lakehouse.iceberg.IcebergNames;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.rest.nativeapi.ApiException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.nio.file.InvalidPathException;
import java.util.Map;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchPlanIdException;
import org.apache.iceberg.exceptions.NoSuchPlanTaskException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.exceptions.UnprocessableEntityException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.apache.iceberg.rest.responses.ErrorResponseParser;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one error table of the Iceberg REST catalog: every failure under {@code /v1} becomes Iceberg's
 * ErrorModel {@code {"error":{"message","type","code"}}}, whose {@code type} is the simple name of
 * the Iceberg exception a client's {@code ErrorHandlers} rebuilds (so a 404 says whether the
 * namespace or the table is missing). Jersey allows one {@code ExceptionMapper<Throwable>}, so this
 * one is scoped by path and hands every other path to the native API's mapper.
 */
@Provider
public final class IcebergErrors implements ExceptionMapper<Throwable> {
    private static final Logger LOG = LoggerFactory.getLogger(IcebergErrors.class);

    private final ExceptionMapper<Throwable> otherPaths;

    @Context
    private UriInfo uri;

    public IcebergErrors(ExceptionMapper<Throwable> otherPaths) {
        this.otherPaths = requireNonNull(otherPaths, "otherPaths is null");
    }

    @Override
    public Response toResponse(Throwable failure) {
        String path = uri == null ? "" : uri.getPath();
        if (!IcebergRest.owns(path)) {
            return otherPaths.toResponse(failure);
        }
        return toIceberg(failure);
    }

    static Response toIceberg(Throwable failure) {
        if (failure instanceof WebApplicationException e && e.getResponse().getStatus() < 500) {
            int status = e.getResponse().getStatus();
            Response.ResponseBuilder builder = response(
                    status,
                    switch (status) {
                        case 404 -> "NotFoundException";
                        case 405 -> "MethodNotAllowedException";
                        case 415 -> "UnsupportedMediaTypeException";
                        default -> "BadRequestException";
                    },
                    status == 404 ? "No such endpoint" : String.valueOf(e.getMessage()));
            if (e.getResponse().getHeaderString(HttpHeaders.ALLOW) != null) {
                builder.header(HttpHeaders.ALLOW, e.getResponse().getHeaderString(HttpHeaders.ALLOW));
            }
            return builder.build();
        }
        if (failure instanceof CatalogException e) {
            RuntimeException translated = translate(e);
            if (translated != null) {
                return toIceberg(translated);
            }
            if (e.code() == ErrorCode.COMMIT_QUEUE_FULL) {
                // A table's commit queue is full: nothing was written. Iceberg's HTTP client retries 429 for every
                // method, after Retry-After (ExponentialHttpRequestRetryStrategy); a 5xx on a commit route would be
                // CommitStateUnknownException, though the outcome is known.
                return response(429, "TooManyRequestsException", e.getMessage() + " " + e.context())
                        .header(HttpHeaders.RETRY_AFTER, "1")
                        .build();
            }
            return switch (e.category()) {
                case NOT_FOUND ->
                    response(404, "NotFoundException", e.getMessage()).build();
                case ALREADY_EXISTS ->
                    response(409, "AlreadyExistsException", e.getMessage()).build();
                case CONFLICT ->
                    response(409, "CommitFailedException", e.getMessage()).build();
                case INVALID_ARGUMENT ->
                    response(400, "BadRequestException", e.getMessage() + " " + e.context())
                            .build();
                case UNKNOWN_OUTCOME ->
                    response(500, "CommitStateUnknownException", e.getMessage()).build();
                case INTERNAL -> internal(failure);
                // Iceberg's client reads 503 as ServiceUnavailableException: try again later.
                case RESOURCE_EXHAUSTED ->
                    response(503, "ServiceUnavailableException", e.getMessage()).build();
                // The catalog's object store failed: nothing was committed, and the message is the store's error
                // with every credential removed (the lakehouse's StoreFailures).
                // Iceberg's client raises 403 as ForbiddenException; the context names the privilege and the object.
                case PERMISSION_DENIED ->
                    response(403, "ForbiddenException", e.getMessage() + " " + e.context())
                            .build();
                case UNAVAILABLE -> {
                    LOG.warn("Object store failure: {} {}", e.getMessage(), e.context());
                    yield response(503, "ServiceUnavailableException", e.getMessage() + " " + e.context())
                            .build();
                }
            };
        }
        if (failure instanceof ApiException e) {
            return response(
                            e.status(),
                            switch (e.status()) {
                                case 408 -> "RequestTimeoutException";
                                case 413 -> "RequestTooLargeException";
                                case 415 -> "UnsupportedMediaTypeException";
                                default -> "BadRequestException";
                            },
                            e.getMessage() + " " + e.context())
                    .build();
        }
        if (failure instanceof InvalidPathException) {
            // The JDK's message quotes the whole file system path, the warehouse's included.
            return response(400, "BadRequestException", "Invalid name or location: not a valid file system path")
                    .build();
        }
        if (failure instanceof JsonProcessingException e) {
            return response(400, "BadRequestException", "Malformed request: " + e.getOriginalMessage())
                    .build();
        }
        int status = status(failure);
        if (status == 500) {
            return internal(failure);
        }
        if (status == 503) {
            return response(status, "ServiceUnavailableException", failure.getMessage())
                    .build();
        }
        return response(status, type(failure, status), String.valueOf(failure.getMessage()))
                .build();
    }

    /**
     * The Iceberg exception a lake error stands for, with the message Iceberg's own catalogs give
     * (clients and the REST Compatibility Kit check them), built from the error's context
     * ({@link IcebergNames}); null for the codes answered by their category. A lost race that the
     * server did not run again (or ran again too often) is Iceberg's 409, which clients retry.
     */
    static RuntimeException translate(CatalogException e) {
        Map<String, Object> context = e.context();
        return switch (e.code()) {
            case NAMESPACE_NOT_FOUND ->
                new NoSuchNamespaceException("Namespace does not exist: %s", context.get(IcebergNames.NAMESPACE));
            case TABLE_NOT_FOUND ->
                new NoSuchTableException("Table does not exist: %s", context.get(IcebergNames.TABLE));
            case VIEW_NOT_FOUND -> new NoSuchViewException("View does not exist: %s", context.get(IcebergNames.VIEW));
            case NAMESPACE_NOT_EMPTY ->
                new NamespaceNotEmptyException("Namespace is not empty: %s", context.get(IcebergNames.NAMESPACE));
            case NAME_ALREADY_EXISTS -> alreadyExists(context);
            case COMMIT_CONFLICT, LOCK_TIMEOUT, METADATA_LOCATION_MISMATCH ->
                new CommitFailedException(e, "Commit conflict, retry: %s", e.getMessage());
            case COMMIT_STATE_UNKNOWN -> unknownOutcome(e);
            case NOT_A_CATALOG -> new IllegalArgumentException("Not an Iceberg catalog: " + context.get("catalog"));
            default -> null;
        };
    }

    /** A name is taken: the message depends on what was asked for (the context key naming it) and what holds it. */
    private static AlreadyExistsException alreadyExists(Map<String, Object> context) {
        Object existing = context.get(IcebergNames.EXISTING);
        boolean view = ObjectType.VIEW.storedName().equals(existing);
        boolean table = ObjectType.TABLE.storedName().equals(existing);
        if (context.containsKey(IcebergNames.SOURCE)) {
            Object destination = context.containsKey(IcebergNames.VIEW)
                    ? context.get(IcebergNames.VIEW)
                    : context.get(IcebergNames.TABLE);
            return new AlreadyExistsException(
                    "Cannot rename %s to %s. %s already exists",
                    context.get(IcebergNames.SOURCE), destination, view ? "View" : table ? "Table" : "Namespace");
        }
        if (context.containsKey(IcebergNames.NAMESPACE)) {
            boolean namespace = ObjectType.NAMESPACE.storedName().equals(existing);
            return new AlreadyExistsException(
                    namespace ? "Namespace already exists: %s" : "A table or view already has this name: %s",
                    context.get(IcebergNames.NAMESPACE));
        }
        if (context.containsKey(IcebergNames.VIEW)) {
            Object name = context.get(IcebergNames.VIEW);
            return view
                    ? new AlreadyExistsException("View already exists: %s", name)
                    : table
                            ? new AlreadyExistsException("Table with same name already exists: %s", name)
                            : new AlreadyExistsException("A namespace already has this name: %s", name);
        }
        Object name = context.get(IcebergNames.TABLE);
        return view
                ? new AlreadyExistsException("View with same name already exists: %s", name)
                : table
                        ? new AlreadyExistsException("Table already exists: %s", name)
                        : new AlreadyExistsException("A namespace already has this name: %s", name);
    }

    /** The exception's simple name, which Iceberg's client turns back into that exception; other 400s are BadRequestException. */
    private static String type(Throwable failure, int status) {
        if (status == 400
                && !(failure instanceof IllegalArgumentException)
                && !(failure instanceof ValidationException)) {
            return "BadRequestException";
        }
        return failure.getClass().getSimpleName();
    }

    /** The status of each Iceberg exception, as Iceberg's reference adapter maps them. */
    private static int status(Throwable failure) {
        if (failure instanceof NoSuchNamespaceException
                || failure instanceof NoSuchTableException
                || failure instanceof NoSuchViewException
                || failure instanceof NotFoundException
                || failure instanceof NoSuchPlanIdException
                || failure instanceof NoSuchPlanTaskException) {
            return 404;
        }
        if (failure instanceof AlreadyExistsException
                || failure instanceof CommitFailedException
                || failure instanceof NamespaceNotEmptyException) {
            return 409;
        }
        if (failure instanceof NotImplementedException) {
            return 501;
        }
        // A request the server will not serve for this caller: a signing request outside the table's location.
        if (failure instanceof ForbiddenException) {
            return 403;
        }
        // A request that parses but contradicts itself (a namespace property both set and removed), as
        // Iceberg's reference adapter answers it.
        if (failure instanceof UnprocessableEntityException) {
            return 422;
        }
        // Only what is the client's mistake. UnsupportedOperationException is not among them: Iceberg
        // throws it for a view update applied to a table (and the reverse), which the routes reject
        // before applying; anywhere else it is a server bug and must show as one (500, logged).
        if (failure instanceof BadRequestException
                || failure instanceof ValidationException
                || failure instanceof IllegalArgumentException) {
            return 400;
        }
        if (failure instanceof IcebergIdempotency.IdempotencyInProgressException) {
            return 503;
        }
        return 500;
    }

    /**
     * Iceberg's exception for a commit whose outcome is unknown, with its standard advice but none of
     * the cause's text (a storage error's message can name the server's files); the cause is logged.
     */
    private static CommitStateUnknownException unknownOutcome(Throwable cause) {
        return new CommitStateUnknownException(
                new CatalogException(ErrorCode.COMMIT_STATE_UNKNOWN, "The commit may or may not have happened", cause));
    }

    private static Response internal(Throwable failure) {
        if (failure instanceof CommitStateUnknownException) {
            LOG.error("Commit state unknown", failure);
            return response(
                            500,
                            "CommitStateUnknownException",
                            unknownOutcome(failure).getMessage())
                    .build();
        }
        LOG.error("Unexpected failure serving an Iceberg REST request", failure);
        return response(500, "ServiceFailureException", "Internal server error").build();
    }

    static Response.ResponseBuilder response(int status, String type, String message) {
        ErrorResponse error = ErrorResponse.builder()
                .responseCode(status)
                .withType(type)
                .withMessage(message)
                .build();
        return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(ErrorResponseParser.toJson(error));
    }

    /** An endpoint of the Iceberg REST spec that this server does not serve yet (and does not advertise). */
    static final class NotImplementedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NotImplementedException(String endpoint) {
            super("Not implemented by TreeCat yet: " + endpoint);
        }
    }
}
