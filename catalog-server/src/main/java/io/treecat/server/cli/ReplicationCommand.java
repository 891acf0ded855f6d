package io.treecat.server.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import net.sourceforge.argparse4j.inf.Subparsers;

/**
 * {@code treecat replication status|add ID=HOST:PORT|remove ID}: a replicated group's members, through any of its
 * nodes, over the native HTTP/JSON API (docs/replication.md, "Membership"). {@code add} returns once the new node
 * caught up and is a member; start it first, with the new member list.
 */
final class ReplicationCommand extends HttpCommand {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ROUTE = "/treecat/v1/replication";
    /** A new node catches up before it becomes a member: from a checkpoint, maybe of a big store. */
    private static final Duration CHANGE_TIMEOUT = Duration.ofMinutes(10);

    ReplicationCommand() {
        super("replication", "Shows a replicated group, or adds or removes a member (over HTTP)");
    }

    @Override
    void arguments(Subparser subparser) {
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
    void run(Call call, Namespace namespace, Output output) throws IOException {
        switch (namespace.getString("action")) {
            case "status" -> {
                JsonNode status = call.send("GET", ROUTE, null);
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
                printMembers(output, call.send("POST", ROUTE + "/members", body, CHANGE_TIMEOUT));
            }
            case "remove" ->
                printMembers(
                        output,
                        call.send(
                                "DELETE",
                                ROUTE + "/members/" + PrincipalsCommand.segment(namespace.getString("id")),
                                null,
                                CHANGE_TIMEOUT));
            default ->
                throw new IllegalArgumentException("unknown replication action " + namespace.getString("action"));
        }
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
}
