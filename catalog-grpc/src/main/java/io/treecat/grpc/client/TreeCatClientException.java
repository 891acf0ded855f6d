package io.treecat.grpc.client;

import com.google.common.collect.ImmutableMap;
import com.google.rpc.ErrorInfo;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.treecat.grpc.GrpcErrors;
import java.util.Map;
import java.util.Optional;

/**
 * Every failure of a {@link TreeCatClient} call: the gRPC status code (ABORTED means a retry may
 * succeed), the TreeCat error code the server named (e.g. {@code COMMIT_CONFLICT}), and the error's
 * context (the conflicting path, the position of a syntax error). The message is the server's.
 */
public final class TreeCatClientException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final Status.Code statusCode;
    private final String errorCode;
    private final ImmutableMap<String, String> context;

    public TreeCatClientException(
            Status.Code statusCode,
            Optional<String> errorCode,
            Map<String, String> context,
            String message,
            Throwable cause) {
        super(message, cause);
        this.statusCode = statusCode;
        this.errorCode = errorCode.orElse(null);
        this.context = ImmutableMap.copyOf(context);
    }

    /** Reads the status and its ErrorInfo detail (domain {@code treecat.io}), if the server sent one. */
    public static TreeCatClientException from(StatusRuntimeException e) {
        Status status = e.getStatus();
        com.google.rpc.Status details = StatusProto.fromThrowable(e);
        if (details != null) {
            for (com.google.protobuf.Any any : details.getDetailsList()) {
                if (any.is(ErrorInfo.class)) {
                    try {
                        ErrorInfo info = any.unpack(ErrorInfo.class);
                        if (info.getDomain().equals(GrpcErrors.DOMAIN)) {
                            return new TreeCatClientException(
                                    status.getCode(),
                                    Optional.of(info.getReason()),
                                    info.getMetadataMap(),
                                    message(status),
                                    e);
                        }
                    } catch (com.google.protobuf.InvalidProtocolBufferException ignored) {
                        // Not ours after all; fall through to the bare status.
                    }
                }
            }
        }
        return new TreeCatClientException(status.getCode(), Optional.empty(), Map.of(), message(status), e);
    }

    private static String message(Status status) {
        return status.getDescription() != null
                ? status.getDescription()
                : status.getCode().name();
    }

    /** The gRPC status code. */
    public Status.Code statusCode() {
        return statusCode;
    }

    /**
     * The TreeCat error code's name ({@code io.treecat.core.error.ErrorCode}, or {@code
     * INVALID_REQUEST} for a malformed request); empty when the failure came from the transport
     * (deadline, unavailable, message too large) rather than from TreeCat.
     */
    public Optional<String> errorCode() {
        return Optional.ofNullable(errorCode);
    }

    public Map<String, String> context() {
        return context;
    }

    /** True for ABORTED: the transaction lost a conflict and running it again may succeed. */
    public boolean isRetryable() {
        return statusCode == Status.Code.ABORTED;
    }
}
