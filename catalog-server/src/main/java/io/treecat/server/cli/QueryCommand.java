package io.treecat.server.cli;

import io.treecat.core.version.ChildKinds;
import io.treecat.grpc.client.QueryResults;
import io.treecat.grpc.client.QuerySpec;
import io.treecat.grpc.client.TreeCatClient;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/** {@code treecat query QUERY}: streams a path query's results. */
final class QueryCommand extends RemoteCommand {
    QueryCommand() {
        super("query", "Runs a path query on a server and streams the results");
    }

    @Override
    void configureArguments(Subparser subparser) {
        subparser.addArgument("query").metavar("QUERY").help("a path query, e.g. \"/[obj_id='retail']/*\"");
        addReadPoint(subparser);
        subparser
                .addArgument("--results")
                .dest("results")
                .choices("leaves", "inner", "both")
                .setDefault("both")
                .help("which kinds of objects the last step returns (default both)");
        subparser
                .addArgument("--fields")
                .dest("fields")
                .metavar("A.B,C")
                .help("keep only these dotted fields of each value");
        subparser
                .addArgument("--limit")
                .dest("limit")
                .type(Integer.class)
                .setDefault(0)
                .metavar("N")
                .help("at most N results (default: all)");
    }

    @Override
    void run(TreeCatClient client, Namespace namespace, Output output) {
        String fields = namespace.getString("fields");
        QuerySpec spec = QuerySpec.of(namespace.getString("query"))
                .at(readPoint(namespace))
                .withResults(ChildKinds.valueOf(namespace.getString("results").toUpperCase(Locale.ROOT)))
                .withProjection(
                        fields == null
                                ? List.of()
                                : Arrays.stream(fields.split(","))
                                        .map(String::trim)
                                        .toList())
                .withLimit(namespace.getInt("limit"));
        try (QueryResults results = client.query(spec)) {
            results.forEachRemaining(output::object);
        }
    }
}
