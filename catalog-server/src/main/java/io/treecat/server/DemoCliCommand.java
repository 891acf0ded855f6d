package io.treecat.server;

import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.cli.Command;
import io.dropwizard.core.setup.Bootstrap;
import io.treecat.core.error.CatalogException;
import java.nio.file.Path;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/** {@code treecat demo [--data DIR]}: the {@link DemoCommand} run of the core, without a server. */
final class DemoCliCommand extends Command {
    DemoCliCommand() {
        super("demo", "Loads the paper's sample catalog into RocksDB (default ./data) and runs its example queries");
    }

    @Override
    public void configure(Subparser subparser) {
        subparser
                .addArgument("--data")
                .dest("data")
                .setDefault("data")
                .metavar("DIR")
                .help("the RocksDB directory");
    }

    @Override
    public void run(Bootstrap<?> bootstrap, Namespace namespace) {
        new DemoCommand(Path.of(namespace.getString("data")), System.out).run();
    }

    @Override
    public void onError(Cli cli, Namespace namespace, Throwable failure) {
        if (failure instanceof CatalogException e) {
            cli.getStdErr()
                    .println("treecat: " + e.code() + ": " + e.getMessage()
                            + (e.context().isEmpty() ? "" : " " + e.context()));
        } else {
            super.onError(cli, namespace, failure);
        }
    }
}
