package io.treecat.server.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.cli.Command;
import io.dropwizard.core.setup.Bootstrap;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import net.sourceforge.argparse4j.inf.Subparsers;

/**
 * {@code treecat replication status|add ID=HOST:PORT|remove ID}: a replicated group's members, through any of its
 * nodes, over the native HTTP/JSON API ({@code --http}, as {@code treecat principals}; docs/replication.md,
 * "Membership"). {@code add} returns once the new node caught up and is a member; start it first, with the new member
 * list.
 */
final class ReplicationCommand extends Command {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** A new node catches up before it becomes a member: from a checkpoint, maybe of a big store. */
    private static final Duration CHANGE_TIMEOUT = Duration.ofMinutes(10);

    ReplicationCommand() {
        super("replication", "Shows a replicated group, or adds or removes a member (over HTTP)");
    }

    @Override
    public void configure(Subparser subparser) {
        PrincipalsCommand.addHttpArguments(subparser);
        Subparsers actions = subparser.addSubparsers().dest("action").metavar("ACTION");
        actions.addParser("status").help("this node, the leader it knows, its log indexes and the members");
        actions.addParser("add")
                .help("adds a running node (started with the new member list) once it caught up")
                .addArgument("member")
                .metavar("ID=HOST:PORT");
        actions.addParser("remove")
                .help("removes a member; stop its server afterwards")
                .addArgument("id")
                .metavar("ID");
    }

    @Override
    public void run(Bootstrap<?> bootstrap, Namespace namespace) throws Exception {
        Output output = new Output(System.out, namespace.getString("format").equals("table"));
        String base = namespace.getString("http").replaceAll("/+$", "");
        HttpClient http = HttpClient.newBuilder()
                .connectTimeout(PrincipalsCommand.TIMEOUT)
                .build();
        Optional<String> token = PrincipalsCommand.credential(namespace.getString("credentialFile"))
                .map(pair -> PrincipalsCommand.token(http, base, pair));
        String replication = base + "/treecat/v1/replication";
        switch (namespace.getString("action")) {
            case "status" -> {
                JsonNode status = PrincipalsCommand.send(http, token, "GET", replication, null);
                output.record(Output.fields(
                        "node", status.path("node").asText(),
                        "leader", status.path("leader").asText(""),
                        "term", status.path("term").asLong(),
                        "commit_index", status.path("commit_index").asLong(),
                        "applied_index", status.path("applied_index").asLong(),
                        "members", status.path("members").size()));
                printMembers(output, status);
            }
            case "add" -> {
                String member = namespace.getString("member");
                int equals = member.indexOf('=');
                if (equals <= 0 || equals == member.length() - 1) {
                    throw new IllegalArgumentException("a member is ID=HOST:PORT, e.g. n4=treecat-3.treecat:9190");
                }
                String body = JSON.writeValueAsString(
                        Map.of("id", member.substring(0, equals), "address", member.substring(equals + 1)));
                printMembers(
                        output,
                        PrincipalsCommand.send(http, token, "POST", replication + "/members", body, CHANGE_TIMEOUT));
            }
            case "remove" ->
                printMembers(
                        output,
                        PrincipalsCommand.send(
                                http,
                                token,
                                "DELETE",
                                replication + "/members/" + PrincipalsCommand.segment(namespace.getString("id")),
                                null,
                                CHANGE_TIMEOUT));
            default ->
                throw new IllegalArgumentException("unknown replication action " + namespace.getString("action"));
        }
        output.flush();
    }

    private static void printMembers(Output output, JsonNode answer) {
        for (JsonNode member : answer.path("members")) {
            output.record(Output.fields(
                    "member",
                    member.path("id").asText(),
                    "address",
                    member.path("address").asText()));
        }
    }

    /** One line on standard error, no stack trace: what failed, as the server said it. */
    @Override
    public void onError(Cli cli, Namespace namespace, Throwable failure) {
        PrintWriter err = cli.getStdErr();
        if (failure instanceof IllegalArgumentException || failure instanceof IOException) {
            err.println("treecat: " + failure.getMessage());
        } else {
            err.println("treecat: unexpected failure: " + failure.getClass().getSimpleName());
        }
    }
}
