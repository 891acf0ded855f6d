package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.dropwizard.testing.ConfigOverride;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A server whose operator turned {@code logging.level} down to DEBUG, with an S3 warehouse: its store requests go
 * through the SDK's Apache HTTP client, whose header logger would print each request's {@code Authorization}
 * (the access key id), and the callers' own headers through Jetty. Neither key reaches a log line.
 */
class TestSecretsInDebugLogs {
    @TempDir
    Path directory;

    @Test
    void atDebugNoStoreKeyOrCallerHeaderReachesALogLine() throws Exception {
        // Events arrive from the server's threads while the test reads them: a concurrent list.
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.list = new java.util.concurrent.CopyOnWriteArrayList<>();
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        Level before = root.getLevel();
        try (S3ProxyServer s3 = new S3ProxyServer()) {
            s3.createBucket("lake");
            Path secretFile = directory.resolve("lake-s3.properties");
            Files.writeString(
                    secretFile,
                    "access-key-id=" + S3ProxyServer.ACCESS_KEY + "\nsecret-access-key=" + S3ProxyServer.SECRET_KEY
                            + "\n");
            String prefix = "warehouse.catalogs.lake.";
            try (TreeCatTestServer server = new TreeCatTestServer(
                    directory.resolve("server"),
                    TreeCatTestServer.logLevel("DEBUG"),
                    ConfigOverride.config(prefix + "location", "s3://lake/warehouse"),
                    ConfigOverride.config(prefix + "properties.s3\\.endpoint", s3.endpoint()),
                    ConfigOverride.config(prefix + "properties.s3\\.path-style-access", "true"),
                    ConfigOverride.config(prefix + "properties.client\\.region", "us-east-1"),
                    ConfigOverride.config(prefix + "credentials.source", "static"),
                    ConfigOverride.config(prefix + "credentials.secret-file", secretFile.toString()))) {
                logs.start();
                root.addAppender(logs);
                String callerSecret = "caller-header-value-7f3a";
                assertThat(server.send(
                                        "POST",
                                        "/v1/lake/namespaces",
                                        "{\"namespace\": [\"ns\"]}",
                                        "X-Caller-Secret",
                                        callerSecret)
                                .status())
                        .isEqualTo(200);
                String schema = "{\"type\": \"struct\", \"schema-id\": 0, \"fields\": [{\"id\": 1, \"name\": \"id\","
                        + " \"required\": true, \"type\": \"long\"}]}";
                assertThat(server.post("/v1/lake/namespaces/ns/tables", "{\"name\": \"t\", \"schema\": " + schema + "}")
                                .status())
                        .isEqualTo(200);
                assertThat(server.get("/v1/lake/namespaces/ns/tables/t").status())
                        .isEqualTo(200);
                root.detachAppender(logs);

                // S3Proxy, the stand-in store, logs in this JVM too (its own Jetty prints what it received): not ours.
                List<String> lines = logs.list.stream()
                        .filter(event -> !event.getLoggerName().startsWith("org.gaul."))
                        .map(event -> event.getLoggerName() + " " + event.getFormattedMessage())
                        .toList();
                // DEBUG is really on (else the check below proves nothing), and the store was really called.
                assertThat(logs.list).anyMatch(event -> event.getLevel() == Level.DEBUG);
                assertThat(s3.keys("lake")).anyMatch(key -> key.endsWith(".metadata.json"));
                assertThat(lines)
                        .noneMatch(line -> line.contains(S3ProxyServer.ACCESS_KEY))
                        .noneMatch(line -> line.contains(S3ProxyServer.SECRET_KEY))
                        .noneMatch(line -> line.contains(callerSecret));
            }
        } finally {
            root.detachAppender(logs);
            root.setLevel(before);
        }
    }
}
