package io.treecat.server.cli;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/** The bearer token the gRPC commands send to a server with {@code auth.enabled} (docs/security.md). */
public final class CliTokens {
    private CliTokens() {}

    /**
     * The token, from the environment only (a command line is visible to every user of the machine): {@code
     * TREECAT_TOKEN}, else {@code TREECAT_CREDENTIAL} ({@code <client id>:<secret>}) exchanged at the server's token
     * endpoint ({@code TREECAT_HTTP}, default {@value PrincipalsCommand#DEFAULT_HTTP}); neither set: no token.
     */
    public static Optional<String> fromEnvironment(Map<String, String> environment) {
        String token = environment.get("TREECAT_TOKEN");
        if (token != null && !token.isBlank()) {
            return Optional.of(token.strip());
        }
        String credential = environment.get("TREECAT_CREDENTIAL");
        if (credential == null || credential.isBlank()) {
            return Optional.empty();
        }
        String base = environment
                .getOrDefault("TREECAT_HTTP", PrincipalsCommand.DEFAULT_HTTP)
                .replaceAll("/+$", "");
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();
        return Optional.of(PrincipalsCommand.token(http, base, credential.strip()));
    }
}
