package io.treecat.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.nimbusds.jose.JWSAlgorithm;
import io.dropwizard.util.Duration;
import io.treecat.lakehouse.auth.OidcIssuer;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One entry of {@code auth.oidc}: an external OpenID Connect issuer whose tokens the server accepts (docs/security.md,
 * "External OpenID Connect issuers"). The rules beyond presence ({@code https://}, asymmetric algorithms, ranges) are
 * {@link OidcIssuer}'s, reported at start as {@code auth.oidc[<index>] (<name>): <what is wrong>}.
 */
public final class OidcIssuerConfig {
    @NotBlank
    @JsonProperty("name")
    private String name;

    @NotBlank
    @JsonProperty("issuer")
    private String issuer;

    /** Empty: {@code <issuer>/.well-known/openid-configuration}. */
    @JsonProperty("discovery-url")
    private String discoveryUrl;

    @NotBlank
    @JsonProperty("audience")
    private String audience;

    @NotBlank
    @JsonProperty("principal-claim")
    private String principalClaim = "sub";

    /** Empty: the tokens carry no roles. */
    @JsonProperty("roles-claim")
    private String rolesClaim;

    @NotEmpty
    @JsonProperty("algorithms")
    private List<String> algorithms = List.of("RS256", "ES256");

    @NotNull
    @JsonProperty("clock-skew")
    private Duration clockSkew = Duration.seconds(30);

    @NotNull
    @JsonProperty("timeout")
    private Duration timeout = Duration.seconds(5);

    @NotNull
    @JsonProperty("retry-interval")
    private Duration retryInterval = Duration.seconds(10);

    /**
     * The issuer as the lakehouse layer checks it.
     *
     * @param index its place in {@code auth.oidc}, for the message
     * @throws IllegalArgumentException naming the entry and the field
     */
    public OidcIssuer toIssuer(int index) {
        String where = "auth.oidc[" + index + "] (" + name + "): ";
        try {
            URI discovery = discoveryUrl == null || discoveryUrl.isBlank()
                    ? OidcIssuer.defaultDiscovery(issuer)
                    : new URI(discoveryUrl);
            Set<JWSAlgorithm> accepted = new LinkedHashSet<>();
            for (String algorithm : algorithms) {
                accepted.add(JWSAlgorithm.parse(algorithm.strip()));
            }
            return new OidcIssuer(
                    name,
                    issuer,
                    discovery,
                    audience,
                    principalClaim,
                    rolesClaim == null || rolesClaim.isBlank() ? Optional.empty() : Optional.of(rolesClaim),
                    accepted,
                    clockSkew.toJavaDuration(),
                    timeout.toJavaDuration(),
                    retryInterval.toJavaDuration());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(where + "discovery-url is not a URL: " + discoveryUrl, e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + e.getMessage(), e);
        }
    }
}
