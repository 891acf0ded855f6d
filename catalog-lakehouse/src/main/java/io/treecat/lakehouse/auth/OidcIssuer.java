package io.treecat.lakehouse.auth;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableSet;
import com.google.common.net.InetAddresses;
import com.nimbusds.jose.JWSAlgorithm;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One external OpenID Connect issuer whose tokens the server accepts (docs/security.md, "External OpenID Connect
 * issuers"): checked at construction, so a bad configuration stops the start with a message naming the field.
 *
 * @param name a short name: principals of this issuer are {@code <name>:<claim value>}, roles {@code <name>:<role>},
 *     so no two issuers, and no issuer and a built-in principal (whose names hold no {@code :}), can name the same one
 * @param issuer the {@code iss} its tokens carry, exactly; {@code https://}, or {@code http://} on a loopback address
 * @param discovery its OpenID Connect discovery document ({@code <issuer>/.well-known/openid-configuration} unless set)
 * @param audience what the token's {@code aud} must hold
 * @param principalClaim the claim naming the principal ({@code sub} by default)
 * @param rolesClaim the claim listing its roles, if any: a top-level claim, else a dotted path ({@code
 *     realm_access.roles})
 * @param algorithms the signature algorithms accepted: asymmetric only (never HS*, never {@code none})
 * @param clockSkew how far the issuer's clock and ours may disagree on {@code exp} and {@code nbf}
 * @param timeout the connect and the read timeout of each request to the issuer (discovery, JWKS)
 * @param retryInterval how long after a failed discovery the next attempt may be made
 */
public record OidcIssuer(
        String name,
        String issuer,
        URI discovery,
        String audience,
        String principalClaim,
        Optional<String> rolesClaim,
        Set<JWSAlgorithm> algorithms,
        Duration clockSkew,
        Duration timeout,
        Duration retryInterval) {
    /** Where discovery is unless configured: OpenID Connect Discovery 1.0, section 4. */
    public static final String WELL_KNOWN = "/.well-known/openid-configuration";
    /** What an issuer accepts unless configured. */
    public static final Set<JWSAlgorithm> DEFAULT_ALGORITHMS = ImmutableSet.of(JWSAlgorithm.RS256, JWSAlgorithm.ES256);
    /**
     * Every algorithm that may be configured: RFC 7518's RSA and NIST-curve signatures, which the JDK verifies
     * (EdDSA would need Tink, ES256K a curve the JDK dropped).
     */
    public static final Set<JWSAlgorithm> ALLOWED_ALGORITHMS = ImmutableSet.of(
            JWSAlgorithm.RS256,
            JWSAlgorithm.RS384,
            JWSAlgorithm.RS512,
            JWSAlgorithm.PS256,
            JWSAlgorithm.PS384,
            JWSAlgorithm.PS512,
            JWSAlgorithm.ES256,
            JWSAlgorithm.ES384,
            JWSAlgorithm.ES512);

    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,31}");
    private static final Duration MAX_CLOCK_SKEW = Duration.ofMinutes(5);

    public OidcIssuer {
        requireNonNull(name, "name is null");
        requireNonNull(issuer, "issuer is null");
        requireNonNull(discovery, "discovery is null");
        requireNonNull(audience, "audience is null");
        requireNonNull(principalClaim, "principalClaim is null");
        requireNonNull(rolesClaim, "rolesClaim is null");
        requireNonNull(algorithms, "algorithms is null");
        requireNonNull(clockSkew, "clockSkew is null");
        requireNonNull(timeout, "timeout is null");
        requireNonNull(retryInterval, "retryInterval is null");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "name must be 1-32 of a-z 0-9 _ -, starting with a letter or digit: it prefixes the principals");
        }
        checkUrl("issuer", issuer);
        checkUrl("discovery-url", discovery.toString());
        if (audience.isBlank() || audience.length() > 256) {
            throw new IllegalArgumentException("audience must be 1-256 characters");
        }
        checkClaim("principal-claim", principalClaim);
        rolesClaim.ifPresent(claim -> checkClaim("roles-claim", claim));
        algorithms = ImmutableSet.copyOf(algorithms);
        if (algorithms.isEmpty()) {
            throw new IllegalArgumentException("algorithms must name at least one algorithm");
        }
        for (JWSAlgorithm algorithm : algorithms) {
            if (!ALLOWED_ALGORITHMS.contains(algorithm)) {
                throw new IllegalArgumentException("algorithms: " + algorithm
                        + " is not accepted for an external issuer (only RS256/384/512, PS256/384/512, ES256/384/512: a symmetric key"
                        + " would be a secret shared with the issuer, and none is no signature)");
            }
        }
        if (clockSkew.isNegative() || clockSkew.compareTo(MAX_CLOCK_SKEW) > 0) {
            throw new IllegalArgumentException("clock-skew must be between 0 and 5 minutes");
        }
        if (timeout.compareTo(Duration.ofMillis(100)) < 0 || timeout.compareTo(Duration.ofMinutes(1)) > 0) {
            throw new IllegalArgumentException("timeout must be between 100 ms and 1 minute");
        }
        if (retryInterval.compareTo(Duration.ofMillis(100)) < 0 || retryInterval.compareTo(Duration.ofHours(1)) > 0) {
            throw new IllegalArgumentException("retry-interval must be between 100 ms and 1 hour");
        }
    }

    /** The discovery URL OpenID Connect Discovery puts under {@code issuer}. */
    public static URI defaultDiscovery(String issuer) {
        requireNonNull(issuer, "issuer is null");
        String base = issuer.endsWith("/") ? issuer.substring(0, issuer.length() - 1) : issuer;
        try {
            return new URI(base + WELL_KNOWN);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("issuer is not a URL: " + issuer, e);
        }
    }

    /** What a principal of this issuer is called: {@code <name>:<value>}. */
    public String principalName(String claimValue) {
        return name + ":" + claimValue;
    }

    /**
     * Whether {@code url} may be fetched for an issuer: {@code https://}, or {@code http://} on a loopback address
     * (tests, a sidecar). A token's keys fetched in the clear from elsewhere could be swapped on the way.
     *
     * @throws IllegalArgumentException naming {@code field} otherwise
     */
    static void checkUrl(String field, String url) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(field + " is not a URL: " + url);
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (uri.getHost() == null || !(scheme.equals("https") || scheme.equals("http"))) {
            throw new IllegalArgumentException(field + " must be an https:// URL with a host: " + url);
        }
        if (uri.getUserInfo() != null || uri.getFragment() != null) {
            throw new IllegalArgumentException(field + " must hold no user information and no fragment: " + url);
        }
        if (scheme.equals("http") && !isLoopback(uri.getHost())) {
            throw new IllegalArgumentException(
                    field + " must be https:// (http:// is accepted only on a loopback address): " + url);
        }
    }

    private static boolean isLoopback(String host) {
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        if (bare.equalsIgnoreCase("localhost")) {
            return true;
        }
        return InetAddresses.isInetAddress(bare)
                && InetAddresses.forString(bare).isLoopbackAddress();
    }

    private static void checkClaim(String field, String claim) {
        if (claim.isBlank() || claim.length() > 256 || claim.startsWith(".") || claim.endsWith(".")) {
            throw new IllegalArgumentException(field + " must be a claim name or a dotted path of 1-256 characters");
        }
    }
}
