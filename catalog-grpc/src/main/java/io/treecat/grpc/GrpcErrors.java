package io.treecat.grpc;

import com.google.common.collect.ImmutableMap;
import com.google.protobuf.Any;
import com.google.rpc.ErrorInfo;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCategory;
import io.treecat.core.error.ErrorCode;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place that turns failures into gRPC statuses (DESIGN §9). Every error carries the rich
 * error model: a {@code google.rpc.ErrorInfo} whose reason is the TreeCat error code, so clients
 * can branch on a stable name, and whose metadata is the error's context (the conflicting path
 * and predicate of an abort, the line and column of a syntax error), so they need not parse the
 * message.
 */
public final class GrpcErrors {
    /** The ErrorInfo domain of every TreeCat error. */
    public static final String DOMAIN = "treecat.io";
    /** The ErrorInfo reason of a request malformed on the wire; see {@link InvalidRequestException}. */
    public static final String INVALID_REQUEST = ErrorCode.INVALID_REQUEST.name();
    /** The ErrorInfo reason of a failure TreeCat did not expect (a bug). */
    public static final String UNEXPECTED = "UNEXPECTED";

    /**
     * Codes whose category says less than gRPC can: asking a read-only transaction to write is a
     * request the system is in the wrong state for (FAILED_PRECONDITION), not a malformed one.
     */
    private static final Map<ErrorCode, Status.Code> BY_CODE =
            ImmutableMap.of(ErrorCode.TRANSACTION_READ_ONLY, Status.Code.FAILED_PRECONDITION);

    /**
     * Status details travel in a trailer, and clients refuse trailers above 8 KiB by default: keep the
     * message and each context value well below that.
     */
    private static final int MAX_MESSAGE_CHARS = 2048;

    private static final int MAX_VALUE_CHARS = 512;

    private static final Logger LOG = LoggerFactory.getLogger(GrpcErrors.class);

    private GrpcErrors() {}

    /** The table: one gRPC code per category. */
    public static Status.Code statusCode(ErrorCategory category) {
        return switch (category) {
            case NOT_FOUND -> Status.Code.NOT_FOUND;
            case ALREADY_EXISTS -> Status.Code.ALREADY_EXISTS;
            case CONFLICT -> Status.Code.ABORTED;
            case INVALID_ARGUMENT -> Status.Code.INVALID_ARGUMENT;
            case UNKNOWN_OUTCOME -> Status.Code.UNKNOWN;
            case INTERNAL -> Status.Code.INTERNAL;
            case RESOURCE_EXHAUSTED -> Status.Code.RESOURCE_EXHAUSTED;
            case UNAVAILABLE -> Status.Code.UNAVAILABLE;
            case PERMISSION_DENIED -> Status.Code.PERMISSION_DENIED;
        };
    }

    public static Status.Code statusCode(ErrorCode code) {
        return BY_CODE.getOrDefault(code, statusCode(code.category()));
    }

    /**
     * The status a failed call ends with. Unexpected exceptions are logged here, once, and reported
     * as INTERNAL without their stack trace; they never escape to the transport.
     */
    public static StatusRuntimeException toStatus(Throwable failure) {
        if (failure instanceof CatalogException e) {
            return status(statusCode(e.code()), e.code().name(), e.getMessage(), e.context());
        }
        if (failure instanceof InvalidRequestException e) {
            return status(Status.Code.INVALID_ARGUMENT, INVALID_REQUEST, e.getMessage(), Map.of("field", e.field()));
        }
        if (failure instanceof StatusRuntimeException e) {
            return e;
        }
        if (failure instanceof StatusException e) {
            return new StatusRuntimeException(e.getStatus(), e.getTrailers());
        }
        LOG.error("Unexpected failure in a gRPC call", failure);
        return status(Status.Code.INTERNAL, UNEXPECTED, "Internal error: " + failure, Map.of());
    }

    /** An error of the rich model for a failure that is no {@link CatalogException}, e.g. an interceptor's refusal. */
    static StatusRuntimeException status(Status.Code code, String reason, String message, Map<String, ?> context) {
        ErrorInfo.Builder info = ErrorInfo.newBuilder().setReason(reason).setDomain(DOMAIN);
        context.forEach((key, value) -> info.putMetadata(key, truncate(String.valueOf(value), MAX_VALUE_CHARS)));
        com.google.rpc.Status status = com.google.rpc.Status.newBuilder()
                .setCode(code.value())
                .setMessage(truncate(message == null ? code.name() : message, MAX_MESSAGE_CHARS))
                .addDetails(Any.pack(info.build()))
                .build();
        return StatusProto.toStatusRuntimeException(status);
    }

    private static String truncate(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max) + "...";
    }
}
