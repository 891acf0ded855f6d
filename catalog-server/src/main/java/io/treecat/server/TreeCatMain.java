package io.treecat.server;

import java.io.OutputStream;

/**
 * The {@code treecat} command line (the jar's Main-Class): {@code server}, {@code check-config},
 * {@code demo}, {@code help}. With no arguments it runs {@code server} on the embedded defaults.
 */
public final class TreeCatMain {
    private TreeCatMain() {}

    public static void main(String[] args) throws Exception {
        String[] arguments = arguments(args);
        int code = new TreeCatApplication().runCommandLine(arguments, System.out, System.err);
        // The server keeps running on Jetty's threads and stops on SIGTERM; every other command is done.
        if (code != 0 || !arguments[0].equals("server")) {
            System.exit(code);
        }
    }

    static int run(String[] args) {
        return run(args, System.out, System.err);
    }

    static int run(String[] args, OutputStream out, OutputStream err) {
        try {
            return new TreeCatApplication().runCommandLine(arguments(args), out, err);
        } catch (Exception e) {
            throw new IllegalStateException("Cannot run the command line", e);
        }
    }

    private static String[] arguments(String[] args) {
        if (args.length == 0) {
            return new String[] {"server"};
        }
        if (args.length == 1 && args[0].equals("help")) {
            return new String[] {"--help"};
        }
        return args;
    }
}
