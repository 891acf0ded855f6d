package io.treecat.lakehouse.auth;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;

/**
 * Makes the secrets of built-in principals and hashes them with bcrypt (BouncyCastle's {@link OpenBSDBCrypt}): a
 * slow, salted hash, so that a copy of the tree gives no usable secret. A secret is 32 random bytes, URL-safe
 * Base64 (43 characters, within bcrypt's 72-byte limit), shown once when it is made.
 *
 * @param cost bcrypt's cost (log2 of its rounds), 4 to 31; each check takes about 2^cost key expansions
 */
public record SecretHasher(int cost) {
    /** The cost of production hashes: tens of milliseconds per check, paid once per token, not per request. */
    public static final int DEFAULT_COST = 10;

    public static final SecretHasher DEFAULT = new SecretHasher(DEFAULT_COST);

    /** The bytes of randomness in a secret. */
    public static final int SECRET_BYTES = 32;

    private static final int SALT_BYTES = 16;

    /** Checked instead of a secret longer than bcrypt reads; no secret we make is this (ours are Base64). */
    private static final String LONG_SECRET_STAND_IN = "(a secret too long for bcrypt)";

    public SecretHasher {
        if (cost < 4 || cost > 31) {
            throw new IllegalArgumentException("bcrypt cost must be between 4 and 31: " + cost);
        }
    }

    /** A new random secret: 32 bytes from {@code random}, URL-safe Base64 without padding. */
    public static String newSecret(SecureRandom random) {
        return randomText(random, SECRET_BYTES);
    }

    /** {@code bytes} random bytes as URL-safe Base64 without padding. */
    static String randomText(SecureRandom random, int bytes) {
        byte[] data = new byte[bytes];
        random.nextBytes(data);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(data);
    }

    /** The bcrypt hash of {@code secret} with a new random salt, in OpenBSD form ({@code $2y$<cost>$…}). */
    public String hash(String secret, SecureRandom random) {
        byte[] salt = new byte[SALT_BYTES];
        random.nextBytes(salt);
        return OpenBSDBCrypt.generate("2y", secret.toCharArray(), salt, cost);
    }

    /**
     * Whether {@code secret} is the one {@code hash} was made from; false for a malformed hash. Every call costs one
     * bcrypt check, whatever the secret: a refusal that returned at once for some secrets (one too long for bcrypt)
     * would let a caller tell an existing client id, checked here, from an unknown one, checked against a decoy.
     */
    public static boolean matches(String hash, String secret) {
        // bcrypt reads only 72 bytes: a longer secret is none we made, but it is refused at bcrypt's pace.
        boolean tooLong = secret.getBytes(StandardCharsets.UTF_8).length > 72;
        try {
            boolean same = OpenBSDBCrypt.checkPassword(hash, (tooLong ? LONG_SECRET_STAND_IN : secret).toCharArray());
            return same && !tooLong;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
