package io.treecat.server.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The token signing key: from the configured file, or generated once, owner-only, and read back at every start. */
class TestTokenSigningKey {
    @TempDir
    Path directory;

    @Test
    void aGeneratedKeyIsOwnerOnlyAndTheSameAtTheNextStart() throws Exception {
        Path data = directory.resolve("data");
        byte[] first = TokenSigningKey.load(Optional.empty(), data, new SecureRandom());
        byte[] second = TokenSigningKey.load(Optional.empty(), data, new SecureRandom());

        assertThat(first).hasSize(48).isEqualTo(second);
        Path file = data.resolve(TokenSigningKey.GENERATED_NAME);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .isEqualTo("rw-------");
    }

    @Test
    void serversStartingTogetherOnOneDataDirectoryReadOneWholeKey() throws Exception {
        // Each start that finds no key makes one; before the key was linked into place whole, a start could read
        // another's empty or half-written file (refused, or worse: a different, shorter key).
        for (int round = 0; round < 20; round++) {
            Path data = directory.resolve("data-" + round);
            int starts = 8;
            java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(starts);
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(starts);
            try {
                List<java.util.concurrent.Future<byte[]>> keys = new java.util.ArrayList<>();
                for (int i = 0; i < starts; i++) {
                    keys.add(pool.submit(() -> {
                        together.await();
                        return TokenSigningKey.load(Optional.empty(), data, new SecureRandom());
                    }));
                }
                byte[] first = keys.get(0).get();
                assertThat(first).hasSize(48);
                for (java.util.concurrent.Future<byte[]> key : keys) {
                    assertThat(key.get()).isEqualTo(first);
                }
            } finally {
                pool.shutdownNow();
            }
            try (java.util.stream.Stream<Path> files = Files.list(data)) {
                assertThat(files.map(path -> path.getFileName().toString()))
                        .containsExactly(TokenSigningKey.GENERATED_NAME);
            }
        }
    }

    @Test
    void aGeneratedKeyThatOthersMayReadIsRefused() throws Exception {
        Path data = directory.resolve("data");
        TokenSigningKey.load(Optional.empty(), data, new SecureRandom());
        Path file = data.resolve(TokenSigningKey.GENERATED_NAME);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));

        assertThatThrownBy(() -> TokenSigningKey.load(Optional.empty(), data, new SecureRandom()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("may be read or changed by users other than its owner (rw-r--r--)")
                .hasMessageContaining("chmod 600");
    }

    @Test
    void aConfiguredKeyIsReadAsBase64() throws Exception {
        byte[] key = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8);
        Path file = directory.resolve("key");
        Files.writeString(file, Base64.getEncoder().encodeToString(key) + "\n");

        assertThat(TokenSigningKey.load(Optional.of(file), directory, new SecureRandom()))
                .isEqualTo(key);
        assertThat(directory.resolve(TokenSigningKey.GENERATED_NAME)).doesNotExist();
    }

    @Test
    void aShortOrMalformedKeyFailsNamingTheSettingNotTheContent() throws Exception {
        Path shortKey = directory.resolve("short");
        Files.writeString(shortKey, Base64.getEncoder().encodeToString(new byte[16]));
        assertThatThrownBy(() -> TokenSigningKey.load(Optional.of(shortKey), directory, new SecureRandom()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("auth.token-signing-key-file must hold at least 32 bytes of Base64, it holds 16");

        Path garbage = directory.resolve("garbage");
        Files.writeString(garbage, "not base64 at all: s3cr3t!");
        assertThatThrownBy(() -> TokenSigningKey.load(Optional.of(garbage), directory, new SecureRandom()))
                .hasMessage(
                        "auth.token-signing-key-file must hold Base64 (e.g. the output of 'openssl rand -base64 48')")
                .hasMessageNotContaining("s3cr3t");

        assertThatThrownBy(() ->
                        TokenSigningKey.load(Optional.of(directory.resolve("missing")), directory, new SecureRandom()))
                .hasMessage("Cannot read auth.token-signing-key-file: NoSuchFileException");
    }
}
