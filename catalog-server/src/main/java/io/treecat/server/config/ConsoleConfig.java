package io.treecat.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;

/**
 * {@code console.*}: the web console, served under {@code /ui} on the application port (docs/console.md). It is
 * static files only: every page reads the lake through the native JSON API and Iceberg REST, with the signed-in
 * user's token, so it sees exactly what that user may see and adds no route a script could not use.
 */
public final class ConsoleConfig {
    @JsonProperty("enabled")
    private boolean enabled = true;

    /** Unset: users sign in with built-in principals only. */
    @Valid
    @JsonProperty("oidc")
    private Oidc oidc;

    public boolean enabled() {
        return enabled;
    }

    /** Sign-in with an external issuer, or null. */
    public Oidc oidc() {
        return oidc;
    }

    /**
     * {@code console.oidc}: users sign in at one of the {@code auth.oidc} issuers with the authorization code flow and
     * PKCE, as a public client of that issuer; the access token they get is what the server then checks, as any
     * client's.
     */
    public static final class Oidc {
        /** The {@code name} of the {@code auth.oidc} entry to sign in at. */
        @NotBlank
        @JsonProperty("issuer")
        private String issuer;

        /** The console's client id at the issuer: a public client whose redirect URI is {@code <server>/ui/}. */
        @NotBlank
        @JsonProperty("client-id")
        private String clientId;

        @NotBlank
        @JsonProperty("scope")
        private String scope = "openid";

        /** Sent as {@code audience} with the authorization request, for issuers that take it (e.g. Auth0); or none. */
        @JsonProperty("audience")
        private String audience;

        public String issuer() {
            return issuer;
        }

        public String clientId() {
            return clientId;
        }

        public String scope() {
            return scope;
        }

        public String audience() {
            return audience;
        }
    }
}
