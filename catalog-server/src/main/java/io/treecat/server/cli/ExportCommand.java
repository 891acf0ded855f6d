package io.treecat.server.cli;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.tree.QueryText;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.txn.TransactionMode;
import io.treecat.grpc.client.QueryResults;
import io.treecat.grpc.client.QuerySpec;
import io.treecat.grpc.client.RemoteTransaction;
import io.treecat.grpc.client.TreeCatClient;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;

/**
 * {@code treecat export PATH}: the subtree at PATH as JSON lines that {@code treecat load} reads
 * back, parents before children, all read at one version. Values are canonical Extended JSON so
 * every BSON type survives the round trip.
 */
final class ExportCommand extends RemoteCommand {
    private static final JsonWriterSettings CANONICAL =
            JsonWriterSettings.builder().outputMode(JsonMode.EXTENDED).build();

    ExportCommand() {
        super("export", "Writes the subtree at PATH as JSON lines, in the format 'load' reads");
    }

    @Override
    void configureArguments(Subparser subparser) {
        subparser.addArgument("path").metavar("PATH").help("the subtree's root, e.g. /retail");
        addReadPoint(subparser);
        subparser.addArgument("--output").dest("output").metavar("FILE").help("write here instead of standard output");
    }

    @Override
    void run(TreeCatClient client, Namespace namespace, Output output) throws IOException {
        ObjectPath root = ObjectPath.parse(namespace.getString("path"));
        if (root.isRoot()) {
            throw new IllegalArgumentException("export needs a path below the root, e.g. /retail");
        }
        // Pin one version for every level's query.
        RemoteTransaction snapshot = client.begin(TransactionMode.READ_ONLY, readPoint(namespace));
        long vid = snapshot.readVid();
        snapshot.abort();
        String file = namespace.getString("output");
        try (OutputStream stream = file == null ? System.out : Files.newOutputStream(Path.of(file));
                PrintStream out = new PrintStream(stream, false, StandardCharsets.UTF_8)) {
            CatalogObject top = client.get(root, ReadPoint.vid(vid))
                    .orElseThrow(
                            () -> new IllegalArgumentException("Object not found: " + root + " at version " + vid));
            write(out, top);
            StringBuilder query = new StringBuilder();
            for (String id : root.ids()) {
                query.append("/[obj_id = ").append(QueryText.string(id)).append(']');
            }
            long written = 1;
            // One level at a time: every parent is written before any of its children.
            while (true) {
                query.append("/*");
                long level = 0;
                try (QueryResults results =
                        client.query(QuerySpec.of(query.toString()).at(ReadPoint.vid(vid)))) {
                    while (results.hasNext()) {
                        write(out, results.next());
                        level++;
                    }
                }
                if (level == 0) {
                    break;
                }
                written += level;
            }
            out.flush();
            if (file != null) {
                output.record(Output.fields("exported", written, "vid", vid, "file", file));
            }
        }
    }

    private static void write(PrintStream out, CatalogObject object) {
        BsonDocument line = new BsonDocument(
                        "path", new BsonString(object.path().toString()))
                .append("kind", new BsonString(object.kind().name().toLowerCase(Locale.ROOT)))
                .append("value", object.value());
        out.println(line.toJson(CANONICAL));
    }
}
