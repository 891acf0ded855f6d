package io.treecat.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDuration;
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
}
