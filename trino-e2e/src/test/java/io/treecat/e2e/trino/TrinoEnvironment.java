package io.treecat.e2e.trino;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trino.jdbc.TrinoResultSet;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * One TreeCat and one Trino pointed at it, shared by every test class of the run: Trino takes 15–20 s to start, so it
 * starts once ({@link TrinoEnvironmentExtension}). Trino has three catalogs on the one TreeCat:
 *
 * <ul>
 *   <li>{@value #ICEBERG}: the Iceberg connector on TreeCat's Iceberg REST catalog;
 *   <li>{@value #HIVE}: the Hive connector on TreeCat's Hive Metastore Thrift API, redirecting Iceberg tables to
 *       {@value #ICEBERG};
 *   <li>{@value #ICEBERG_HMS}: the Iceberg connector on the Thrift API (Iceberg's metastore catalog), which creates
 *       Iceberg tables through HMS calls, so the cross-engine tests can check the REST side sees them.
 * </ul>
 *
 * <p>Each test class works in its own schemas; the catalogs are not reset between classes.
 *
 * <p>Public, with the calls other modules need, because this module publishes its test classes as a
 * {@code test-jar}: {@code spark-connector}'s Spark ↔ Trino test starts one environment and points Spark at
 * {@link #restUri()}.
 */
public final class TrinoEnvironment implements AutoCloseable {
    public static final String ICEBERG = "iceberg";
    static final String HIVE = "hive";
    static final String ICEBERG_HMS = "iceberg_hms";
    /** The REST prefix (TreeCat catalog) when the client names no warehouse; also HMS's default catalog. */
    static final String REST_PREFIX = "warehouse";

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The TreeCat this environment started and stops; empty when the caller runs TreeCat ({@link #startOn}). */
    private final Optional<TreeCatServer> treeCat;

    private final URI restUri;
    private final TrinoServer trino;
    private final Path directory;
    private final HttpClient http = HttpClient.newHttpClient();

    private TrinoEnvironment(Optional<TreeCatServer> treeCat, URI restUri, TrinoServer trino, Path directory) {
        this.treeCat = requireNonNull(treeCat, "treeCat is null");
        this.restUri = requireNonNull(restUri, "restUri is null");
        this.trino = requireNonNull(trino, "trino is null");
        this.directory = requireNonNull(directory, "directory is null");
    }

    /**
     * Starts both servers in a fresh directory under {@code target/e2e-runs} (kept after the run: the two logs are
     * there). The JDK for Trino is checked first, so a machine without one fails at once and says so.
     */
    public static TrinoEnvironment start() throws IOException, InterruptedException {
        Path trinoHome = trinoHome();
        Path directory = runDirectory();
        long started = System.nanoTime();
        TreeCatServer treeCat = TreeCatServer.start(Files.createDirectories(directory.resolve("treecat")));
        report("TreeCat serving in %s", started);
        try {
            TrinoServer trino = startTrino(trinoHome, directory, catalogs(treeCat.restUri(), treeCat.thriftUri()));
            TrinoEnvironment environment =
                    new TrinoEnvironment(Optional.of(treeCat), treeCat.restUri(), trino, directory);
            System.out.println(environment);
            return environment;
        } catch (IOException | InterruptedException | RuntimeException e) {
            treeCat.close();
            throw e;
        }
    }

    /**
     * Starts only Trino, with {@code catalogs} (each catalog's name and the properties of its file), on a TreeCat the
     * caller started and stops: one configured differently from {@link #start()}'s (an object-store warehouse, keys in
     * its environment), whose REST catalog answers at {@code restUri}. {@link #close()} then stops Trino only.
     * {@link #icebergRestCatalog(URI, Map)} writes an Iceberg REST catalog's properties.
     */
    public static TrinoEnvironment startOn(URI restUri, Map<String, Map<String, String>> catalogs)
            throws IOException, InterruptedException {
        requireNonNull(restUri, "restUri is null");
        requireNonNull(catalogs, "catalogs is null");
        Path trinoHome = trinoHome();
        Path directory = runDirectory();
        TrinoEnvironment environment =
                new TrinoEnvironment(Optional.empty(), restUri, startTrino(trinoHome, directory, catalogs), directory);
        System.out.println(environment);
        return environment;
    }

    /** Trino's unpacked distribution; the JDK for it is checked first, so a machine without one fails at once. */
    private static Path trinoHome() throws IOException {
        TrinoServer.findJavaHome();
        String distribution = System.getProperty("trino.distribution", "");
        if (distribution.isBlank() || distribution.startsWith("${")) {
            throw new IllegalStateException(
                    "System property trino.distribution is not set: run the tests through Maven "
                            + "(./mvnw -B verify -pl trino-e2e -am), which locates io.trino:trino-server:tar.gz for them");
        }
        long started = System.nanoTime();
        // Normalised: TrinoDistribution checks every entry stays under it, and spark-connector names trino-e2e's with
        // "..".
        Path home = Path.of(System.getProperty("trino.home", "target/trino-server"))
                .toAbsolutePath()
                .normalize();
        Path trinoHome = TrinoDistribution.unpack(Path.of(distribution), home);
        report("Trino distribution ready in %s", started);
        return trinoHome;
    }

    /** A fresh {@code target/e2e-runs/run-*} of the module running the tests. */
    private static Path runDirectory() throws IOException {
        Path runs = Files.createDirectories(Path.of("target/e2e-runs").toAbsolutePath());
        return Files.createTempDirectory(runs, "run-");
    }

    private static TrinoServer startTrino(Path trinoHome, Path directory, Map<String, Map<String, String>> catalogs)
            throws IOException, InterruptedException {
        long started = System.nanoTime();
        TrinoServer trino = TrinoServer.start(
                trinoHome, TrinoServer.findJavaHome(), Files.createDirectories(directory.resolve("trino")), catalogs);
        report("Trino started in %s", started);
        return trino;
    }

    /** Start-up times go to the test output (target/failsafe-reports/*-output.txt): the budget in CI is minutes. */
    private static void report(String format, long startedNanos) {
        System.out.printf(format + "%n", Duration.ofNanos(System.nanoTime() - startedNanos));
    }

    /** The catalog files docs/engines.md shows, with this run's addresses. */
    static Map<String, Map<String, String>> catalogs(URI restUri, URI thriftUri) {
        return Map.of(
                ICEBERG, icebergRestCatalog(restUri),
                HIVE, hiveCatalog(thriftUri),
                ICEBERG_HMS, icebergHmsCatalog(thriftUri));
    }

    static Map<String, String> icebergRestCatalog(URI restUri) {
        return icebergRestCatalog(
                restUri,
                // TreeCat's warehouse is a local directory and every location it returns is a file: URI. Trino's native
                // local file system serves file: locations under local.location; "/" lets it reach any of them.
                Map.of("fs.native-local.enabled", "true", "local.location", "/"));
    }

    /**
     * The Iceberg connector on the Iceberg REST catalog at {@code restUri}, with {@code properties} added: the file
     * system that reaches the catalog's warehouse, a {@code iceberg.rest-catalog.warehouse}, the delegation setting.
     */
    public static Map<String, String> icebergRestCatalog(URI restUri, Map<String, String> properties) {
        Map<String, String> catalog = new LinkedHashMap<>();
        catalog.put("connector.name", "iceberg");
        catalog.put("iceberg.catalog.type", "rest");
        catalog.put("iceberg.rest-catalog.uri", restUri.toString());
        properties.forEach((key, value) -> {
            if (catalog.putIfAbsent(key, value) != null) {
                throw new IllegalArgumentException("icebergRestCatalog sets " + key + " itself");
            }
        });
        return Collections.unmodifiableMap(catalog);
    }

    static Map<String, String> hiveCatalog(URI thriftUri) {
        return Map.of(
                "connector.name",
                "hive",
                "hive.metastore.uri",
                thriftUri.toString(),
                // Not fs.native-local: Trino 476's native local file system lists a file: directory as local:///…
                // entries
                // and the Hive connector then drops every file, so INSERT works and SELECT finds nothing. Hadoop's
                // reads
                // them correctly.
                "fs.hadoop.enabled",
                "true",
                // A SELECT on an Iceberg table through this catalog (the table's HMS parameter table_type=ICEBERG) is
                // redirected to the Iceberg catalog instead of failing with "Not a Hive table".
                "hive.iceberg-catalog-name",
                ICEBERG);
    }

    static Map<String, String> icebergHmsCatalog(URI thriftUri) {
        return Map.of(
                "connector.name", "iceberg",
                "iceberg.catalog.type", "hive_metastore",
                "hive.metastore.uri", thriftUri.toString(),
                // TreeCat's HMS has no lock calls yet; without locks, Trino commits with alter_table's
                // expected-parameter
                // swap of metadata_location, which TreeCat checks atomically (docs/hms-thrift.md).
                "iceberg.hive-catalog.locking-enabled", "false",
                "fs.native-local.enabled", "true",
                "local.location", "/");
    }

    public URI restUri() {
        return restUri;
    }

    /** The local warehouse of the TreeCat {@link #start()} started; a caller's TreeCat has its own. */
    public Path warehouse() {
        return treeCat.orElseThrow(() -> new IllegalStateException(
                        "This environment runs on a TreeCat it did not start (startOn): its warehouse is the caller's"))
                .warehouse();
    }

    /** Trino's log file (its server log and stdout), for tests that check what Trino reported. */
    public Path trinoLog() {
        return trino.log();
    }

    Path directory() {
        return directory;
    }

    /** A plain HTTP GET on TreeCat's REST port (path from the root, e.g. {@code /v1/warehouse/namespaces}). */
    HttpResponse<String> restGet(String path) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(restUri.resolve(path))
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** {@link #restGet} that must answer 200 with JSON. */
    JsonNode restJson(String path) throws IOException, InterruptedException {
        HttpResponse<String> response = restGet(path);
        if (response.statusCode() != 200) {
            throw new AssertionError("GET " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return JSON.readTree(response.body());
    }

    Connection connect() throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", "treecat_e2e");
        return DriverManager.getConnection(trino.jdbcUrl(), properties);
    }

    /** Runs a statement that returns no rows (DDL) or an update count (DML), and returns the count (0 for DDL). */
    public long execute(String sql) throws SQLException {
        return untilCatalogNodesAreKnown(() -> {
            try (Connection connection = connect();
                    Statement statement = connection.createStatement()) {
                return statement.execute(sql)
                        ? drain(statement.getResultSet()).size()
                        : statement.getLargeUpdateCount();
            }
        });
    }

    /** Runs a query and returns its rows, each a list of the JDBC objects of its columns. */
    public List<List<Object>> query(String sql) throws SQLException {
        return untilCatalogNodesAreKnown(() -> {
            try (Connection connection = connect();
                    Statement statement = connection.createStatement();
                    ResultSet rows = statement.executeQuery(sql)) {
                return drain(rows);
            }
        });
    }

    private interface SqlCall<T> {
        T call() throws SQLException;
    }

    /**
     * Runs {@code call}, again while Trino says "nodes is empty". Just after start, the coordinator lists
     * itself as an active node before its node manager has refreshed which catalogs that node serves (it
     * polls discovery every few seconds), and a query that schedules work for a catalog fails at planning,
     * before anything runs (seen in CI on the first test after start, though system.runtime.nodes already
     * listed the node). Never a TreeCat answer, so retried for a bounded time rather than failed.
     */
    private static <T> T untilCatalogNodesAreKnown(SqlCall<T> call) throws SQLException {
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(30).toNanos();
        while (true) {
            try {
                return call.call();
            } catch (SQLException e) {
                if (e.getMessage() == null
                        || !e.getMessage().contains("nodes is empty")
                        || System.nanoTime() > deadline) {
                    throw e;
                }
            }
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SQLException("interrupted while waiting for Trino's catalog nodes", e);
            }
        }
    }

    /** The rows a query's table scans read, from Trino's final query statistics: what partition pruning leaves. */
    long processedRows(String sql) throws SQLException {
        return untilCatalogNodesAreKnown(() -> {
            try (Connection connection = connect();
                    Statement statement = connection.createStatement();
                    ResultSet rows = statement.executeQuery(sql)) {
                drain(rows);
                return rows.unwrap(TrinoResultSet.class).getStats().getProcessedRows();
            }
        });
    }

    static List<List<Object>> drain(ResultSet rows) throws SQLException {
        ResultSetMetaData metadata = rows.getMetaData();
        List<List<Object>> result = new ArrayList<>();
        while (rows.next()) {
            List<Object> row = new ArrayList<>(metadata.getColumnCount());
            for (int column = 1; column <= metadata.getColumnCount(); column++) {
                row.add(rows.getObject(column));
            }
            result.add(Collections.unmodifiableList(row));
        }
        return result;
    }

    /** Trino first: it holds connections to TreeCat. A TreeCat the caller started is the caller's to stop. */
    @Override
    public void close() {
        try {
            trino.close();
        } finally {
            treeCat.ifPresent(TreeCatServer::close);
        }
    }

    @Override
    public String toString() {
        return treeCat.map(server -> "TreeCat at " + server.restUri() + " and " + server.thriftUri())
                        .orElse("the caller's TreeCat at " + restUri)
                + ", Trino at " + trino.jdbcUrl() + "; logs in " + directory;
    }
}
