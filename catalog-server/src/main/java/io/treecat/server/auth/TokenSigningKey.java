package io.treecat.server.auth;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;

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

    private TokenSigningKey() {}

    /** The configured key, else the generated one (made now if absent). */
    public static byte[] load(Optional<Path> configured, Path dataDir, SecureRandom random) {
        if (configured.isPresent()) {
            return read(configured.get(), SETTING);
        }
        Path generated = dataDir.resolve(GENERATED_NAME);
        if (!Files.exists(generated)) {
            create(generated, random);
        }
        return read(generated, "the generated token signing key (" + GENERATED_NAME + " in storage.data-dir)");
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

    private static void create(Path file, SecureRandom random) {
        byte[] key = new byte[GENERATED_BYTES];
        random.nextBytes(key);
        byte[] text = (Base64.getEncoder().encodeToString(key) + "\n").getBytes(StandardCharsets.US_ASCII);
        try {
            Files.createDirectories(file.getParent());
            try {
                Files.createFile(
                        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } catch (UnsupportedOperationException e) {
                Files.createFile(file); // not a POSIX file system: its default permissions
            }
            Files.write(file, text);
        } catch (FileAlreadyExistsException e) {
            // Another start made it first: that one is read.
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create the token signing key in storage.data-dir", e);
        }
    }
}
