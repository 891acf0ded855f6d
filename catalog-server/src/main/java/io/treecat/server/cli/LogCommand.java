package io.treecat.server.cli;

import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.HistoryRequest;
import io.treecat.grpc.client.TreeCatClient;
import io.treecat.grpc.v1.CommitEntry;
import io.treecat.grpc.v1.ListCommitsResponse;
import io.treecat.grpc.v1.PathChange;
import java.util.Locale;
import net.sourceforge.argparse4j.impl.Arguments;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;

/**
 * {@code treecat log [PATH] [--since VID|TIME] [--until VID|TIME] [--limit N] [--principal NAME] [-v]}: the
 * commit log, newest first (oldest first with {@code --reverse}), optionally only commits that touched PATH or a path
 * under it, or only those of one principal (filtered here, page by page, as the server sends them).
 */
final class LogCommand extends RemoteCommand {
    static final int DEFAULT_LIMIT = 20;

    LogCommand() {
        super("log", "Lists commits: vid, time, interface.operation, counts (and paths with -v)");
    }

    @Override
    void configureArguments(Subparser subparser) {
        subparser
                .addArgument("path")
                .metavar("PATH")
                .nargs("?")
                .help("only commits that touched this path or a path under it");
        subparser
                .addArgument("--since")
                .dest("since")
                .metavar("VID|TIME")
                .help("from this vid, or the first commit at or after this RFC 3339 time");
        subparser
                .addArgument("--until")
                .dest("until")
                .metavar("VID|TIME")
                .help("up to this vid, or the last commit at or before this RFC 3339 time");
        subparser
                .addArgument("--limit")
                .dest("limit")
                .type(Integer.class)
                .setDefault(DEFAULT_LIMIT)
                .metavar("N")
                .help("print at most N commits (default " + DEFAULT_LIMIT + ")");
        subparser
                .addArgument("--principal")
                .dest("principal")
                .metavar("NAME")
                .help("only commits by this principal (the audit trail)");
        addFlag(subparser, "--reverse", "reverse", "oldest first");
        subparser
                .addArgument("-v", "--verbose")
                .dest("verbose")
                .action(Arguments.storeTrue())
                .help("also print the paths each commit touched (prefixes for compact entries)");
    }

    @Override
    void run(TreeCatClient client, Namespace namespace, Output output) {
        int limit = namespace.getInt("limit");
        if (limit < 1) {
            throw new IllegalArgumentException("--limit must be at least 1");
        }
        String path = namespace.getString("path");
        boolean verbose = namespace.getBoolean("verbose");
        String principal = namespace.getString("principal");
        HistoryRequest request = new HistoryRequest(
                path == null ? ObjectPath.ROOT : ObjectPath.parse(path),
                HistoryRequest.bound(namespace.getString("since"), "--since"),
                HistoryRequest.bound(namespace.getString("until"), "--until"),
                Math.min(limit, 1000),
                !namespace.getBoolean("reverse"),
                null);
        int printed = 0;
        while (printed < limit) {
            ListCommitsResponse page = client.listCommits(request);
            for (CommitEntry entry : page.getCommitsList()) {
                if (printed == limit) {
                    break;
                }
                if (principal != null && !principal.equals(entry.getPrincipal())) {
                    continue;
                }
                print(output, entry, verbose);
                printed++;
            }
            if (page.getNextPageToken().isEmpty()) {
                break;
            }
            request = new HistoryRequest(
                    request.path(),
                    request.since(),
                    request.until(),
                    request.limit(),
                    request.newestFirst(),
                    page.getNextPageToken());
        }
    }

    static void print(Output output, CommitEntry entry, boolean verbose) {
        String operation = entry.getInterface() + "." + entry.getOperation();
        if (output.isTable()) {
            output.line(String.format(
                    Locale.ROOT,
                    "%-8d  %-24s  %-28s  +%d ~%d -%d%s%s",
                    entry.getVid(),
                    entry.getCommitTime(),
                    operation,
                    entry.getAdded(),
                    entry.getUpdated(),
                    entry.getRemoved(),
                    entry.getCompact() ? "  (compact)" : "",
                    entry.getPrincipal().isEmpty() ? "" : "  by " + entry.getPrincipal()));
            if (verbose) {
                entry.getChangesList().forEach(change -> output.line("    " + mark(change) + " " + change.getPath()));
                entry.getPrefixesList().forEach(prefix -> output.line("    * " + prefix + "/…"));
            }
            return;
        }
        BsonDocument line = new BsonDocument("vid", new BsonInt64(entry.getVid()))
                .append("time", new BsonString(entry.getCommitTime()))
                .append("operation", new BsonString(operation));
        if (!entry.getPrincipal().isEmpty()) {
            line.append("principal", new BsonString(entry.getPrincipal()));
        }
        line.append("added", new BsonInt32(entry.getAdded()))
                .append("updated", new BsonInt32(entry.getUpdated()))
                .append("removed", new BsonInt32(entry.getRemoved()))
                .append("compact", BsonBoolean.valueOf(entry.getCompact()));
        if (verbose) {
            if (entry.getCompact()) {
                BsonArray prefixes = new BsonArray();
                entry.getPrefixesList().forEach(prefix -> prefixes.add(new BsonString(prefix)));
                line.append("prefixes", prefixes);
            } else {
                BsonArray changes = new BsonArray();
                entry.getChangesList()
                        .forEach(change -> changes.add(new BsonDocument("path", new BsonString(change.getPath()))
                                .append("change", new BsonString(changeName(change)))));
                line.append("changes", changes);
            }
        }
        output.json(line);
    }

    private static String mark(PathChange change) {
        return switch (change.getChange()) {
            case CHANGE_KIND_ADDED -> "A";
            case CHANGE_KIND_UPDATED -> "M";
            case CHANGE_KIND_REMOVED -> "D";
            default -> "?";
        };
    }

    private static String changeName(PathChange change) {
        return switch (change.getChange()) {
            case CHANGE_KIND_ADDED -> "added";
            case CHANGE_KIND_UPDATED -> "updated";
            case CHANGE_KIND_REMOVED -> "removed";
            default -> "unknown";
        };
    }
}
