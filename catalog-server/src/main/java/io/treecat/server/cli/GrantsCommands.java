package io.treecat.server.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import net.sourceforge.argparse4j.inf.Subparsers;

/**
 * {@code treecat roles}, {@code treecat grants} and {@code treecat who-can}: roles, their members and grants
 * (docs/security.md, "Managing grants"), over the native HTTP/JSON API like {@code treecat principals} (the same
 * {@code --http}, {@code --credential-file} / {@code $TREECAT_CREDENTIAL} and {@code --format}). Each passes {@code
 * MANAGE_GRANTS} on the server.
 */
final class GrantsCommands {
    private static final ObjectMapper JSON = new ObjectMapper();

    private GrantsCommands() {}

    private static final String ROOT = "/treecat/v1";

    private static void addReadPoint(Subparser parser) {
        parser.addArgument("--vid").dest("vid").type(Long.class).help("as of this vid (grants are versioned)");
    }

    private static String readPoint(Namespace namespace, String separator) {
        Long vid = namespace.getLong("vid");
        return vid == null ? "" : separator + "vid=" + vid;
    }

    /** {@code treecat roles create|drop|list|assign|unassign}. */
    static final class Roles extends HttpCommand {
        Roles() {
            super("roles", "Creates, drops or lists roles; assigns them to principals (over HTTP)");
        }

        @Override
        void arguments(Subparser subparser) {
            Subparsers actions = subparser.addSubparsers().dest("action").metavar("ACTION");
            actions.addParser("create")
                    .help("creates a role")
                    .addArgument("role")
                    .metavar("ROLE");
            actions.addParser("drop")
                    .help("drops a role, its members and every grant to it")
                    .addArgument("role")
                    .metavar("ROLE");
            addReadPoint(actions.addParser("list").help("lists every role and its members"));
            Subparser assign = actions.addParser("assign").help("gives a principal a role");
            assign.addArgument("role").metavar("ROLE");
            assign.addArgument("principal").metavar("PRINCIPAL");
            Subparser unassign = actions.addParser("unassign").help("takes a role from a principal");
            unassign.addArgument("role").metavar("ROLE");
            unassign.addArgument("principal").metavar("PRINCIPAL");
        }

        @Override
        void run(Call call, Namespace namespace, Output output) throws IOException {
            String role = namespace.getString("role");
            switch (namespace.getString("action")) {
                case "create" -> {
                    JsonNode made = call.send("POST", ROOT + "/roles", JSON.writeValueAsString(Map.of("name", role)));
                    output.record(Output.fields("created", made.path("name").asText()));
                }
                case "drop" -> {
                    call.send("DELETE", ROOT + "/roles/" + PrincipalsCommand.segment(role), null);
                    output.record(Output.fields("dropped", role));
                }
                case "list" -> {
                    for (JsonNode each : call.send("GET", ROOT + "/roles" + readPoint(namespace, "?"), null)
                            .path("roles")) {
                        output.record(Output.fields(
                                "role", each.path("name").asText(),
                                "created", each.path("created").asText(),
                                "members", String.join(",", JSON.convertValue(each.path("members"), String[].class))));
                    }
                }
                case "assign", "unassign" -> {
                    String principal = namespace.getString("principal");
                    call.send(
                            namespace.getString("action").equals("assign") ? "PUT" : "DELETE",
                            ROOT + "/roles/" + PrincipalsCommand.segment(role) + "/members/"
                                    + PrincipalsCommand.segment(principal),
                            null);
                    output.record(Output.fields(namespace.getString("action") + "ed", principal, "role", role));
                }
                default -> throw new IllegalArgumentException("unknown roles action " + namespace.getString("action"));
            }
        }
    }

    /** {@code treecat grants grant|revoke|list}. */
    static final class GrantsCommand extends HttpCommand {
        GrantsCommand() {
            super("grants", "Grants, revokes or lists privileges on a path (over HTTP)");
        }

        @Override
        void arguments(Subparser subparser) {
            Subparsers actions = subparser.addSubparsers().dest("action").metavar("ACTION");
            for (String action : new String[] {"grant", "revoke"}) {
                Subparser parser = actions.addParser(action)
                        .help(action + "s PRIVILEGE on PATH (and below) to --role or --principal");
                parser.addArgument("privilege").metavar("PRIVILEGE").help("e.g. TABLE_READ_DATA (docs/security.md)");
                parser.addArgument("path").metavar("PATH").help("e.g. /warehouse/sales, or / for everything");
                parser.addArgument("--role").dest("role").metavar("ROLE");
                parser.addArgument("--principal").dest("principal").metavar("PRINCIPAL");
            }
            Subparser list = actions.addParser("list").help("lists the grants on PATH and below (default /)");
            list.addArgument("path").metavar("PATH").nargs("?").setDefault("/");
            addReadPoint(list);
        }

        @Override
        void run(Call call, Namespace namespace, Output output) throws IOException {
            String action = namespace.getString("action");
            if (action.equals("list")) {
                String path = ROOT + "/grants?on=" + PrincipalsCommand.segment(namespace.getString("path"))
                        + readPoint(namespace, "&");
                for (JsonNode grant : call.send("GET", path, null).path("grants")) {
                    output.record(row(grant));
                }
                return;
            }
            Map<String, String> body = new LinkedHashMap<>();
            if (namespace.getString("role") != null) {
                body.put("role", namespace.getString("role"));
            }
            if (namespace.getString("principal") != null) {
                body.put("principal", namespace.getString("principal"));
            }
            body.put("privilege", namespace.getString("privilege"));
            body.put("on", namespace.getString("path"));
            JsonNode answer = call.send(
                    "POST",
                    ROOT + (action.equals("grant") ? "/grants" : "/grants/revoke"),
                    JSON.writeValueAsString(body));
            Map<String, Object> fields = row(action.equals("grant") ? answer : JSON.valueToTree(body));
            fields.put("done", action.equals("grant") ? "granted" : "revoked");
            output.record(fields);
        }

        private static Map<String, Object> row(JsonNode grant) {
            return Output.fields(
                    "grantee",
                    grant.hasNonNull("role")
                            ? "role " + grant.get("role").asText()
                            : "principal " + grant.path("principal").asText(),
                    "privilege",
                    grant.path("privilege").asText(),
                    "on",
                    grant.path("on").asText());
        }
    }

    /** {@code treecat who-can PATH}: who may do what on a path, directly, through a role, or as an admin. */
    static final class WhoCan extends HttpCommand {
        WhoCan() {
            super("who-can", "Prints who can do what on a path, and through which grant (over HTTP)");
        }

        @Override
        void arguments(Subparser subparser) {
            subparser.addArgument("path").metavar("PATH").help("e.g. /warehouse/sales/orders");
            addReadPoint(subparser);
        }

        @Override
        void run(Call call, Namespace namespace, Output output) {
            String path = ROOT + "/who-can?path=" + PrincipalsCommand.segment(namespace.getString("path"))
                    + readPoint(namespace, "&");
            for (JsonNode holder : call.send("GET", path, null).path("holders")) {
                output.record(Output.fields(
                        "principal",
                        holder.hasNonNull("principal") ? holder.get("principal").asText() : "(no member)",
                        "privilege",
                        holder.path("privilege").asText(),
                        "on",
                        holder.path("on").asText(),
                        "via",
                        holder.hasNonNull("role") ? "role " + holder.get("role").asText() : "direct"));
            }
        }
    }
}
