package io.treecat.grpc;

import static java.util.Objects.requireNonNull;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.Locale;
import java.util.Optional;

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

    static final Metadata.Key<String> AUTHORIZATION =
            Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

    /** The longest header read at all; tokens are a few hundred characters. */
    private static final int MAX_HEADER_CHARS = 4096 + 64;

    /** Checks a token; the one verifier the REST port uses too. */
    @FunctionalInterface
    public interface Verifier {
        /**
         * The name of the principal {@code token} proves.
         *
         * @throws Refused with a fixed reason (never the token) when it proves nothing
         * @throws Denied when the principal it proves may not use the API
         */
        String principalName(String token);
    }

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

        public Denied(String reason) {
            super(reason, null, false, false);
        }
    }

    private final Verifier verifier;

    public GrpcAuthentication(Verifier verifier) {
        this.verifier = requireNonNull(verifier, "verifier is null");
    }

    /** The principal of the call this thread serves, when authentication is on. */
    static Optional<String> currentPrincipal() {
        return Optional.ofNullable(PRINCIPAL.get());
    }

    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
            ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
        String principal;
        try {
            principal = authenticate(headers.get(AUTHORIZATION));
        } catch (Refused e) {
            return refuse(call, e.getMessage());
        } catch (Denied e) {
            call.close(Status.PERMISSION_DENIED.withDescription(e.getMessage()), new Metadata());
            return new ServerCall.Listener<>() {};
        } catch (RuntimeException e) {
            // Whatever else a hostile header makes a parser do is still just a bad token.
            return refuse(call, "The token is not valid");
        }
        Context context = Context.current().withValue(PRINCIPAL, principal);
        return Contexts.interceptCall(context, call, headers, next);
    }

    private String authenticate(String header) {
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
        String name = verifier.principalName(trimmed.substring(space + 1).strip());
        if (name == null || name.isEmpty()) {
            throw new Refused("The token names no principal");
        }
        return name;
    }

    private static <ReqT, RespT> ServerCall.Listener<ReqT> refuse(ServerCall<ReqT, RespT> call, String reason) {
        call.close(Status.UNAUTHENTICATED.withDescription(reason), new Metadata());
        return new ServerCall.Listener<>() {};
    }
}
