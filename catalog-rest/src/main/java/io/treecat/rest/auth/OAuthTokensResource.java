package io.treecat.rest.auth;

import static java.util.Objects.requireNonNull;

import io.treecat.lakehouse.auth.BearerTokens;
import io.treecat.lakehouse.auth.BuiltInPrincipals;
import io.treecat.lakehouse.auth.DeniedAttempts;
import io.treecat.lakehouse.auth.InvalidTokenException;
import io.treecat.lakehouse.auth.Principal;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.rest.auth.OAuth2Util;
import org.apache.iceberg.rest.responses.OAuthTokenResponse;

/**
 * Iceberg's OAuth2 token endpoint, {@code POST /v1/oauth/tokens} (a form body, RFC 6749), for built-in principals:
 * what Spark, Trino and PyIceberg call with {@code credential=<client id>:<secret>}. Two grants:
 * <ul>
 *   <li>{@code client_credentials}: {@code client_id} and {@code client_secret} in the form (or HTTP Basic), checked
 *       against the principal's bcrypt hash; answers a new token;</li>
 *   <li>{@code urn:ietf:params:oauth:grant-type:token-exchange} with a still-valid token of this server as {@code
 *       subject_token}: how Iceberg's client refreshes before expiry ({@code token-refresh-enabled}); answers a new
 *       token for the same principal, if it still exists.</li>
 * </ul>
 * Errors are the OAuth error body ({@code {"error": "invalid_client", "error_description": …}}) that Iceberg's client
 * reads: {@code invalid_client} 401, {@code invalid_grant} 400, {@code unsupported_grant_type} 400, {@code
 * invalid_request} 400. {@code scope} is accepted and ignored until roles exist. Answers are never cached ({@code
 * Cache-Control: no-store}).
 */
@Path("/" + BearerAuthFilter.TOKEN_PATH)
public final class OAuthTokensResource {
    static final String CLIENT_CREDENTIALS = "client_credentials";
    static final String TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
    static final String ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";
    /** The largest form read: a client id, a secret or a token, and a few names. */
    private static final int MAX_FORM_BYTES = 16 * 1024;

    /** What the server counts: each grant issued or refused. */
    @FunctionalInterface
    public interface Events {
        Events NONE = (grant, issued) -> {};

        /** @param grant {@code client_credentials}, {@code token_exchange}, or {@code other} */
        void tokenRequest(String grant, boolean issued);
    }

    private final BuiltInPrincipals principals;
    private final BearerTokens tokens;
    private final Events events;

    public OAuthTokensResource(BuiltInPrincipals principals, BearerTokens tokens, Events events) {
        this.principals = requireNonNull(principals, "principals is null");
        this.tokens = requireNonNull(tokens, "tokens is null");
        this.events = requireNonNull(events, "events is null");
    }

    @POST
    @Produces(MediaType.APPLICATION_JSON)
    public Response token(@Context HttpHeaders headers, InputStream body) {
        Map<String, String> form;
        try {
            form = form(body);
        } catch (IllegalArgumentException e) {
            events.tokenRequest("other", false);
            return error(400, "invalid_request", e.getMessage());
        }
        String grant = form.get("grant_type");
        if (grant == null) {
            events.tokenRequest("other", false);
            return error(400, "invalid_request", "Missing grant_type");
        }
        return switch (grant) {
            case CLIENT_CREDENTIALS -> clientCredentials(headers, form);
            case TOKEN_EXCHANGE -> tokenExchange(form);
            default -> {
                events.tokenRequest("other", false);
                yield error(
                        400,
                        "unsupported_grant_type",
                        "Only client_credentials and token-exchange (refresh) grants are supported");
            }
        };
    }

    private Response clientCredentials(HttpHeaders headers, Map<String, String> form) {
        String clientId = form.get("client_id");
        String secret = form.get("client_secret");
        String basic = headers.getHeaderString(HttpHeaders.AUTHORIZATION);
        if (clientId == null && secret == null && basic != null) {
            String[] pair = basic(basic);
            if (pair != null) {
                clientId = pair[0];
                secret = pair[1];
            }
        }
        Optional<Principal> principal = principals.authenticate(clientId, secret);
        if (principal.isEmpty()) {
            events.tokenRequest(CLIENT_CREDENTIALS, false);
            // The client id is not repeated: a secret pasted into the id field would land in the log.
            DeniedAttempts.record(DeniedAttempts.Denial.unauthenticated("Unknown client id or wrong secret"));
            return error(401, "invalid_client", "Unknown client id or wrong secret");
        }
        events.tokenRequest(CLIENT_CREDENTIALS, true);
        return issued(principal.get());
    }

