package io.treecat.server.cli;

import io.treecat.core.service.ReadPoint;
import io.treecat.core.version.NamedSnapshot;
import io.treecat.grpc.client.TreeCatClient;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import net.sourceforge.argparse4j.inf.Subparsers;

/** {@code treecat snapshot create|list|drop}: named versions of the whole catalog. */
final class SnapshotCommand extends RemoteCommand {
    SnapshotCommand() {
        super("snapshot", "Creates, lists or drops named snapshots");
    }

    @Override
    void configureArguments(Subparser subparser) {
        Subparsers actions = subparser.addSubparsers().dest("action").metavar("ACTION");
        Subparser create = actions.addParser("create").help("names a version (default: the newest)");
        create.addArgument("name").metavar("NAME");
        create.addArgument("--vid").dest("vid").type(Long.class).metavar("N").help("the version to name");
        actions.addParser("list").help("lists every snapshot");
        Subparser drop = actions.addParser("drop").help("drops a snapshot");
        drop.addArgument("name").metavar("NAME");
    }

    @Override
    void run(TreeCatClient client, Namespace namespace, Output output) {
        switch (namespace.getString("action")) {
            case "create" -> {
                Long vid = namespace.getLong("vid");
                NamedSnapshot snapshot = client.createSnapshot(
                        namespace.getString("name"), vid == null ? ReadPoint.LATEST : ReadPoint.vid(vid));
                output.record(Output.fields("name", snapshot.name(), "vid", snapshot.vid()));
            }
            case "list" ->
                client.listSnapshots()
                        .forEach(snapshot ->
                                output.record(Output.fields("name", snapshot.name(), "vid", snapshot.vid())));
            case "drop" -> {
                client.dropSnapshot(namespace.getString("name"));
                output.record(Output.fields("dropped", namespace.getString("name")));
            }
            default -> throw new IllegalArgumentException("unknown snapshot action " + namespace.getString("action"));
        }
    }
}
