package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.lakehouse.auth.Principal;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import javax.security.sasl.AuthenticationException;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;

/**
 * The server side of SASL PLAIN (RFC 4616), which Hive 4's client speaks with {@code metastore.client.auth.mode=PLAIN}:
 * one message from the client, {@code [authzid] NUL authcid NUL passwd} in UTF-8, and no challenge. The JDK ships no
 * PLAIN server mechanism, so this is one, made directly by {@link HmsAuthTransport} (not registered as a JVM-wide
 * security provider).
 *
 * <p>The authentication id is a built-in principal's client id and the password its secret; the check is the
 * {@link HmsAuthentication.PlainCheck} it is given. An authorization id other than the authentication id (acting as
 * someone else) is refused: TreeCat has no proxy users. Every refusal says the same fixed words, so a client learns
 * nothing about which ids exist, and no message carries what the client sent.
 */
final class HmsPlainSaslServer implements SaslServer {
    static final String MECHANISM = "PLAIN";
    /** What every refused credential is told (and the server log says). */
    static final String REFUSED = "Authentication failed: unknown client id or wrong secret (SASL PLAIN)";

    private final HmsAuthentication.PlainCheck check;
    private Principal principal;
    private String authorizationId;

    HmsPlainSaslServer(HmsAuthentication.PlainCheck check) {
        this.check = requireNonNull(check, "check is null");
    }

    /** The principal the credentials proved, once {@link #isComplete()}. */
    Principal principal() {
        if (principal == null) {
            throw new IllegalStateException("PLAIN authentication is not complete");
        }
        return principal;
    }

    @Override
    public String getMechanismName() {
        return MECHANISM;
    }

    @Override
    public byte[] evaluateResponse(byte[] response) throws SaslException {
        if (principal != null) {
            throw new SaslException("PLAIN authentication is already complete");
        }
        try {
            int first = indexOf(response, 0);
            int second = first < 0 ? -1 : indexOf(response, first + 1);
            if (first < 0 || second < 0 || indexOf(response, second + 1) >= 0) {
                throw new AuthenticationException(
                        "Malformed SASL PLAIN message: it must be [authzid] NUL authcid NUL passwd");
            }
            String authzid = utf8(response, 0, first);
            String authcid = utf8(response, first + 1, second);
            if (authcid.isEmpty() || second + 1 == response.length) {
                throw new AuthenticationException("Malformed SASL PLAIN message: the user or the password is empty");
            }
            if (!authzid.isEmpty() && !authzid.equals(authcid)) {
                throw new AuthenticationException(
                        "SASL PLAIN: acting as another user (an authorization id) is not supported");
            }
            String password = utf8(response, second + 1, response.length);
            Optional<Principal> proved = check.authenticate(authcid, password);
            if (proved.isEmpty()) {
                throw new AuthenticationException(REFUSED);
            }
            principal = proved.get();
            authorizationId = authcid;
            return null;
        } finally {
            // The secret does not stay in this buffer (the String made of it is the check's to drop).
            Arrays.fill(response, (byte) 0);
        }
    }

    private static int indexOf(byte[] bytes, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == 0) {
                return i;
            }
        }
        return -1;
    }

    private static String utf8(byte[] bytes, int from, int to) throws AuthenticationException {
        try {
            CharBuffer chars = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes, from, to - from));
            return chars.toString();
        } catch (CharacterCodingException e) {
            throw new AuthenticationException("Malformed SASL PLAIN message: not UTF-8");
        }
    }

    @Override
    public boolean isComplete() {
        return principal != null;
    }

    @Override
    public String getAuthorizationID() {
        if (!isComplete()) {
            throw new IllegalStateException("PLAIN authentication is not complete");
        }
        return authorizationId;
    }

    @Override
    public byte[] unwrap(byte[] incoming, int offset, int len) {
        throw new IllegalStateException("SASL PLAIN has no security layer");
    }

    @Override
    public byte[] wrap(byte[] outgoing, int offset, int len) {
        throw new IllegalStateException("SASL PLAIN has no security layer");
    }

    @Override
    public Object getNegotiatedProperty(String name) {
        if (!isComplete()) {
            throw new IllegalStateException("PLAIN authentication is not complete");
        }
        // Authentication only: no integrity or confidentiality layer (TLS gives those, hms.tls).
        return Sasl.QOP.equals(name) ? "auth" : null;
    }

    @Override
    public void dispose() {
        principal = null;
        authorizationId = null;
    }
}
