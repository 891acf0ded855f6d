package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.ConfigOverride;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console's files over real HTTP: served under {@code /ui/} without a token even with authentication on (they
 * hold no data; the APIs they call still need one), with the headers that keep a page to its own scripts and server,
 * and absent when {@code console.enabled} is false.
 */
class TestConsoleAssets {
    @TempDir
    Path directory;

    @Test
    void theConsoleIsServedWithoutATokenAndKeptToItsOwnScripts() throws Exception {
        try (TreeCatTestServer server =
                new TreeCatTestServer(directory, Map.of("auth.enabled", "true", "auth.admin-principals", "admin"))) {
            TreeCatTestServer.RawReply root = server.getRaw("/ui");
            assertThat(root.status()).isEqualTo(302);
            assertThat(root.header("Location")).endsWith("/ui/");

            TreeCatTestServer.RawReply page = server.getRaw("/ui/");
            assertThat(page.status()).isEqualTo(200);
            assertThat(page.header("Content-Type")).startsWith("text/html");
            assertThat(new String(page.body(), StandardCharsets.UTF_8))
                    .contains("<script type=\"module\" src=\"js/app.js\">");
            assertThat(page.header("Content-Security-Policy"))
                    .contains("script-src 'self'")
                    .contains("connect-src 'self'")
                    .contains("frame-ancestors 'none'");
            assertThat(page.header("X-Content-Type-Options")).isEqualTo("nosniff");

            TreeCatTestServer.RawReply script = server.getRaw("/ui/js/app.js");
            assertThat(script.status()).isEqualTo(200);
            assertThat(script.header("Content-Type")).startsWith("text/javascript");
            // Revalidated by ETag: an unchanged file is a 304.
            assertThat(server.getRaw("/ui/js/app.js", "If-None-Match", script.header("ETag"))
                            .status())
                    .isEqualTo(304);

            assertThat(server.getRaw("/ui/js/no-such-module.js").status()).isEqualTo(404);
            // The data is not: the native API still needs a token.
            assertThat(server.getRaw("/treecat/v1/query?q=%2F*").status()).isEqualTo(401);
        }
    }

    @Test
    void aDisabledConsoleIsNotFound() throws Exception {
        try (TreeCatTestServer server =
                new TreeCatTestServer(directory, ConfigOverride.config("console.enabled", "false"))) {
            assertThat(server.getRaw("/ui/").status()).isEqualTo(404);
            assertThat(server.getRaw("/ui/js/app.js").status()).isEqualTo(404);
        }
    }
}
