package org.apache.iceberg.rest;

import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.util.PropertyUtil;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.gzip.GzipHandler;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.eclipse.jetty.servlet.ServletHolder;

/**
 * Iceberg's reference REST catalog server ({@link RESTCatalogServer} from {@code iceberg-open-api:test-fixtures}, the
 * server Iceberg's REST Compatibility Kit runs against) bound to 127.0.0.1 instead of every interface, for
 * RestHotPathBenchmark (package {@code io.treecat.benchmarks.iceberg}), which runs it in a JVM of its own.
 *
 * <p>It builds what {@code RESTCatalogServer.start} builds, in the same order and with the same configuration: the
 * catalog properties from the {@code CATALOG_*} environment ({@link RCKUtils#environmentCatalogConfig}), a
 * {@link JdbcCatalog} with schema version V1 unless told otherwise, {@link RESTServerCatalogAdapter} and
 * {@link RESTCatalogServlet} under {@code /*} with gzip, one connector with {@code reusePort}. Two differences: the
 * connector's host is 127.0.0.1, and the Jetty is the one already on this class path (11, {@code
 * org.eclipse.jetty.servlet}, its {@link GzipHandler}), where Iceberg 1.11 links Jetty 12's ee10 servlet and its
 * compression handler. The servlet only uses the Servlet 5 API both implement. It lives in Iceberg's package because
 * the adapter and the environment reader are package-private there.
 *
 * <p>It prints {@code LISTENING <port>} once Jetty serves (with {@code CATALOG_REST_PORT=0}, the port it bound), and
 * stops when its process is killed.
 */
public final class LoopbackRESTCatalogServer {
    private LoopbackRESTCatalogServer() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> config = new HashMap<>(RCKUtils.environmentCatalogConfig());
        config.putIfAbsent(CatalogProperties.CATALOG_IMPL, JdbcCatalog.class.getName());
        config.putIfAbsent(CatalogProperties.URI, "jdbc:sqlite::memory:");
        config.putIfAbsent("jdbc.schema-version", "V1");
        if (config.get(CatalogProperties.WAREHOUSE_LOCATION) == null) {
            config.put(
                    CatalogProperties.WAREHOUSE_LOCATION,
                    Files.createTempDirectory("iceberg_warehouse")
                            .toAbsolutePath()
                            .toString());
        }
        String name = PropertyUtil.propertyAsString(config, RESTCatalogServer.CATALOG_NAME, "rest_backend");
        Catalog catalog = CatalogUtil.buildIcebergCatalog(name, config, new Configuration());
        RESTCatalogAdapter adapter =
                new RESTServerCatalogAdapter(new RESTCatalogServer.CatalogContext(catalog, config));

        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
        context.addServlet(new ServletHolder(new RESTCatalogServlet(adapter)), "/*");
        context.insertHandler(new GzipHandler());

        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(PropertyUtil.propertyAsInt(config, RESTCatalogServer.REST_PORT, 8181));
        connector.setReusePort(true);
        server.addConnector(connector);
        server.setHandler(context);
        server.start();
        System.out.println("LISTENING " + connector.getLocalPort());
        System.out.flush();
        server.join();
    }
}
