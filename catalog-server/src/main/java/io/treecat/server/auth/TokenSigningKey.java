package io.treecat.server.auth;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The key the server signs and checks its bearer tokens with (HS256): from {@code auth.token-signing-key-file}, or
 * generated at first start into {@value #GENERATED_NAME} in the data directory, readable by the server's user only.
 * Either file holds at least 32 bytes as Base64 ({@code openssl rand -base64 48}). The key is never logged, and
 * errors name the setting, never the file's content.
 *
 * <p>Why a file and not the tree: the tree is readable through the native API's path queries, change feed and
 * export, which authorization does not filter yet (the next slice of issue 18); anyone who read the key could make a
 * token for any principal. A restore that loses the file makes a new key: tokens already issued are refused, and
 * clients get new ones with their credentials.
 */
public final class TokenSigningKey {
    /** The generated key's file name in the data directory. */
    public static final String GENERATED_NAME = "treecat-token-signing.key";

    private static final int GENERATED_BYTES = 48;
    private static final int MIN_BYTES = 32;
    private static final String SETTING = "auth.token-signing-key-file";
    private static final Logger LOG = LoggerFactory.getLogger(TokenSigningKey.class);

    private TokenSigningKey() {}

    /** The configured key, else the generated one (made now if absent). */
    public static byte[] load(Optional<Path> configured, Path dataDir, SecureRandom random) {
        if (configured.isPresent()) {
            checkMode(configured.get(), false, SETTING);
            return read(configured.get(), SETTING);
        }
        Path generated = dataDir.resolve(GENERATED_NAME);
        if (!Files.exists(generated)) {
            create(generated, random);
        }
        String what = "the generated token signing key (" + GENERATED_NAME + " in storage.data-dir)";
        checkMode(generated, true, what);
        return read(generated, what);
    }

    private static byte[] read(Path file, String what) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.US_ASCII).strip();
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException(
                    "Cannot read " + what + ": " + e.getClass().getSimpleName());
        }
        byte[] key;
        try {
            // Strict decoders (line breaks aside): a file of anything else is refused, not half-read.
            String compact = text.replaceAll("\\s+", "");
            key = compact.indexOf('-') >= 0 || compact.indexOf('_') >= 0
                    ? Base64.getUrlDecoder().decode(compact)
                    : Base64.getDecoder().decode(compact);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(what + " must hold Base64 (e.g. the output of 'openssl rand -base64 48')");
        }
        if (key.length < MIN_BYTES) {
            throw new IllegalStateException(
                    what + " must hold at least " + MIN_BYTES + " bytes of Base64, it holds " + key.length);
        }
        return key;
    }

    /**
     * Writes a new key so that no reader ever sees a partial file and no other user can ever read it: the bytes go to
     * a temporary file created owner-only (the mode is set at creation, not by a chmod after the write), which is
     * then hard-linked to the final name. The link fails if the name exists, so of two servers starting on one data
     * directory at once exactly one key wins and both read it (the loser then stops on RocksDB's lock).
     */
    private static void create(Path file, SecureRandom random) {
        byte[] key = new byte[GENERATED_BYTES];
        random.nextBytes(key);
        byte[] text = (Base64.getEncoder().encodeToString(key) + "\n").getBytes(StandardCharsets.US_ASCII);
        Arrays.fill(key, (byte) 0);
        Path temporary = null;
        try {
            Files.createDirectories(file.getParent());
            temporary = ownerOnlyTemporary(file.getParent());
            Files.write(temporary, text);
            try {
                Files.createLink(file, temporary);
            } catch (UnsupportedOperationException e) {
                // No hard links here: a move that refuses an existing target (not atomic against a concurrent start
                // on such a file system, but never a partial file).
                Files.move(temporary, file);
                temporary = null;
            }
        } catch (FileAlreadyExistsException e) {
            // Another start made it first: that one is read.
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create the token signing key in storage.data-dir", e);
        } finally {
            Arrays.fill(text, (byte) 0);
            if (temporary != null) {
                try {
                    Files.deleteIfExists(temporary);
                } catch (IOException e) {
                    // A stray owner-only temporary file; the key itself is in place.
                }
            }
        }
    }

    private static Path ownerOnlyTemporary(Path directory) throws IOException {
        try {
            return Files.createTempFile(
                    directory,
                    GENERATED_NAME,
                    ".tmp",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            return Files.createTempFile(directory, GENERATED_NAME, ".tmp"); // not POSIX: its default permissions
        }
    }

    /**
     * Refuses the generated key once anyone but its owner may read or change it (it was made owner-only, so
     * something changed it: a copy or a restore with other modes); a configured key that others may read is only
     * warned about, since how it is mounted (a Kubernetes Secret's {@code defaultMode}, a group for the pod) is the
     * operator's choice.
     */
    static void checkMode(Path file, boolean generated, String what) {
        Set<PosixFilePermission> permissions;
        try {
            permissions = Files.getPosixFilePermissions(file);
        } catch (UnsupportedOperationException | IOException e) {
            return; // not POSIX, or unreadable (the read below says so)
        }
        boolean othersMay = permissions.contains(PosixFilePermission.OTHERS_READ)
                || permissions.contains(PosixFilePermission.OTHERS_WRITE);
        boolean groupMay = permissions.contains(PosixFilePermission.GROUP_READ)
                || permissions.contains(PosixFilePermission.GROUP_WRITE);
        if (generated && (othersMay || groupMay)) {
            throw new IllegalStateException(what + " may be read or changed by users other than its owner ("
                    + PosixFilePermissions.toString(permissions)
                    + "): anyone who reads it can make a token for any principal. Run 'chmod 600' on it, or delete"
                    + " it to make a new key (issued tokens are then refused)");
        }
        if (othersMay) {
            LOG.warn(
                    "{} may be read by every user of this machine ({}): anyone who reads it can make a token for any"
                            + " principal. Make it readable by the server's user only (chmod 600)",
                    what,
                    PosixFilePermissions.toString(permissions));
        }
    }
}
