package io.treecat.grpc;

import static java.util.Objects.requireNonNull;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.treecat.core.model.CatalogObject;
import io.treecat.grpc.v1.TreeCatGrpc;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Bearer tokens on the gRPC port (docs/security.md): with authentication on, every call of the TreeCat service (and
 * reflection) needs {@code authorization: Bearer <token>} metadata, checked by the same verifier as the REST port.
 * A missing or bad token closes the call {@code UNAUTHENTICATED} with a fixed reason, never the token, before any
 * request message is read; a good one puts its principal into the call's {@link Context}, where the service names it
 * as the principal of every commit. The standard health service stays open, for probes.
 */
public final class GrpcAuthentication implements ServerInterceptor {
    /** The principal of the call being served, set only by this interceptor. */
    static final Context.Key<String> PRINCIPAL = Context.key("treecat-principal");

    /** The rows the call's principal may see, set only by this interceptor. */
    static final Context.Key<RowFilter> ROWS = Context.key("treecat-rows");

    static final Metadata.Key<String> AUTHORIZATION =
            Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

    /** The longest header read at all; tokens are a few hundred characters. */
    private static final int MAX_HEADER_CHARS = 4096 + 64;

    /** Checks a token; the one verifier the REST port uses too. */
    @FunctionalInterface
    public interface Verifier {
        /**
         * The caller {@code token} proves, for a call of {@code method} (its full name).
         *
         * @throws Refused with a fixed reason (never the token) when it proves nothing
         * @throws Denied when the principal it proves may not make that call
         */
        Caller verify(String token, String method);
    }

    /**
     * What a verified token proves: the principal's name, named in every commit's origin, and the rows it may see of a
     * read ({@link RowFilter}).
     */
    public record Caller(String name, RowFilter rows) {
        public Caller {
            requireNonNull(name, "name is null");
            requireNonNull(rows, "rows is null");
        }
    }

    /** The rows a caller may see of a read at a vid (docs/security.md, "Native path queries"). */
    @FunctionalInterface
    public interface RowFilter {
        /** Sees everything: nothing is filtered. */
        RowFilter ALL = vid -> Optional.empty();

        /** The rows kept of a read at {@code vid}, or empty when the caller sees everything. */
        Optional<Predicate<CatalogObject>> at(long vid);
    }

    /**
     * The calls a principal without {@code ALL} on the root may make, their answers filtered row by row: path queries,
     * their plans, and single-object reads. Every other call of the native API (commits, transactions, snapshots,
     * clones, bulk loads, the change feed and the commit log) stays for holders of {@code ALL} on the root.
     */
    public static final Set<String> ROW_FILTERED_METHODS = Set.of(
            TreeCatGrpc.getExecuteQueryMethod().getFullMethodName(),
            TreeCatGrpc.getGetObjectMethod().getFullMethodName(),
            TreeCatGrpc.getExplainMethod().getFullMethodName());

    /** A token that proves nothing; its message is a fixed reason, safe to send back. */
    public static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public Refused(String reason) {
            super(reason, null, false, false);
        }
    }

    /**
     * A token that proves a principal who may not use this API (with grants in force, the native API needs {@code ALL}
     * on the root, as its JSON mirror does); its message names the privilege, safe to send back.
     */
    public static final class Denied extends RuntimeException {
        private static final long serialVersionUID = 1L;

        /** Who was refused, for the log of refusals. */
        private final String principal;

        public Denied(String reason) {
            this(null, reason);
        }

        public Denied(String principal, String reason) {
            super(reason, null, false, false);
            this.principal = principal;
        }

        /** The principal the token proved, when the verifier named it. */
        public Optional<String> principal() {
            return Optional.ofNullable(principal);
        }
    }

    /**
     * Told of every call this interceptor refuses, for the server's log of denied attempts (docs/security.md, "Denied
     * attempts"); never given the token or the header.
     */
    @FunctionalInterface
    public interface RefusalLog {
        /**
         * @param code {@code UNAUTHENTICATED} or {@code PERMISSION_DENIED}
         * @param principal who was refused, or null when no token proved anyone
         * @param reason the fixed reason the client was sent
         * @param method the call's full method name
         * @param client the peer's address, or {@code unknown}
         */
        void refused(Status.Code code, String principal, String reason, String method, String client);
    }

    private final Verifier verifier;
    private final RefusalLog refusals;

    public GrpcAuthentication(Verifier verifier) {
        this(verifier, (code, principal, reason, method, client) -> {});
    }

    public GrpcAuthentication(Verifier verifier, RefusalLog refusals) {
        this.verifier = requireNonNull(verifier, "verifier is null");
        this.refusals = requireNonNull(refusals, "refusals is null");
    }

    /** The principal of the call this thread serves, when authentication is on. */
    static Optional<String> currentPrincipal() {
        return Optional.ofNullable(PRINCIPAL.get());
    }

    /** What the call this thread serves may see; everything without authentication. */
    static RowFilter currentRows() {
        RowFilter rows = ROWS.get();
        return rows == null ? RowFilter.ALL : rows;
    }

    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
            ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
        Caller caller;
        try {
            caller = authenticate(
                    headers.get(AUTHORIZATION), call.getMethodDescriptor().getFullMethodName());
        } catch (Refused e) {
            return refuse(call, e.getMessage());
        } catch (Denied e) {
            refusals.refused(
                    Status.Code.PERMISSION_DENIED,
                    e.principal().orElse(null),
                    e.getMessage(),
                    call.getMethodDescriptor().getFullMethodName(),
                    client(call));
            call.close(Status.PERMISSION_DENIED.withDescription(e.getMessage()), new Metadata());
            return new ServerCall.Listener<>() {};
        } catch (RuntimeException e) {
            // Whatever else a hostile header makes a parser do is still just a bad token.
            return refuse(call, "The token is not valid");
        }
        Context context = Context.current().withValue(PRINCIPAL, caller.name()).withValue(ROWS, caller.rows());
        return Contexts.interceptCall(context, call, headers, next);
    }

    private Caller authenticate(String header, String method) {
        if (header == null || header.isBlank()) {
            throw new Refused("Authentication required: send a bearer token (metadata authorization: Bearer <token>)");
        }
        if (header.length() > MAX_HEADER_CHARS) {
            throw new Refused("The token is too long");
        }
        String trimmed = header.strip();
        int space = trimmed.indexOf(' ');
        if (space < 0 || !trimmed.substring(0, space).toLowerCase(Locale.ROOT).equals("bearer")) {
            throw new Refused("The authorization metadata is not a bearer token");
        }
        Caller caller = verifier.verify(trimmed.substring(space + 1).strip(), method);
        if (caller == null || caller.name().isEmpty()) {
            throw new Refused("The token names no principal");
        }
        return caller;
    }

    private static String client(ServerCall<?, ?> call) {
        SocketAddress address = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
        if (address instanceof InetSocketAddress inet && inet.getAddress() != null) {
            return inet.getAddress().getHostAddress();
        }
        return address == null ? "unknown" : address.toString();
    }

    private <ReqT, RespT> ServerCall.Listener<ReqT> refuse(ServerCall<ReqT, RespT> call, String reason) {
        refusals.refused(
                Status.Code.UNAUTHENTICATED,
                null,
                reason,
                call.getMethodDescriptor().getFullMethodName(),
                client(call));
        call.close(Status.UNAUTHENTICATED.withDescription(reason), new Metadata());
        return new ServerCall.Listener<>() {};
    }
}
