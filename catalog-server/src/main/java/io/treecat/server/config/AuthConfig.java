package io.treecat.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * {@code auth.*}: authentication on the application port (docs/security.md). Off by default, so that {@code
 * bin/treecat} works with no setup; the server then warns at start that anyone who reaches a port can read and change
 * everything.
 */
public final class AuthConfig {
    @JsonProperty("enabled")
    private boolean enabled = false;

    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.SECONDS)
    @MaxDuration(value = 1, unit = TimeUnit.DAYS)
    @JsonProperty("token-lifetime")
    private Duration tokenLifetime = Duration.hours(1);

    /** The slack on the {@code exp}, {@code iat} and {@code nbf} of the server's own tokens. */
    @NotNull
    @MinDuration(value = 0, unit = TimeUnit.SECONDS)
    @MaxDuration(value = 5, unit = TimeUnit.MINUTES)
    @JsonProperty("clock-skew")
    private Duration clockSkew = Duration.seconds(30);

    @NotBlank
    @Size(max = 256)
    @JsonProperty("issuer")
    private String issuer = "treecat";

    @NotBlank
    @Size(max = 256)
    @JsonProperty("audience")
    private String audience = "treecat";

    /** Empty: generated at first start into the data directory (docs/security.md). */
    @JsonProperty("token-signing-key-file")
    private String tokenSigningKeyFile;

    /**
     * Empty: the admin port checks no token (it then binds loopback unless its host is set). Set: every admin request
     * but the probes' {@code /ping} and {@code /healthcheck} needs this file's token (docs/security.md, "The admin
     * port"), whether or not {@code enabled}.
     */
    @JsonProperty("admin-token-file")
    private String adminTokenFile;

    /** External OpenID Connect issuers whose tokens are accepted beside the server's own (docs/security.md). */
    @Valid
    @NotNull
    @JsonProperty("oidc")
    private List<OidcIssuerConfig> oidc = List.of();

    /** How long a verified token is believed without checking it again (never past its exp); 0 s: no cache. */
    @NotNull
    @MinDuration(value = 0, unit = TimeUnit.SECONDS)
    @MaxDuration(value = 1, unit = TimeUnit.HOURS)
    @JsonProperty("token-cache-ttl")
    private Duration tokenCacheTtl = Duration.minutes(1);

    @Min(1)
    @Max(10_000_000)
    @JsonProperty("token-cache-max-entries")
    private long tokenCacheMaxEntries = 10_000;

    /**
     * Whether listeners may serve other machines with authentication off: without it, an unset host binds loopback
     * and a configured non-loopback host stops the start (docs/security.md).
     */
    @JsonProperty("allow-remote-without-auth")
    private boolean allowRemoteWithoutAuth = false;

    /**
     * The principals that hold every privilege on everything whatever the grants say (docs/security.md,
     * "Authorization"): who makes the first roles and grants. Names, not client ids.
     */
    @NotNull
    @Size(max = 100)
    @JsonProperty("admin-principals")
    private List<@NotBlank String> adminPrincipals = List.of();

    /** Whether every route but the token endpoint needs a bearer token. */
    public boolean enabled() {
        return enabled;
    }

    /** How long a token from {@code /v1/oauth/tokens} lives. */
    public java.time.Duration tokenLifetime() {
        return tokenLifetime.toJavaDuration();
    }

    public java.time.Duration clockSkew() {
        return clockSkew.toJavaDuration();
    }

    /** The {@code iss} of the server's tokens, which it also requires. */
    public String issuer() {
        return issuer;
    }

    /** The {@code aud} of the server's tokens, which it also requires. */
    public String audience() {
        return audience;
    }

    /** The principals that hold every privilege ({@code auth.admin-principals}). */
    public Set<String> adminPrincipals() {
        return Set.copyOf(adminPrincipals);
    }

    /** A file holding the token signing key, if configured (blank counts as absent). */
    public Optional<Path> tokenSigningKeyFile() {
        return tokenSigningKeyFile == null || tokenSigningKeyFile.isBlank()
                ? Optional.empty()
                : Optional.of(Path.of(tokenSigningKeyFile));
    }

    /** The file holding the admin port's token, if configured (blank counts as absent). */
    public Optional<Path> adminTokenFile() {
        return adminTokenFile == null || adminTokenFile.isBlank()
                ? Optional.empty()
                : Optional.of(Path.of(adminTokenFile));
    }

    /** The external OpenID Connect issuers, in configuration order. */
    public List<OidcIssuerConfig> oidc() {
        return List.copyOf(oidc);
    }

    /** How long a verified token is believed at most; zero turns the cache off. */
    public java.time.Duration tokenCacheTtl() {
        return tokenCacheTtl.toJavaDuration();
    }

    /** How many verified tokens are kept at most. */
    public long tokenCacheMaxEntries() {
        return tokenCacheMaxEntries;
    }

    /** {@code auth.allow-remote-without-auth}: whether listeners may serve other machines with authentication off. */
    public boolean allowRemoteWithoutAuth() {
        return allowRemoteWithoutAuth;
    }
}
