package io.treecat.grpc;

import static java.util.Objects.requireNonNull;

import com.google.common.util.concurrent.MoreExecutors;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.treecat.core.service.CatalogService;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Read-your-writes across the nodes of a replicated group on the gRPC API, as {@code X-TreeCat-Min-Vid} is on HTTP
 * (docs/replication.md): a call with metadata {@code x-treecat-min-vid: N} starts only once this node has published
 * vid N, waiting for it up to a bound, then ends {@code UNAVAILABLE} with reason {@code VID_NOT_REACHED} naming both
 * vids; a value that is not a vid ends it {@code INVALID_ARGUMENT} ({@code INVALID_REQUEST}). Every answer names in
 * {@code x-treecat-vid} the newest vid the node had published when it answered: in the response headers, or in the
 * trailers of a call that ends before sending any.
 *
 * <p>Installed inside {@link GrpcAuthentication}, so an unknown caller can make the server neither wait nor tell its
 * vid. The wait blocks the thread starting the call: grpc-java starts calls (and runs interceptors) on the server's
 * executor, never on a transport thread, and the wait is bounded, and ends early when the call is cancelled or its
 * deadline passes.
 */
public final class MinVidInterceptor implements ServerInterceptor {
    public static final Metadata.Key<String> MIN_VID =
            Metadata.Key.of("x-treecat-min-vid", Metadata.ASCII_STRING_MARSHALLER);
    public static final Metadata.Key<String> VID = Metadata.Key.of("x-treecat-vid", Metadata.ASCII_STRING_MARSHALLER);
    /** The ErrorInfo reason of a call refused because the node did not publish its min vid in time. */
    public static final String VID_NOT_REACHED = "VID_NOT_REACHED";

    /** How much of a malformed value is echoed back. */
    private static final int MAX_ECHO_CHARS = 32;

    private final CatalogService catalog;
    private final Duration maxWait;

    /** @param maxWait how long a call waits for its min vid ({@code replication.min-vid-wait}) */
    public MinVidInterceptor(CatalogService catalog, Duration maxWait) {
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.maxWait = requireNonNull(maxWait, "maxWait is null");
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait must not be negative: " + maxWait);
        }
    }

    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
            ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
        ServerCall<ReqT, RespT> stamped = new VidStamping<>(call);
        String header = headers.get(MIN_VID);
        if (header == null) {
            return next.startCall(stamped, headers);
        }
        long minVid = parse(header);
        if (minVid < 0) {
            return refuse(
                    stamped,
                    GrpcErrors.status(
                            Status.Code.INVALID_ARGUMENT,
                            GrpcErrors.INVALID_REQUEST,
                            "The " + MIN_VID.name() + " metadata must be a vid (a non-negative integer)",
                            Map.of(
                                    "header",
                                    MIN_VID.name(),
                                    "value",
                                    header.length() > MAX_ECHO_CHARS
                                            ? header.substring(0, MAX_ECHO_CHARS) + "..."
                                            : header)));
        }
        CompletableFuture<Void> reached = catalog.tree().awaitPublished(minVid);
        if (!reached.isDone()) {
            Context context = Context.current();
            // A call cancelled (or past its deadline) while it waits stops waiting at once.
            Context.CancellationListener cancelled = ignored -> reached.cancel(false);
            context.addListener(cancelled, MoreExecutors.directExecutor());
            long waitMillis = waitMillis(context);
            try {
                reached.get(waitMillis, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                reached.cancel(false); // nothing left waiting for a vid that may never come
                if (waitMillis < maxWait.toMillis()) {
                    // The call's own deadline ended the wait, a moment before gRPC cancels the call for it: the
                    // client hears DEADLINE_EXCEEDED either way, never that the server gave up.
                    stamped.close(
                            Status.DEADLINE_EXCEEDED.withDescription(
                                    "The call's deadline passed while it waited for vid " + minVid),
                            new Metadata());
                    return new ServerCall.Listener<>() {};
                }
                long published = catalog.lastVid();
                return refuse(
                        stamped,
                        GrpcErrors.status(
                                Status.Code.UNAVAILABLE,
                                VID_NOT_REACHED,
                                "This node has published vid " + published + ", not yet the vid " + minVid
                                        + " the call asks for (" + MIN_VID.name() + ") after waiting "
                                        + maxWait.toMillis() + " ms; retry, or read through the node that wrote it",
                                Map.of("minVid", minVid, "vid", published)));
            } catch (CancellationException e) {
                // The client is gone or its deadline passed: the call is closed already.
                return new ServerCall.Listener<>() {};
            } catch (InterruptedException e) {
                reached.cancel(false);
                Thread.currentThread().interrupt();
                stamped.close(Status.UNAVAILABLE.withDescription("The server is stopping"), new Metadata());
                return new ServerCall.Listener<>() {};
            } catch (ExecutionException e) {
                return refuse(stamped, GrpcErrors.toStatus(e.getCause()));
            } finally {
                context.removeListener(cancelled);
            }
        }
        return next.startCall(stamped, headers);
    }

    /** The wait's bound, shortened to the call's deadline: a client that stopped waiting is not waited for. */
    private long waitMillis(Context context) {
        long bound = maxWait.toMillis();
        Deadline deadline = context.getDeadline();
        return deadline == null ? bound : Math.max(0, Math.min(bound, deadline.timeRemaining(TimeUnit.MILLISECONDS)));
    }

    /** The vid asked for, or -1 when the value is not a non-negative integer. */
    private static long parse(String header) {
        try {
            long vid = Long.parseLong(header.trim());
            return vid < 0 ? -1 : vid;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static <ReqT, RespT> ServerCall.Listener<ReqT> refuse(
            ServerCall<ReqT, RespT> call, StatusRuntimeException error) {
        Metadata trailers = error.getTrailers();
        call.close(error.getStatus(), trailers == null ? new Metadata() : trailers);
        return new ServerCall.Listener<>() {};
    }

    /** Names the node's newest published vid in the headers, or in the trailers when no headers were sent. */
    private final class VidStamping<ReqT, RespT> extends ForwardingServerCall.SimpleForwardingServerCall<ReqT, RespT> {
        private volatile boolean headersSent;

        VidStamping(ServerCall<ReqT, RespT> delegate) {
            super(delegate);
        }

        @Override
        public void sendHeaders(Metadata headers) {
            stamp(headers);
            headersSent = true;
            super.sendHeaders(headers);
        }

        @Override
        public void close(Status status, Metadata trailers) {
            if (!headersSent) {
                stamp(trailers);
            }
            super.close(status, trailers);
        }

        private void stamp(Metadata metadata) {
            long vid;
            try {
                vid = catalog.lastVid();
            } catch (RuntimeException closed) {
                return; // The catalog is not open (stopping): no vid to tell.
            }
            metadata.discardAll(VID);
            metadata.put(VID, Long.toString(vid));
        }
    }
}
