package io.treecat.rest.auth;

import static java.util.Objects.requireNonNull;

import io.treecat.lakehouse.auth.BearerTokens;
import io.treecat.lakehouse.auth.DeniedAttempts;
import io.treecat.lakehouse.auth.InvalidTokenException;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.lakehouse.auth.TokenVerifier;
import io.treecat.rest.nativeapi.ApiErrors;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.apache.iceberg.rest.responses.ErrorResponseParser;

/**
 * Lets a request in only with a valid bearer token ({@code Authorization: Bearer <jwt>}, checked by the server's one
 * {@link TokenVerifier}: its own {@link BearerTokens} and any configured OpenID Connect issuer), when authentication is
 * on. It runs before routing and before every other filter (the body limits,
 * the read-only prefix, idempotency replays), so a request without a valid token learns nothing, not even whether its
 * route exists, and no replay is answered from an idempotency record. Only {@value #TOKEN_PATH} is open: it is where
 * a client gets its token.
 *
 * Registered at {@code Priorities.AUTHENTICATION} ({@link RestAuth#components}).
 *
 * <p>A refusal is 401 with {@code WWW-Authenticate: Bearer realm="treecat"} (and, for a token that was sent,
 * {@code error="invalid_token"} with the fixed reason, RFC 6750), in Iceberg's error body under {@code /v1} (the
 * client raises {@code NotAuthorizedException}) and the native API's elsewhere. Nothing in a refusal or the log repeats
 * the header: any failure of the check is a 401, never a 500.
 */
@PreMatching
public final class BearerAuthFilter implements ContainerRequestFilter, ContainerResponseFilter {
    /** The token endpoint, relative to the application root: open to anyone (it checks the client's own secret). */
    public static final String TOKEN_PATH = "v1/oauth/tokens";

    static final String REALM = "treecat";
    private static final String SCHEME = "bearer";
    /** The longest header read at all (Jetty's own limit on the request header is larger). */
    private static final int MAX_HEADER_CHARS = BearerTokens.MAX_TOKEN_CHARS + 64;

    private final TokenVerifier tokens;

    public BearerAuthFilter(TokenVerifier tokens) {
        this.tokens = requireNonNull(tokens, "tokens is null");
    }

    @Override
    public void filter(ContainerRequestContext request) {
        // Whatever an earlier request on this thread left is gone before anything else runs.
        RequestPrincipals.unbind();
        String path = request.getUriInfo().getPath();
        String relative = path.startsWith("/") ? path.substring(1) : path;
        if (relative.equals(TOKEN_PATH)) {
            return;
        }
        Principal principal;
        try {
            principal = authenticate(request.getHeaderString(HttpHeaders.AUTHORIZATION));
        } catch (Missing e) {
            request.abortWith(refusal(relative, "Authentication required: send a bearer token", null));
            return;
        } catch (InvalidTokenException e) {
            request.abortWith(refusal(relative, e.getMessage(), e.getMessage()));
            return;
        } catch (RuntimeException e) {
            // Whatever else a hostile header makes a parser do is still just a bad token.
            String reason = "The token is not valid";
            request.abortWith(refusal(relative, reason, reason));
            return;
        }
        RequestPrincipals.bind(principal);
        request.setSecurityContext(SecurityContexts.of(
                principal,
                request.getSecurityContext() != null
                        && request.getSecurityContext().isSecure()));
    }

    /** The response is being written: the request is over, and so is its principal on this thread. */
    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        RequestPrincipals.unbind();
    }

    private Principal authenticate(String header) {
        if (header == null || header.isBlank()) {
            throw new Missing();
        }
        if (header.length() > MAX_HEADER_CHARS) {
            throw new InvalidTokenException("The token is too long");
        }
        String trimmed = header.strip();
        int space = trimmed.indexOf(' ');
        if (space < 0 || !trimmed.substring(0, space).toLowerCase(Locale.ROOT).equals(SCHEME)) {
            throw new InvalidTokenException("The Authorization header is not a bearer token");
        }
        return tokens.verify(trimmed.substring(space + 1).strip());
    }

    private static Response refusal(String path, String message, String invalidTokenReason) {
        DeniedAttempts.record(DeniedAttempts.Denial.unauthenticated(message));
        String challenge = invalidTokenReason == null
                ? "Bearer realm=\"" + REALM + "\""
                : "Bearer realm=\"" + REALM + "\", error=\"invalid_token\", error_description=\"" + invalidTokenReason
                        + "\"";
        if (path.equals("v1") || path.startsWith("v1/")) {
            ErrorResponse error = ErrorResponse.builder()
                    .responseCode(401)
                    .withType("NotAuthorizedException")
                    .withMessage(message)
                    .build();
            return Response.status(401)
                    .type(MediaType.APPLICATION_JSON_TYPE)
                    .entity(ErrorResponseParser.toJson(error))
                    .header(HttpHeaders.WWW_AUTHENTICATE, challenge)
                    .build();
        }
        Response body = ApiErrors.errorResponse(401, "UNAUTHENTICATED", message, Map.of());
        return Response.fromResponse(body)
                .header(HttpHeaders.WWW_AUTHENTICATE, challenge)
                .build();
    }

    /** No header at all: a challenge without an error code (RFC 6750 §3.1). */
    private static final class Missing extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Missing() {
            super(null, null, false, false);
        }
    }
}