    private Response tokenExchange(Map<String, String> form) {
        String subject = form.get("subject_token");
        if (subject == null) {
            events.tokenRequest("token_exchange", false);
            return error(400, "invalid_request", "Missing subject_token");
        }
        Principal principal;
        try {
            principal = tokens.verify(subject);
        } catch (InvalidTokenException e) {
            events.tokenRequest("token_exchange", false);
            return error(400, "invalid_grant", e.getMessage());
        } catch (RuntimeException e) {
            events.tokenRequest("token_exchange", false);
            return error(400, "invalid_grant", "The token is not valid");
        }
        if (!principals.exists(principal.name())) {
            // A deleted principal's token refreshes no more: its access ends with its last token.
            events.tokenRequest("token_exchange", false);
            return error(400, "invalid_grant", "The token's principal no longer exists");
        }
        events.tokenRequest("token_exchange", true);
        return issued(principal);
    }

    private Response issued(Principal principal) {
        BearerTokens.Issued issued = tokens.issue(principal);
        OAuthTokenResponse response = OAuthTokenResponse.builder()
                .withToken(issued.token())
                .withTokenType("bearer")
                .withIssuedTokenType(ACCESS_TOKEN_TYPE)
                .setExpirationInSeconds((int) Math.max(1, issued.expiresIn().toSeconds()))
                .build();
        return Response.ok(OAuth2Util.tokenResponseToJson(response), MediaType.APPLICATION_JSON_TYPE)
                .header(HttpHeaders.CACHE_CONTROL, "no-store")
                .header("Pragma", "no-cache")
                .build();
    }

    /** An OAuth error body (RFC 6749 §5.2), which Iceberg's client turns into its exception. */
    static Response error(int status, String error, String description) {
        Map<String, String> body = new HashMap<>();
        body.put("error", error);
        body.put("error_description", description);
        Response.ResponseBuilder builder = Response.status(status)
                .type(MediaType.APPLICATION_JSON_TYPE)
                .entity(body)
                .header(HttpHeaders.CACHE_CONTROL, "no-store");
        if (status == 401) {
            builder.header(HttpHeaders.WWW_AUTHENTICATE, "Basic realm=\"" + BearerAuthFilter.REALM + "\"");
        }
        return builder.build();
    }

    /** The form's fields (the first of each name); a body too large, or badly encoded, is an IllegalArgumentException. */
    private static Map<String, String> form(InputStream body) {
        byte[] bytes;
        try {
            bytes = body == null ? new byte[0] : body.readNBytes(MAX_FORM_BYTES + 1);
        } catch (IOException e) {
            throw new IllegalArgumentException("The request body could not be read");
        }
        if (bytes.length > MAX_FORM_BYTES) {
            throw new IllegalArgumentException("The form is larger than " + MAX_FORM_BYTES + " bytes");
        }
        Map<String, String> fields = new HashMap<>();
        String text = new String(bytes, StandardCharsets.UTF_8);
        if (text.isBlank()) {
            return fields;
        }
        for (String pair : text.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int equals = pair.indexOf('=');
            String name = decode(equals < 0 ? pair : pair.substring(0, equals));
            String value = equals < 0 ? "" : decode(pair.substring(equals + 1));
            fields.putIfAbsent(name, value);
        }
        return fields;
    }

    private static String decode(String text) {
        try {
            return URLDecoder.decode(text, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("The form is not valid application/x-www-form-urlencoded");
        }
    }

    /** {@code Basic base64(id:secret)}, or null for anything else. */
    private static String[] basic(String header) {
        String trimmed = header.strip();
        if (trimmed.length() < 6 || !trimmed.regionMatches(true, 0, "Basic ", 0, 6)) {
            return null;
        }
        try {
            String decoded =
                    new String(Base64.getDecoder().decode(trimmed.substring(6).strip()), StandardCharsets.UTF_8);
            int colon = decoded.indexOf(':');
            return colon < 0 ? null : new String[] {decoded.substring(0, colon), decoded.substring(colon + 1)};
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
