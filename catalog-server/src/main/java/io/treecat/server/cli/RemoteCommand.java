package io.treecat.server.cli;

import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.cli.Command;
import io.dropwizard.core.setup.Bootstrap;
import io.treecat.core.error.CatalogException;
import io.treecat.core.service.ReadPoint;
import io.treecat.grpc.client.TreeCatClient;
import io.treecat.grpc.client.TreeCatClientException;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.Map;
import net.sourceforge.argparse4j.impl.Arguments;
import net.sourceforge.argparse4j.inf.MutuallyExclusiveGroup;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/**
 * A command that talks gRPC to a running server ({@code --server host:port}, default {@code
 * $TREECAT_SERVER} or {@code localhost:50051}; {@code --min-vid N} to read no older than vid N). It prints JSON lines or a readable table, and on
 * failure one line naming the error, then exits non-zero.
 */
abstract class RemoteCommand extends Command {
    static final String DEFAULT_SERVER = "localhost:50051";

    RemoteCommand(String name, String description) {
        super(name, description);
    }

    @Override
    public final void configure(Subparser subparser) {
        String server = System.getenv().getOrDefault("TREECAT_SERVER", DEFAULT_SERVER);
        subparser
                .addArgument("--server")
                .dest("server")
                .setDefault(server)
                .metavar("HOST:PORT")
                .help("the TreeCat gRPC address (default " + server + ")");
        subparser
                .addArgument("--format")
                .dest("format")
                .choices("json", "table")
                .setDefault("json")
                .help("JSON lines (default) or a table");
        subparser
                .addArgument("--min-vid")
                .dest("minVid")
                .type(Long.class)
                .metavar("N")
                .help("wait until the server has published vid N before it serves the call, e.g. a commit's vid made"
                        + " through another node of a replicated group (docs/replication.md)");
        configureArguments(subparser);
    }

    abstract void configureArguments(Subparser subparser);

    abstract void run(TreeCatClient client, Namespace namespace, Output output) throws Exception;

    @Override
    public final void run(Bootstrap<?> bootstrap, Namespace namespace) throws Exception {
        Output output = new Output(System.out, namespace.getString("format").equals("table"));
        try (TreeCatClient connected = TreeCatClient.connect(namespace.getString("server"))) {
            // A view sharing the channel: closing the connected client closes both.
            TreeCatClient authenticated = CliTokens.fromEnvironment(System.getenv())
                    .map(connected::withBearerToken)
                    .orElse(connected);
            Long minVid = namespace.getLong("minVid");
            run(minVid == null ? authenticated : authenticated.withMinVid(minVid), namespace, output);
        }
        output.flush();
    }

    /** One line on standard error, no stack trace: what failed and where, as the server said it. */
    @Override
    public void onError(Cli cli, Namespace namespace, Throwable failure) {
        PrintWriter err = cli.getStdErr();
        if (failure instanceof TreeCatClientException e) {
            err.println("treecat: " + e.errorCode().orElse(e.statusCode().name()) + ": " + e.getMessage()
                    + context(e.context()));
        } else if (failure instanceof CatalogException e) {
            err.println("treecat: " + e.code() + ": " + e.getMessage() + context(e.context()));
        } else if (failure instanceof IllegalArgumentException || failure instanceof IOException) {
            err.println("treecat: " + failure.getMessage());
        } else {
            err.println("treecat: unexpected failure: " + failure);
        }
    }

    private static String context(Map<String, ?> context) {
        return context.isEmpty() ? "" : " " + context;
    }

    /** {@code --vid N}, {@code --snapshot NAME} or {@code --as-of TIME}; none reads the newest version. */
    static void addReadPoint(Subparser subparser) {
        MutuallyExclusiveGroup group = subparser.addMutuallyExclusiveGroup();
        group.addArgument("--vid").dest("vid").type(Long.class).metavar("N").help("read at this version");
        group.addArgument("--snapshot").dest("snapshot").metavar("NAME").help("read at this named snapshot");
        group.addArgument("--as-of")
                .dest("asOf")
                .metavar("TIME")
                .help("read the newest version committed at or before this RFC 3339 time, e.g. 2026-11-24T09:00:00Z");
    }

    static ReadPoint readPoint(Namespace namespace) {
        Long vid = namespace.getLong("vid");
        String snapshot = namespace.getString("snapshot");
        String asOf = namespace.getString("asOf");
        if (vid != null) {
            return ReadPoint.vid(vid);
        }
        if (asOf != null) {
            return ReadPoint.time(ReadPoint.parseTime(asOf, "--as-of"));
        }
        return snapshot != null ? ReadPoint.snapshot(snapshot) : ReadPoint.LATEST;
    }

    static void addFlag(Subparser subparser, String flag, String dest, String help) {
        subparser.addArgument(flag).dest(dest).action(Arguments.storeTrue()).help(help);
    }
}
