package io.treecat.server;

import io.treecat.core.error.CatalogException;
import java.nio.file.Path;

/** The {@code treecat} command line. */
public final class TreeCatMain {
  private static final String USAGE = String.join("\n",
      "usage: treecat <command> [options]",
      "",
      "commands:",
      "  demo [--data DIR]   load the paper's sample catalog into RocksDB (default ./data) and run its example queries",
      "  help                show this message");

  private TreeCatMain() {}

  public static void main(String[] args) {
    System.exit(run(args));
  }

  static int run(String[] args) {
    String command = args.length == 0 ? "demo" : args[0];
    try {
      switch (command) {
        case "demo":
          new DemoCommand(dataDirectory(args), System.out).run();
          return 0;
        case "help":
        case "--help":
        case "-h":
          System.out.println(USAGE);
          return 0;
        default:
          System.err.println("treecat: unknown command '" + command + "'\n" + USAGE);
          return 2;
      }
    } catch (CatalogException e) {
      System.err.println("treecat: " + e.code() + ": " + e.getMessage() + (e.context().isEmpty() ? "" : " " + e.context()));
      return 1;
    } catch (IllegalArgumentException e) {
      System.err.println("treecat: " + e.getMessage());
      return 2;
    }
  }

  private static Path dataDirectory(String[] args) {
    for (int i = 1; i < args.length; i++) {
      if (args[i].equals("--data")) {
        if (i + 1 == args.length) {
          throw new IllegalArgumentException("--data needs a directory");
        }
        return Path.of(args[i + 1]);
      }
      throw new IllegalArgumentException("unknown option '" + args[i] + "'");
    }
    return Path.of("data");
  }
}
