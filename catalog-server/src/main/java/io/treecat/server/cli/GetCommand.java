package io.treecat.server.cli;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.grpc.client.TreeCatClient;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/** {@code treecat get PATH}: one object. */
final class GetCommand extends RemoteCommand {
    GetCommand() {
        super("get", "Reads one object by its path");
    }

    @Override
    void configureArguments(Subparser subparser) {
        subparser
                .addArgument("path")
                .metavar("PATH")
                .help("the object's path, e.g. /retail/sales (escape / and \\ in ids with \\)");
        addReadPoint(subparser);
    }

    @Override
    void run(TreeCatClient client, Namespace namespace, Output output) {
        ObjectPath path = ObjectPath.parse(namespace.getString("path"));
        CatalogObject object = client.get(path, readPoint(namespace))
                .orElseThrow(() -> new CatalogException(ErrorCode.OBJECT_NOT_FOUND, "Object not found: " + path));
        output.object(object);
    }
}
