package io.treecat.lakehouse.auth;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableSet;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.KeySourceException;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.jwk.source.RateLimitReachedException;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.BadJWSException;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.util.DefaultResourceRetriever;
import com.nimbusds.jose.util.JSONObjectUtils;
import com.nimbusds.jose.util.Resource;
import com.nimbusds.jose.util.ResourceRetriever;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.nimbusds.jwt.proc.BadJWTException;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import com.nimbusds.jwt.proc.JWTClaimsSetVerifier;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks the tokens of one external OpenID Connect issuer with nimbus-jose-jwt: its discovery document gives the JWKS
 * URL, a {@link JWKSourceBuilder} source caches the keys and fetches them again when a token names a key id it does not
 * hold (rotation), at most twice per {@link #KEYS_REFETCH_MIN_INTERVAL}, and a {@link DefaultJWTProcessor} checks the
 * signature with one of them before {@link Claims} checks {@code iss}, {@code aud}, {@code exp} and {@code nbf}.
 *
 * <p>Discovery is tried at start ({@link #discover()}) and, if the issuer did not answer, again on the first token of
 * this issuer after {@link OidcIssuer#retryInterval()}, by one thread at a time; until it succeeds every token of the
 * issuer is refused as "unavailable" (a 401, like every bad token), and the server serves everything else. Once the
 * keys are held, an issuer that goes down is tolerated for {@link #KEYS_OUTAGE_TOLERANCE}: its last keys stay in use.
 */
final class OidcIssuerVerifier {
    private static final Logger LOG = LoggerFactory.getLogger(OidcIssuerVerifier.class);

    /** How long fetched keys are used before they are fetched again. */
    static final Duration KEYS_CACHE_TTL = Duration.ofMinutes(5);
    /** A token with an unknown key id fetches the keys again, but not more than twice in this interval. */
    static final Duration KEYS_REFETCH_MIN_INTERVAL = Duration.ofSeconds(30);
    /** How long the last keys stay in use while the issuer does not answer. */
    static final Duration KEYS_OUTAGE_TOLERANCE = Duration.ofHours(1);
    /** The largest discovery document or key set read. */
    static final int MAX_DOCUMENT_BYTES = 256 * 1024;
    /** The longest principal name or role taken from a claim. */
    static final int MAX_NAME_CHARS = 256;
    /** The most roles taken from one token. */
    static final int MAX_ROLES = 256;

    /** Access tokens are typed JWT, RFC 9068's at+jwt, or not at all (Keycloak, Entra and Google differ). */
    private static final Set<JOSEObjectType> TYPES = ImmutableSet.of(JOSEObjectType.JWT, new JOSEObjectType("at+jwt"));

    private final OidcIssuer issuer;
    private final Clock clock;
    private final ResourceRetriever retriever;
    private final ReentrantLock discovering = new ReentrantLock();
    private volatile DefaultJWTProcessor<SecurityContext> processor;
    private volatile Instant nextAttempt = Instant.MIN;

    OidcIssuerVerifier(OidcIssuer issuer, Clock clock) {
        this.issuer = requireNonNull(issuer, "issuer is null");
        this.clock = requireNonNull(clock, "clock is null");
        int timeout = Math.toIntExact(issuer.timeout().toMillis());
        this.retriever = new DefaultResourceRetriever(timeout, timeout, MAX_DOCUMENT_BYTES);
    }

    OidcIssuer issuer() {
        return issuer;
    }

    /**
     * Reads the discovery document and sets up the key source, unless that is done, another thread is at it, or the
     * last attempt failed less than {@link OidcIssuer#retryInterval()} ago.
     *
     * @return whether tokens of this issuer can be checked now
     */
    boolean discover() {
        if (processor != null) {
            return true;
        }
        if (!discovering.tryLock()) {
            return false;
        }
        try {
            if (processor != null) {
                return true;
            }
            Instant now = clock.instant();
            if (now.isBefore(nextAttempt)) {
                return false;
            }
            nextAttempt = now.plus(issuer.retryInterval());
            URL keys = keysUrl();
            processor = processor(keys);
            LOG.info("OpenID Connect issuer {} ({}): keys from {}", issuer.name(), issuer.issuer(), keys);
            return true;
        } catch (IOException | ParseException | IllegalArgumentException e) {
            LOG.warn(
                    "OpenID Connect issuer {} ({}): discovery at {} failed, so its tokens are refused until it answers"
                            + " (next attempt on a token after {}): {}",
                    issuer.name(),
                    issuer.issuer(),
                    issuer.discovery(),
                    issuer.retryInterval(),
                    e.toString());
            return false;
        } finally {
            discovering.unlock();
        }
    }

    /**
     * The principal of {@code jwt}, whose unverified {@code iss} named this issuer, if everything holds.
     *
     * @throws InvalidTokenException saying which rule failed
     */
    TokenAuthenticator.Verified verify(SignedJWT jwt) {
        JWSHeader header = jwt.getHeader();
        if (!issuer.algorithms().contains(header.getAlgorithm())) {
            throw new InvalidTokenException("The token's algorithm is not accepted for its issuer");
        }
        if (header.getType() != null && !TYPES.contains(header.getType())) {
            throw new InvalidTokenException("The token's type is not an access token's");
        }
        if (!discover()) {
            throw new InvalidTokenException("The token's issuer is unavailable");
        }
        JWTClaimsSet claims;
        try {
            claims = processor.process(jwt, null);
        } catch (Claims.Rejected e) {
            throw new InvalidTokenException(e.getMessage());
        } catch (BadJWSException e) {
            throw new InvalidTokenException("The token's signature is not valid");
        } catch (BadJWTException e) {
            throw new InvalidTokenException("The token's claims are not valid");
        } catch (BadJOSEException | RateLimitReachedException e) {
            // No key of the set (fetched again once) has the token's key id and algorithm.
            throw new InvalidTokenException("The token's key is not one of its issuer's");
        } catch (KeySourceException e) {
            LOG.warn(
                    "OpenID Connect issuer {} ({}): its keys could not be fetched: {}",
                    issuer.name(),
                    issuer.issuer(),
                    e.toString());
            throw new InvalidTokenException("The token's issuer is unavailable");
        } catch (JOSEException | RuntimeException e) {
            throw new InvalidTokenException("The token's signature is not valid");
        }
        Principal principal = new Principal(issuer.principalName(name(claims)), roles(claims));
        return new TokenAuthenticator.Verified(
                principal, claims.getExpirationTime().toInstant());
    }

    private URL keysUrl() throws IOException, ParseException {
        Resource resource = retriever.retrieveResource(issuer.discovery().toURL());
        Map<String, Object> document = JSONObjectUtils.parse(resource.getContent());
        String named = JSONObjectUtils.getString(document, "issuer");
        if (!issuer.issuer().equals(named)) {
            // OpenID Connect Discovery 1.0, 4.3: the document must name the issuer it was fetched for.
            throw new IllegalArgumentException(
                    "the discovery document names the issuer " + named + ", not " + issuer.issuer());
        }
        String keys = JSONObjectUtils.getString(document, "jwks_uri");
        if (keys == null) {
            throw new IllegalArgumentException("the discovery document has no jwks_uri");
        }
        OidcIssuer.checkUrl("jwks_uri", keys);
        try {
            return URI.create(keys).toURL();
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException("jwks_uri is not a URL: " + keys, e);
        }
    }

    private DefaultJWTProcessor<SecurityContext> processor(URL keys) {
        JWKSource<SecurityContext> source = JWKSourceBuilder.<SecurityContext>create(keys, retriever)
                .cache(KEYS_CACHE_TTL.toMillis(), issuer.timeout().toMillis())
                // Refresh-ahead would run an executor per issuer; a refresh on expiry is one fetch every 5 minutes.
                .refreshAheadCache(false)
                .rateLimited(KEYS_REFETCH_MIN_INTERVAL.toMillis())
                .outageTolerant(KEYS_OUTAGE_TOLERANCE.toMillis())
                .build();
        DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
        // The type was checked before (verify), with a message of our own.
        processor.setJWSTypeVerifier((type, context) -> {});
        processor.setJWSKeySelector(new JWSVerificationKeySelector<>(issuer.algorithms(), source));
        processor.setJWTClaimsSetVerifier(new Claims(issuer, clock));
        return processor;
    }

    private String name(JWTClaimsSet claims) {
        Object value = claim(claims, issuer.principalClaim());
        if (!(value instanceof String name) || !usable(name)) {
            throw new InvalidTokenException("The token's principal claim is missing or not a usable name");
        }
        return name;
    }

    private Set<String> roles(JWTClaimsSet claims) {
        if (issuer.rolesClaim().isEmpty()) {
            return ImmutableSet.of();
        }
        Object value = claim(claims, issuer.rolesClaim().get());
        if (value == null) {
            return ImmutableSet.of();
        }
        List<?> listed = value instanceof List<?> list ? list : List.of(value);
        if (listed.size() > MAX_ROLES) {
            throw new InvalidTokenException("The token's roles claim lists too many roles");
        }
        ImmutableSet.Builder<String> roles = ImmutableSet.builder();
        for (Object role : listed) {
            if (!(role instanceof String name) || !usable(name)) {
                throw new InvalidTokenException("The token's roles claim is not a list of names");
            }
            roles.add(issuer.principalName(name));
        }
        return roles.build();
    }

    /**
     * A claim by its name, or else by a dotted path into nested objects ({@code realm_access.roles}); the whole name is
     * tried first, since claim names may hold dots themselves ({@code https://example.com/roles}).
     */
    static Object claim(JWTClaimsSet claims, String path) {
        Object whole = claims.getClaim(path);
        if (whole != null || !path.contains(".")) {
            return whole;
        }
        Object node = claims.getClaims();
        for (String part : path.split("\\.", -1)) {
            if (!(node instanceof Map<?, ?> map)) {
                return null;
            }
            node = map.get(part);
        }
        return node;
    }

    private static boolean usable(String name) {
        return !name.isBlank()
                && name.length() <= MAX_NAME_CHARS
                && name.chars().noneMatch(Character::isISOControl);
    }

    /**
     * The claims rules, with fixed messages and our clock: {@code iss} exactly the issuer, {@code aud} holding the
     * audience, {@code exp} required and not past, {@code nbf} not in the future when present (Keycloak and Google
     * omit it), each time with the issuer's clock skew.
     */
    static final class Claims implements JWTClaimsSetVerifier<SecurityContext> {
        private final OidcIssuer issuer;
        private final Clock clock;

        Claims(OidcIssuer issuer, Clock clock) {
            this.issuer = issuer;
            this.clock = clock;
        }

        @Override
        public void verify(JWTClaimsSet claims, SecurityContext context) throws Rejected {
            if (!issuer.issuer().equals(claims.getIssuer())) {
                throw new Rejected("The token's issuer is not trusted");
            }
            List<String> audiences = claims.getAudience();
            if (audiences == null || !audiences.contains(issuer.audience())) {
                throw new Rejected("The token's audience is not this server");
            }
            Instant now = clock.instant();
            Date expires = claims.getExpirationTime();
            if (expires == null) {
                throw new Rejected("The token has no expiry");
            }
            if (!now.isBefore(expires.toInstant().plus(issuer.clockSkew()))) {
                throw new Rejected("The token has expired");
            }
            Date notBefore = claims.getNotBeforeTime();
            if (notBefore != null && now.plus(issuer.clockSkew()).isBefore(notBefore.toInstant())) {
                throw new Rejected("The token is not valid yet");
            }
        }

        /** A rule of ours failed; its message is fixed and safe to answer. */
        static final class Rejected extends BadJWTException {
            private static final long serialVersionUID = 1L;

            Rejected(String message) {
                super(message);
            }
        }
    }
}
