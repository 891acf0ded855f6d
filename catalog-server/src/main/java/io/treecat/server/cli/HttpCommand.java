package io.treecat.server.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.cli.Command;
import io.dropwizard.core.setup.Bootstrap;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Optional;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/**
 * A command over the native HTTP/JSON API ({@code roles}, {@code grants}, {@code who-can}, {@code replication}): the
 * options every one takes ({@code --http}, {@code --credential-file}, {@code --format}, as {@code treecat
 * principals}), a token if a credential is given, then its calls; a failure is one line on standard error.
 */
abstract class HttpCommand extends Command {
    HttpCommand(String name, String description) {
        super(name, description);
    }

    /** One call of the API: a path under the server's base address, and the answer's JSON. */
    interface Call {
        JsonNode send(String method, String path, String body);

        /** A call that may take longer than the usual {@link PrincipalsCommand#TIMEOUT}. */
        JsonNode send(String method, String path, String body, Duration timeout);
    }

    @Override
    public final void configure(Subparser subparser) {
        PrincipalsCommand.addHttpArguments(subparser);
        arguments(subparser);
    }

    abstract void arguments(Subparser subparser);

    abstract void run(Call call, Namespace namespace, Output output) throws IOException;

    @Override
    public final void run(Bootstrap<?> bootstrap, Namespace namespace) throws Exception {
        Output output = new Output(System.out, namespace.getString("format").equals("table"));
        String base = namespace.getString("http").replaceAll("/+$", "");
        HttpClient http = HttpClient.newBuilder()
                .connectTimeout(PrincipalsCommand.TIMEOUT)
                .build();
        Optional<String> token = PrincipalsCommand.credential(namespace.getString("credentialFile"))
                .map(pair -> PrincipalsCommand.token(http, base, pair));
        run(
                new Call() {
                    @Override
                    public JsonNode send(String method, String path, String body) {
                        return PrincipalsCommand.send(http, token, method, base + path, body);
                    }

                    @Override
                    public JsonNode send(String method, String path, String body, Duration timeout) {
                        return PrincipalsCommand.send(http, token, method, base + path, body, timeout);
                    }
                },
                namespace,
                output);
        output.flush();
    }

    /** One line on standard error, no stack trace: what failed, as the server said it. */
    @Override
    public void onError(Cli cli, Namespace namespace, Throwable failure) {
        reportFailure(cli, failure);
    }

    /** One line on standard error, no stack trace: what failed, as the server said it. */
    static void reportFailure(Cli cli, Throwable failure) {
        PrintWriter err = cli.getStdErr();
        if (failure instanceof IllegalArgumentException || failure instanceof IOException) {
            err.println("treecat: " + failure.getMessage());
        } else {
            err.println("treecat: unexpected failure: " + failure.getClass().getSimpleName());
        }
    }
}
