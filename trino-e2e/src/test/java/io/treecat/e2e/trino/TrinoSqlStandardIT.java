package io.treecat.e2e.trino;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Trino's Hive connector with {@code hive.security=sql-standard} on TreeCat: roles and table grants made with Trino's
 * SQL go through Hive's privilege and role Thrift calls into TreeCat's own grants (docs/security.md, "Hive's
 * privilege and role calls"), and back. Trino's user is made Hive's {@code admin} the TreeCat way, a native grant of
 * {@code ALL} on {@code /}, which Trino then finds as its role grant. Its own TreeCat (auth off) and Trino, started
 * by this class, since the shared environment's Hive catalog has no security setting.
 */
class TrinoSqlStandardIT {
    private static final String USER = "treecat_e2e";

    private static TreeCatServer treeCat;
    private static TrinoEnvironment trino;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws Exception {
        Path directory = Files.createTempDirectory(
                Files.createDirectories(Path.of("target/e2e-runs").toAbsolutePath()), "sql-standard-");
        treeCat = TreeCatServer.start(Files.createDirectories(directory.resolve("treecat")));
        HttpResponse<String> granted =
                post("/treecat/v1/grants", "{\"principal\": \"" + USER + "\", \"privilege\": \"ALL\", \"on\": \"/\"}");
        assertThat(granted.statusCode()).as(granted.body()).isEqualTo(201);
        Map<String, String> hive = new HashMap<>(TrinoEnvironment.hiveCatalog(treeCat.thriftUri()));
        hive.put("hive.security", "sql-standard");
        hive.remove("hive.iceberg-catalog-name");
        trino = TrinoEnvironment.startOn(treeCat.restUri(), Map.of("hive", hive));
    }

    @AfterAll
    static void stop() {
        if (trino != null) {
            trino.close();
        }
        if (treeCat != null) {
            treeCat.close();
        }
    }

    private static HttpResponse<String> post(String path, String body) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(treeCat.restUri().resolve(path))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static String get(String path) throws Exception {
        HttpResponse<String> response = HTTP.send(
                HttpRequest.newBuilder(URI.create(treeCat.restUri() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body();
    }

    private static List<List<Object>> rows(Statement statement, String sql) throws SQLException {
        List<List<Object>> rows = new ArrayList<>();
        try (ResultSet result = statement.executeQuery(sql)) {
            int columns = result.getMetaData().getColumnCount();
            while (result.next()) {
                List<Object> row = new ArrayList<>();
                for (int i = 1; i <= columns; i++) {
                    row.add(result.getObject(i));
                }
                rows.add(row);
            }
        }
        return rows;
    }

    @Test
    void rolesAndGrantsRoundTripThroughTreeCatsGrants() throws Exception {
        // One connection: SET ROLE holds for the session.
        try (Connection connection = trino.connect();
                Statement statement = connection.createStatement()) {
            statement.execute("SET ROLE admin IN hive");
            statement.execute("CREATE SCHEMA hive.secured");
            statement.execute("CREATE TABLE hive.secured.orders (id BIGINT)");
            statement.execute("CREATE ROLE analysts IN hive");
            assertThat(rows(statement, "SHOW ROLES FROM hive"))
                    .extracting(row -> row.get(0))
                    .contains("admin", "analysts", "public");
            statement.execute("GRANT analysts TO USER alice IN hive");
            statement.execute("GRANT SELECT ON hive.secured.orders TO ROLE analysts");

            // In TreeCat's grants, under TreeCat's names (what treecat grants list and who-can read).
            String grants = get("/treecat/v1/grants?on=/warehouse/secured/orders");
            assertThat(grants)
                    .contains("\"role\":\"analysts\"")
                    .contains("TABLE_READ_DATA")
                    .contains("/warehouse/secured/orders");
            assertThat(get("/treecat/v1/who-can?path=/warehouse/secured/orders"))
                    .contains("\"principal\":\"alice\"");

            // And back through Trino: SHOW GRANTS lists the role's SELECT.
            List<List<Object>> shown = rows(statement, "SHOW GRANTS ON hive.secured.orders");
            assertThat(shown.toString()).contains("analysts").contains("SELECT");

            statement.execute("REVOKE SELECT ON hive.secured.orders FROM ROLE analysts");
            assertThat(rows(statement, "SHOW GRANTS ON hive.secured.orders").toString())
                    .doesNotContain("analysts");
            assertThat(get("/treecat/v1/grants?on=/warehouse/secured/orders")).doesNotContain("analysts");
            statement.execute("REVOKE analysts FROM USER alice IN hive");
            statement.execute("DROP ROLE analysts IN hive");
            assertThat(rows(statement, "SHOW ROLES FROM hive"))
                    .extracting(row -> row.get(0))
                    .doesNotContain("analysts");
        }
    }
}
