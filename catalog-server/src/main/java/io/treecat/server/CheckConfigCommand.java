package io.treecat.server;

import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.setup.Bootstrap;
import io.treecat.server.config.TreeCatConfiguration;
import net.sourceforge.argparse4j.inf.Namespace;

/**
 * {@code treecat check-config [file]}: parses and validates a configuration (unknown keys, bad values,
 * out-of-range numbers, a listener serving other machines with auth off, unauthenticated HMS with auth on, all
 * fail), prints OK, and otherwise exits non-zero naming the bad key. With no
 * file it checks the embedded default with the current environment's overrides.
 */
final class CheckConfigCommand extends ConfiguredCommand<TreeCatConfiguration> {
    CheckConfigCommand() {
        super("check-config", "Parses and validates a configuration file (default: the embedded one), then prints OK");
    }

    @Override
    protected Class<TreeCatConfiguration> getConfigurationClass() {
        return TreeCatConfiguration.class;
    }

    @Override
    protected void run(
            Bootstrap<TreeCatConfiguration> bootstrap, Namespace namespace, TreeCatConfiguration configuration) {
        String file = namespace.getString("file");
        // What the start refuses is refused here too: remote listeners with auth off, unauthenticated HMS with it on.
        TreeCatApplication.checkListeners(configuration);
        // Each auth.oidc entry and the rules between them, as the start checks them (no issuer is contacted).
        TreeCatApplication.oidcIssuers(configuration.auth());
        // console.oidc names one of them.
        TreeCatApplication.consoleSignIn(configuration);
        System.out.println("OK: " + (file == null ? "the embedded default configuration" : file) + " is valid");
    }

    @Override
    public void onError(Cli cli, Namespace namespace, Throwable failure) {
        cli.getStdErr().println(failure.getMessage());
    }
}
