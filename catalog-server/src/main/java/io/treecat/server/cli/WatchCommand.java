package io.treecat.server.cli;

import io.grpc.Context;
import io.grpc.StatusRuntimeException;
import io.treecat.grpc.client.TreeCatClient;
import io.treecat.grpc.client.TreeCatClientException;
import io.treecat.grpc.v1.ChangeKind;
import io.treecat.grpc.v1.FeedEvent;
import io.treecat.grpc.v1.ObjectKind;
import io.treecat.grpc.v1.SubscribeRequest;
import java.util.Iterator;
import java.util.Locale;
import net.sourceforge.argparse4j.impl.Arguments;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/**
 * {@code treecat watch [PATH] [--from VID] [--kinds LIST] [--limit N] [-v]}: follows the change
 * feed ({@code Subscribe}), printing each commit as {@code treecat log} does, until interrupted,
 * until N commits were printed, or until the server ends the stream (then the error says the vid to
 * resume after).
 */
final class WatchCommand extends RemoteCommand {
    WatchCommand() {
        super("watch", "Follows commits as they happen (optionally replaying from a vid), printed as log prints them");
    }

    @Override
    void configureArguments(Subparser subparser) {
        subparser
                .addArgument("path")
                .metavar("PATH")
                .nargs("?")
                .help("only commits that touched this path or a path under it");
        subparser
                .addArgument("--from")
                .dest("from")
                .type(Long.class)
                .metavar("VID")
                .help("first replay the commits from this vid on (1: all the log keeps); default: only new commits");
        subparser
                .addArgument("--kinds")
                .dest("kinds")
                .metavar("LIST")
                .help("only commits with such changes: comma-separated added, updated, removed, inner, leaf");
        subparser
                .addArgument("--limit")
                .dest("limit")
                .type(Integer.class)
                .metavar("N")
                .help("stop after N commits");
        subparser
                .addArgument("-v", "--verbose")
                .dest("verbose")
                .action(Arguments.storeTrue())
                .help("also print the paths each commit touched (prefixes for compact entries)");
    }

    @Override
    void run(TreeCatClient client, Namespace namespace, Output output) {
        SubscribeRequest.Builder request = SubscribeRequest.newBuilder();
        String path = namespace.getString("path");
        if (path != null) {
            request.setPath(path);
        }
        Long from = namespace.getLong("from");
        if (from != null) {
            if (from < 1) {
                throw new IllegalArgumentException("--from must be a vid of at least 1");
            }
            request.setAfterVid(from - 1);
        }
        addKinds(request, namespace.getString("kinds"));
        Integer limit = namespace.getInt("limit");
        if (limit != null && limit < 1) {
            throw new IllegalArgumentException("--limit must be at least 1");
        }
        boolean verbose = namespace.getBoolean("verbose");
        try (Context.CancellableContext context = Context.current().withCancellation()) {
            context.run(() -> {
                Iterator<FeedEvent> events = client.subscribe(request.build());
                int printed = 0;
                try {
                    while ((limit == null || printed < limit) && events.hasNext()) {
                        FeedEvent event = events.next();
                        if (event.hasCommit()) {
                            LogCommand.print(output, event.getCommit(), verbose);
                            output.flush();
                            printed++;
                        }
                    }
                } catch (StatusRuntimeException e) {
                    throw TreeCatClientException.from(e);
                }
            });
        }
    }

    private static void addKinds(SubscribeRequest.Builder request, String kinds) {
        if (kinds == null || kinds.isEmpty()) {
            return;
        }
        for (String kind : kinds.split(",", -1)) {
            switch (kind.trim().toLowerCase(Locale.ROOT)) {
                case "added" -> request.addChangeKinds(ChangeKind.CHANGE_KIND_ADDED);
                case "updated" -> request.addChangeKinds(ChangeKind.CHANGE_KIND_UPDATED);
                case "removed" -> request.addChangeKinds(ChangeKind.CHANGE_KIND_REMOVED);
                case "inner" -> request.addObjectKinds(ObjectKind.OBJECT_KIND_INNER);
                case "leaf" -> request.addObjectKinds(ObjectKind.OBJECT_KIND_LEAF);
                default ->
                    throw new IllegalArgumentException(
                            "--kinds is a comma-separated list of added, updated, removed, inner and leaf, not '" + kind
                                    + "'");
            }
        }
    }
}
