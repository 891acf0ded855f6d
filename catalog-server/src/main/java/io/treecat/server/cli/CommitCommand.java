package io.treecat.server.cli;

import io.treecat.core.service.WriteSetJson;
import io.treecat.core.txn.TransactionMode;
import io.treecat.core.version.WriteSet;
import io.treecat.grpc.client.CommitSummary;
import io.treecat.grpc.client.RemoteTransaction;
import io.treecat.grpc.client.TreeCatClient;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/** {@code treecat commit FILE}: commits a write set given as JSON (see docs/native-api.md). */
final class CommitCommand extends RemoteCommand {
    CommitCommand() {
        super("commit", "Commits a write set from a JSON file ('-' reads standard input)");
    }

    @Override
    void configureArguments(Subparser subparser) {
        subparser
                .addArgument("file")
                .metavar("FILE")
                .help("{\"writes\": [{\"op\": \"add\", \"path\": \"/a\", \"kind\": \"inner\", \"value\": {}}, ...]}");
    }

    @Override
    void run(TreeCatClient client, Namespace namespace, Output output) throws IOException {
        String json = read(namespace.getString("file"));
        // A clone without a vid copies the newest version: ask the server which that is.
        long newest = json.contains("\"clone\"") ? newestVid(client) : 0;
        WriteSet writes = WriteSetJson.parse(json, newest);
        CommitSummary committed = client.commit(writes);
        output.record(Output.fields("vid", committed.vid(), "changes", committed.changeCount()));
    }

    static String read(String file) throws IOException {
        if (file.equals("-")) {
            try (InputStream in = System.in) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        }
        Path path = Path.of(file);
        if (!Files.isReadable(path)) {
            throw new IOException("Cannot read " + path);
        }
        return Files.readString(path, StandardCharsets.UTF_8);
    }

    static long newestVid(TreeCatClient client) {
        RemoteTransaction snapshot = client.begin(TransactionMode.READ_ONLY);
        try {
            return snapshot.readVid();
        } finally {
            snapshot.abort();
        }
    }
}
