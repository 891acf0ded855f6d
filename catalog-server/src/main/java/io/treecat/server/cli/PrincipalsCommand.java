package io.treecat.server.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.cli.Command;
import io.dropwizard.core.setup.Bootstrap;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import net.sourceforge.argparse4j.inf.Subparsers;

/**
 * {@code treecat principals create|list|rotate|delete}: the built-in principals (docs/security.md), over the native
 * HTTP/JSON API ({@code --http}, default {@code $TREECAT_HTTP} or {@code http://localhost:8181}), since the gRPC API
 * serves no principal calls. With auth on, the command gets a token with a
 * credential ({@code <client id>:<secret>}) from {@code --credential-file} or {@code $TREECAT_CREDENTIAL}, never
 * from the command line (where {@code ps} would show it). {@code create} and {@code rotate} print the secret: the
 * only time it is shown.
 */
final class PrincipalsCommand extends Command {
    static final String DEFAULT_HTTP = "http://localhost:8181";
    private static final ObjectMapper JSON = new ObjectMapper();
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    PrincipalsCommand() {
        super("principals", "Creates, lists, rotates or deletes built-in principals (over HTTP)");
    }

    @Override
    public void configure(Subparser subparser) {
        addHttpArguments(subparser);
        Subparsers actions = subparser.addSubparsers().dest("action").metavar("ACTION");
        actions.addParser("create")
                .help("creates a principal and prints its secret, once")
                .addArgument("name")
                .metavar("NAME");
        actions.addParser("list").help("lists every principal (never a secret)");
        actions.addParser("rotate")
                .help("gives a principal a new secret and prints it, once")
                .addArgument("name")
                .metavar("NAME");
        actions.addParser("delete")
                .help("deletes a principal")
                .addArgument("name")
                .metavar("NAME");
    }

    @Override
    public void run(Bootstrap<?> bootstrap, Namespace namespace) throws Exception {
        Output output = new Output(System.out, namespace.getString("format").equals("table"));
        String base = namespace.getString("http").replaceAll("/+$", "");
        HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
        Optional<String> token =
                credential(namespace.getString("credentialFile")).map(pair -> token(http, base, pair));
        String principals = base + "/treecat/v1/principals";
        switch (namespace.getString("action")) {
            case "create" ->
                printPrincipal(
                        output,
                        send(
                                http,
                                token,
                                "POST",
                                principals,
                                JSON.writeValueAsString(Map.of("name", namespace.getString("name")))));
            case "list" -> {
                for (JsonNode principal :
                        send(http, token, "GET", principals, null).path("principals")) {
                    printPrincipal(output, principal);
                }
            }
            case "rotate" ->
                printPrincipal(
                        output,
                        send(
                                http,
                                token,
                                "POST",
                                principals + "/" + segment(namespace.getString("name")) + "/rotate",
                                ""));
            case "delete" -> {
                send(http, token, "DELETE", principals + "/" + segment(namespace.getString("name")), null);
                output.record(Output.fields("deleted", namespace.getString("name")));
            }
            default -> throw new IllegalArgumentException("unknown principals action " + namespace.getString("action"));
        }
        output.flush();
    }

    /** One line on standard error, no stack trace: what failed, as the server said it. */
    @Override
    public void onError(Cli cli, Namespace namespace, Throwable failure) {
        HttpCommand.reportFailure(cli, failure);
    }

    private static void printPrincipal(Output output, JsonNode principal) {
        Map<String, Object> fields = Output.fields(
                "name", principal.path("name").asText(),
                "client_id", principal.path("client_id").asText(),
                "created", principal.path("created").asText(),
                "secret_set", principal.path("secret_set").asText());
        if (principal.hasNonNull("credential")) {
            fields.put("credential", principal.get("credential").asText());
        }
        output.record(fields);
    }

    /** {@code --http}, {@code --credential-file} and {@code --format}: what every command over the HTTP API takes. */
    static void addHttpArguments(Subparser subparser) {
        String http = System.getenv().getOrDefault("TREECAT_HTTP", DEFAULT_HTTP);
        subparser
                .addArgument("--http")
                .dest("http")
                .setDefault(http)
                .metavar("URL")
                .help("the TreeCat HTTP address (default " + http + ")");
        subparser
                .addArgument("--credential-file")
                .dest("credentialFile")
                .metavar("FILE")
                .help("a file holding <client id>:<secret> (default: $TREECAT_CREDENTIAL, else no token)");
        subparser
                .addArgument("--format")
                .dest("format")
                .choices("json", "table")
                .setDefault("json")
                .help("JSON lines (default) or a table");
    }

    static Optional<String> credential(String file) throws IOException {
        if (file != null) {
            return Optional.of(
                    Files.readString(Path.of(file), StandardCharsets.UTF_8).strip());
        }
        String fromEnvironment = System.getenv("TREECAT_CREDENTIAL");
        return fromEnvironment == null || fromEnvironment.isBlank()
                ? Optional.empty()
                : Optional.of(fromEnvironment.strip());
    }

    /** A token for {@code id:secret} from the server's token endpoint (the gRPC commands use it too). */
    static String token(HttpClient http, String base, String credential) {
        int colon = credential.indexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("A credential is <client id>:<secret>");
        }
        String form = "grant_type=client_credentials&client_id="
                + URLEncoder.encode(credential.substring(0, colon), StandardCharsets.UTF_8) + "&client_secret="
                + URLEncoder.encode(credential.substring(colon + 1), StandardCharsets.UTF_8);
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + "/v1/oauth/tokens"))
                .timeout(TIMEOUT)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form))
                .build();
        JsonNode answer = exchange(http, request);
        return answer.path("access_token").asText();
    }

    static JsonNode send(HttpClient http, Optional<String> token, String method, String url, String body) {
        return send(http, token, method, url, body, TIMEOUT);
    }

    static JsonNode send(
            HttpClient http, Optional<String> token, String method, String url, String body, Duration timeout) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(url))
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        token.ifPresent(value -> builder.header("Authorization", "Bearer " + value));
        return exchange(http, builder.build());
    }

    /** The answer's JSON (empty for 204); a failure is an IllegalArgumentException with the server's own message. */
    private static JsonNode exchange(HttpClient http, HttpRequest request) {
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot reach " + request.uri().getHost() + ":"
                    + request.uri().getPort() + " (" + e.getClass().getSimpleName() + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        JsonNode json;
        try {
            json = response.body().isEmpty() ? JSON.createObjectNode() : JSON.readTree(response.body());
        } catch (IOException e) {
            throw new IllegalArgumentException("HTTP " + response.statusCode() + ": the answer is not JSON");
        }
        if (response.statusCode() >= 300) {
            JsonNode error = json.path("error");
            String message = error.isObject()
                    ? error.path("type").asText() + ": " + error.path("message").asText()
                            + (error.path("context").isObject()
                                            && !error.path("context").isEmpty()
                                    ? " " + error.path("context")
                                    : "")
                    : error.asText() + ": " + json.path("error_description").asText();
            throw new IllegalArgumentException("HTTP " + response.statusCode() + " " + message);
        }
        return json;
    }

    static String segment(String name) {
        return URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
