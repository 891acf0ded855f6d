package io.treecat.server.cli;

import io.treecat.core.model.ObjectPath;
import io.treecat.grpc.client.CommitSummary;
import io.treecat.grpc.client.TreeCatClient;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/** {@code treecat clone SOURCE TARGET}: copies a subtree, sharing its leaves. */
final class CloneCommand extends RemoteCommand {
    CloneCommand() {
        super("clone", "Copies the subtree at SOURCE to TARGET (inner objects copied, leaves shared)");
    }

    @Override
    void configureArguments(Subparser subparser) {
        subparser.addArgument("source").metavar("SOURCE");
        subparser.addArgument("target").metavar("TARGET");
        addReadPoint(subparser);
    }

    @Override
    void run(TreeCatClient client, Namespace namespace, Output output) {
        CommitSummary committed = client.clone(
                ObjectPath.parse(namespace.getString("source")),
                ObjectPath.parse(namespace.getString("target")),
                readPoint(namespace));
        output.record(Output.fields("vid", committed.vid(), "changes", committed.changeCount()));
    }
}
