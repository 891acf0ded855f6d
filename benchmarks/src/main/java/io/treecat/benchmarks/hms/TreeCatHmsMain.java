package io.treecat.benchmarks.hms;

import io.treecat.core.service.CatalogService;
import io.treecat.hms.HmsServerConfig;
import io.treecat.hms.TreeCatHmsServer;
import io.treecat.lakehouse.auth.Authorizer;
import io.treecat.lakehouse.storage.LocalFileIO;
import io.treecat.lakehouse.storage.Warehouses;
import io.treecat.lakehouse.txn.TransactionRunner;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * TreeCat's HMS Thrift server as its own JVM, the way {@link HmsBenchmark} starts it beside the Hive
 * peer: a {@link CatalogService} on RocksDB in {@code dataDir} (default options, as {@code treecat
 * server} opens it) and a {@link TreeCatHmsServer} on a free loopback port with the server's default
 * thread bounds.
 *
 * <p>Prints {@value #PORT_PREFIX}{@code <port>} on stdout once it serves, then runs until its stdin
 * closes, so it never outlives the driver that started it.
 *
 * <p>Usage: {@code TreeCatHmsMain <dataDir> <warehouseUri>}
 */
public final class TreeCatHmsMain {
  static final String PORT_PREFIX = "TREECAT_HMS_PORT=";

  private TreeCatHmsMain() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      throw new IllegalArgumentException("Usage: TreeCatHmsMain <dataDir> <warehouseUri>");
    }
    Path data = Path.of(args[0]);
    Files.createDirectories(data);
    try (CatalogService catalog = CatalogService.open(data)) {
      // As `treecat server` wires it: the lake's transaction runner and the warehouse root for every catalog.
      TreeCatHmsServer server = new TreeCatHmsServer(new TransactionRunner(() -> catalog, Authorizer.allowAll()),
          Warehouses.underRoot(args[1], new LocalFileIO()), HmsServerConfig.of("127.0.0.1", 0, HmsServerConfig.DEFAULT_CATALOG, args[1]));
      server.start();
      System.out.println(PORT_PREFIX + server.port());
      System.out.flush();
      InputStream parent = System.in;
      byte[] buffer = new byte[256];
      while (parent.read(buffer) >= 0) {
        // the driver never writes; EOF means it has gone
      }
      server.shutdown();
    }
  }
}
