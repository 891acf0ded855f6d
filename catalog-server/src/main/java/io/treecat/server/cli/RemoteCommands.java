package io.treecat.server.cli;

import io.dropwizard.core.cli.Command;
import java.util.List;

/** The commands that talk to a running server: over gRPC, and {@code principals} over HTTP. */
public final class RemoteCommands {
    private RemoteCommands() {}

    public static List<Command> all() {
        return List.of(
                new QueryCommand(),
                new GetCommand(),
                new CommitCommand(),
                new CatalogCommand(),
                new SnapshotCommand(),
                new CloneCommand(),
                new LoadCommand(),
                new ExportCommand(),
                new LogCommand(),
                new WatchCommand(),
                new PrincipalsCommand(),
                new GrantsCommands.Roles(),
                new GrantsCommands.GrantsCommand(),
                new GrantsCommands.WhoCan(),
                new ReplicationCommand());
    }
}
