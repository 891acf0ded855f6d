package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code treecat check-config}: the defaults pass; a misspelt key or a bad value fails and is named. */
class TestCheckConfig {
    @TempDir
    Path directory;

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int check(String yaml) throws IOException {
        Path file = directory.resolve("treecat.yml");
        Files.writeString(file, yaml);
        return TreeCatMain.run(new String[] {"check-config", file.toString()}, new ByteArrayOutputStream(), err);
    }

    private String errors() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void acceptsTheEmbeddedDefaultAndAFileOfOverrides() throws IOException {
        assertThat(TreeCatMain.run(new String[] {"check-config"}, new ByteArrayOutputStream(), err))
                .isEqualTo(0);
        assertThat(
                        check(
                                "storage:\n  data-dir: /var/lib/treecat\n  rocksdb:\n    block-cache-size: 1GiB\ntransactions:\n  protocol: MGL\n"))
                .isEqualTo(0);
        assertThat(errors()).isEmpty();
    }

    @Test
    void rejectsAMisspeltKeyNamingIt() throws IOException {
        assertThat(check("storage:\n  data-dri: /tmp/x\n")).isEqualTo(1);
        assertThat(errors()).contains("Unrecognized field at: storage.data-dri").contains("data-dir");
    }

    @Test
    void rejectsBadValuesNamingTheKey() throws IOException {
        assertThat(check("transactions:\n  protocol: FASTEST\n")).isEqualTo(1);
        assertThat(errors())
                .contains(
                        "Incorrect type of value at: transactions.protocol; is of type: String, expected: ConcurrencyProtocol");

        err.reset();
        assertThat(check("grpc:\n  port: 70000\n")).isEqualTo(1);
        assertThat(errors()).contains("grpc.port must be less than or equal to 65535");
    }
}
