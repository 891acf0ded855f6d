package io.treecat.lakehouse.auth;

/**
 * A bearer token that proves nothing: malformed, not signed by this server, expired, not yet valid, or for another
 * issuer or audience. The message says which, in fixed words; it never repeats the token.
 */
public final class InvalidTokenException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public InvalidTokenException(String message) {
        super(message, null, false, false);
    }
}
