package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.ConfigOverride;
import io.treecat.core.service.WriteSetJson;
import io.treecat.server.TreeCatTestServer.Reply;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import no.nav.security.mock.oauth2.MockOAuth2Server;
import no.nav.security.mock.oauth2.token.DefaultOAuth2TokenCallback;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * The web console in a real browser (Debian's Chromium, headless, through Selenium) against a real server: the paper's
 * sample catalog and an Iceberg table written by Iceberg's own REST client. It browses to the table and its files,
 * travels to an earlier vid and sees the earlier files, shows a query's syntax error at its position, shows a missing
 * object, a version not yet written and an expired one as messages, and, with authentication on, signs in as a
 * principal who may read one namespace and does not see another. Screenshots of the main pages go to
 * {@code target/console-screenshots/}.
 */
class ConsoleBrowserIT {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "day", Types.StringType.get()));
    private static final PartitionSpec BY_DAY =
            PartitionSpec.builderFor(SCHEMA).identity("day").build();

    @TempDir
    static Path directory;

    private static TreeCatTestServer server;
    private static WebDriver browser;
    private static long oneFileVid;

    @BeforeAll
    static void start() throws Exception {
        server = new TreeCatTestServer(directory.resolve("open"));
        assertThat(server.post("/treecat/v1/commit", WriteSetJson.format(SampleCatalog.writes()))
                        .status())
                .isEqualTo(200);
        try (RESTCatalog iceberg = server.icebergClient()) {
            iceberg.createNamespace(Namespace.of("sales"));
            Table orders = iceberg.createTable(TableIdentifier.of("sales", "orders"), SCHEMA, BY_DAY);
            orders.newFastAppend().appendFile(file("first.parquet", 10)).commit();
            oneFileVid = newestVid(server);
            Reply named =
                    server.post("/treecat/v1/snapshots", "{\"name\": \"before second\", \"vid\": " + oneFileVid + "}");
            assertThat(named.status()).as(named.body()).isEqualTo(201);
            orders.newFastAppend().appendFile(file("second.parquet", 20)).commit();
            iceberg.buildView(TableIdentifier.of("sales", "big_orders"))
                    .withSchema(SCHEMA)
                    .withDefaultNamespace(Namespace.of("sales"))
                    .withQuery("spark", "SELECT id, day FROM orders WHERE id > 100")
                    .create();
        }
        browser = Chromium.headless(directory, 1280, 1000);
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (server != null) {
            server.close();
        }
    }

    private static DataFile file(String name, long records) {
        return DataFiles.builder(BY_DAY)
                .withPath("/lake/sales/orders/data/day=2025-01-01/" + name)
                .withFormat("parquet")
                .withPartitionPath("day=2025-01-01")
                .withFileSizeInBytes(records * 100)
                .withRecordCount(records)
                .build();
    }

    private static long newestVid(TreeCatTestServer on) {
        return on.get("/treecat/v1/query?q=%2F*&limit=1").json().get("vid").asLong();
    }

    private static void open(TreeCatTestServer on, String route) {
        browser.get("http://127.0.0.1:" + on.port() + "/ui/#" + route);
    }

    private static List<String> column(String sectionId, int column) {
        return browser.findElements(By.cssSelector("#" + sectionId + " tbody tr")).stream()
                .map(row -> row.findElements(By.tagName("td")).get(column).getText())
                .toList();
    }

    private static String text(String css) {
        return browser.findElement(By.cssSelector(css)).getText();
    }

    @Test
    void browsesToATableItsFilesAndTheFilesOfAnEarlierVid() throws Exception {
        open(server, "/browse");
        Chromium.await(
                browser, "the catalogs", () -> column("children", 0).containsAll(List.of("retail", "warehouse")));
        browser.findElement(By.linkText("warehouse")).click();
        Chromium.await(browser, "the namespaces", () -> column("children", 0).contains("sales"));
        browser.findElement(By.linkText("sales")).click();
        Chromium.await(browser, "the tables", () -> column("children", 0).contains("orders"));
        browser.findElement(By.linkText("orders")).click();

        Chromium.await(
                browser,
                "the table page",
                () -> browser.findElements(By.cssSelector("#snapshots li")).size() == 2);
        assertThat(text("h1")).isEqualTo("orders table");
        assertThat(text("#seen-by"))
                .contains("Iceberg REST: catalog (prefix) warehouse, namespace sales, table orders (format v2)")
                .contains("Hive Metastore: catalog warehouse, database sales, table orders");
        assertThat(text("main")).contains("Schema 0").contains("identity");
        Chromium.await(browser, "the partitions", () -> column("partitions", 0).contains("0:day=2025-01-01"));
        Chromium.await(
                browser,
                "the table's files",
                () -> column("files", 0).equals(List.of("first.parquet", "second.parquet")));
        Chromium.screenshot(browser, "table");

        browser.findElement(By.linkText("0:day=2025-01-01")).click();
        Chromium.await(
                browser, "both files", () -> column("files", 0).equals(List.of("first.parquet", "second.parquet")));
        assertThat(column("files", 3)).containsExactly("10", "20");
        Chromium.screenshot(browser, "files");

        // Travel to the vid of the first append with the picker: the page, and its URL, show that version.
        browser.findElement(By.cssSelector("#version-kind option[value='vid']")).click();
        WebElement value = browser.findElement(By.id("version-value"));
        value.clear();
        value.sendKeys(Long.toString(oneFileVid), Keys.ENTER);
        Chromium.await(
                browser, "the earlier file list", () -> column("files", 0).equals(List.of("first.parquet")));
        assertThat(browser.getCurrentUrl()).endsWith("?vid=" + oneFileVid);
        assertThat(text(".as-of")).contains("vid " + oneFileVid);
        // Links keep the version: up to the table, which has one snapshot then.
        browser.findElement(By.linkText("orders")).click();
        Chromium.await(
                browser,
                "the table at that vid",
                () -> browser.findElements(By.cssSelector("#snapshots li")).size() == 1);
    }

    @Test
    void aNamedSnapshotShowsTheLakeAsOfIt() throws Exception {
        open(server, "/browse");
        Chromium.await(
                browser,
                "the named snapshots",
                () -> column("named-snapshots", 0).contains("before second"));
        assertThat(column("named-snapshots", 1)).contains(Long.toString(oneFileVid));
        browser.findElement(By.linkText("before second")).click();
        Chromium.await(
                browser, "the lake as of the snapshot", () -> text(".as-of").contains("snapshot before second"));
        open(server, "/browse/warehouse/sales/orders/0:day=2025-01-01?snapshot=before%20second");
        Chromium.await(
                browser,
                "the files as of the snapshot",
                () -> column("files", 0).equals(List.of("first.parquet")));
    }

    @Test
    void aViewShowsItsSqlAndVersions() throws Exception {
        open(server, "/browse/warehouse/sales/big_orders");
        Chromium.await(
                browser, "the view's SQL", () -> text("main").contains("SELECT id, day FROM orders WHERE id > 100"));
        assertThat(text("h1")).isEqualTo("big_orders view");
        assertThat(text("main")).contains("Versions").contains("spark");
    }

    @Test
    void comparingTwoVidsOfATableShowsTheFileTheSecondAppendAdded() throws Exception {
        open(server, "/browse/warehouse/sales/orders?vid=" + oneFileVid);
        Chromium.await(
                browser,
                "the table at the first append",
                () -> browser.findElements(By.cssSelector("#snapshots li")).size() == 1);
        browser.findElement(By.linkText("Compare this version with a later one"))
                .click();
        Chromium.await(
                browser,
                "the comparison",
                () -> !browser.findElements(By.id("compare-summary")).isEmpty());
        assertThat(column("compare-added", 0))
                .singleElement()
                .satisfies(path -> assertThat(path).startsWith("/warehouse/sales/orders/0:day=2025-01-01/"));
        assertThat(column("compare-changed", 0)).contains("/warehouse/sales/orders");
        assertThat(column("compare-removed", 0)).isEmpty();
        Chromium.screenshot(browser, "compare");
        // The added file, opened from the comparison, is the second append's.
        browser.findElement(By.cssSelector("#compare-added tbody a")).click();
        Chromium.await(browser, "the added file", () -> text("main").contains("second.parquet"));

        // Vids in the wrong order are a message, not a comparison.
        open(server, "/compare/warehouse/sales/orders?from=" + (oneFileVid + 1) + "&to=" + oneFileVid);
        Chromium.await(browser, "the refusal", () -> text("#comparison").contains("must be older"));
    }

    @Test
    void aQuerysSyntaxErrorIsShownAtItsPositionAndAGoodQueryPagesItsResults() throws Exception {
        open(server, "/query");
        Chromium.await(
                browser,
                "the editor",
                () -> !browser.findElements(By.id("query-text")).isEmpty());
        WebElement editor = browser.findElement(By.id("query-text"));
        editor.clear();
        editor.sendKeys("/[obj_id='retail']/*/[x =]", Keys.chord(Keys.CONTROL, Keys.ENTER));
        Chromium.await(
                browser,
                "the error's position",
                () -> !browser.findElements(By.id("query-error-position")).isEmpty());
        assertThat(text("#query-error-position")).startsWith("Line 1, column 26");
        assertThat(text("#query-error-position pre")).endsWith("^").contains("/[obj_id='retail']/*/[x =]");
        assertThat(text("[data-error-type='QUERY_SYNTAX_ERROR']"))
                .contains("Syntax error at line 1, column 26: expected a field or literal but found ']'");
        // The token at the position is marked in the editor.
        assertThat(text(".editor .tok-err")).isEqualTo("]");
        Chromium.screenshot(browser, "query-error");

        // The sample's 60 files of one region, 100 rows a page: all of them in one page, read at one vid.
        editor = browser.findElement(By.id("query-text"));
        editor.clear();
        editor.sendKeys(
                "/[obj_id='retail']/[obj_id='sales']/[part_val='EU']/*/*", Keys.chord(Keys.CONTROL, Keys.ENTER));
        Chromium.await(browser, "the results", () -> text("#query-summary").startsWith("30 rows, read at vid"));
        assertThat(browser.findElements(By.cssSelector("#results tbody tr"))).hasSize(30);
        assertThat(text("#results tbody tr td")).startsWith("/retail/sales/region=EU/date=2024-12-28/");
        Chromium.screenshot(browser, "query");
    }

    @Test
    void theActivityFeedShowsANewCommitLiveAndFiltersBySubtree() throws Exception {
        open(server, "/activity?path=%2Fnotes");
        Chromium.await(browser, "the live feed", () -> text("#feed-status").startsWith("Following new commits live"));
        Reply elsewhere = server.post(
                "/treecat/v1/commit",
                "{\"writes\": [{\"op\": \"update\", \"path\": \"/other\", \"kind\": \"inner\", \"value\": {}}]}");
        Reply committed = server.post(
                "/treecat/v1/commit",
                "{\"writes\": [{\"op\": \"update\", \"path\": \"/notes\", \"kind\": \"inner\", \"value\": {\"n\": 1}}]}");
        long vid = committed.json().get("vid").asLong();
        Chromium.await(
                browser,
                "the new commit",
                () -> !browser.findElements(By.cssSelector("#commits li[data-vid='" + vid + "']"))
                        .isEmpty());
        assertThat(text("#commits li[data-vid='" + vid + "']"))
                .contains("native.commit")
                .contains("/notes");
        // The commit under another subtree is not listed.
        long other = elsewhere.json().get("vid").asLong();
        assertThat(browser.findElements(By.cssSelector("#commits li[data-vid='" + other + "']")))
                .isEmpty();
        Chromium.screenshot(browser, "activity");
    }

    @Test
    void everyControlHasAnAccessibleNameAndAPhoneScreenNeedsNoSideways() throws Exception {
        open(server, "/browse/warehouse/sales/orders");
        Chromium.await(
                browser,
                "the table page",
                () -> !browser.findElements(By.cssSelector("#snapshots li")).isEmpty());
        // Inputs, selects, text areas and buttons: a label, an aria-label or their own text.
        Object unnamed = ((org.openqa.selenium.JavascriptExecutor) browser)
                .executeScript(
                        "return [...document.querySelectorAll('input, select, textarea, button, a')].filter(e => {"
                                + " const named = e.labels && e.labels.length || e.getAttribute('aria-label') || e.textContent.trim();"
                                + " return !named; }).map(e => e.outerHTML);");
        assertThat((List<?>) unnamed).isEmpty();
        // On a fresh load the first Tab reaches the skip link, which moves the focus to the page's content and
        // keeps the route.
        String url = browser.getCurrentUrl();
        browser.navigate().refresh();
        Chromium.await(
                browser,
                "the table page again",
                () -> !browser.findElements(By.cssSelector("#snapshots li")).isEmpty());
        new org.openqa.selenium.interactions.Actions(browser).sendKeys(Keys.TAB).perform();
        assertThat(browser.switchTo().activeElement().getText()).isEqualTo("Skip to content");
        new org.openqa.selenium.interactions.Actions(browser)
                .sendKeys(Keys.ENTER)
                .perform();
        assertThat(browser.switchTo().activeElement().getAttribute("id")).isEqualTo("page");
        assertThat(browser.getCurrentUrl()).isEqualTo(url);

        browser.manage().window().setSize(new org.openqa.selenium.Dimension(390, 844));
        try {
            open(server, "/browse/warehouse/sales/orders");
            Chromium.await(
                    browser,
                    "the table page on a phone",
                    () -> !browser.findElements(By.cssSelector("#snapshots li")).isEmpty());
            Object sideways = ((org.openqa.selenium.JavascriptExecutor) browser)
                    .executeScript(
                            "return document.documentElement.scrollWidth - document.documentElement.clientWidth;");
            assertThat(((Number) sideways).intValue())
                    .as("page wider than the screen, in CSS pixels")
                    .isLessThanOrEqualTo(0);
            Chromium.screenshot(browser, "table-phone");
        } finally {
            browser.manage().window().setSize(new org.openqa.selenium.Dimension(1280, 1000));
        }
    }

    @Test
    void aMissingObjectAndAVersionNotYetWrittenAreClearMessages() throws Exception {
        open(server, "/browse/warehouse/nothing-here");
        Chromium.await(
                browser,
                "the missing object's message",
                () -> !browser.findElements(By.cssSelector("[role=alert]")).isEmpty());
        assertThat(text("[role=alert]")).contains("The page could not be shown").contains("nothing-here");

        open(server, "/browse/warehouse?vid=999999999");
        Chromium.await(browser, "the future vid's message", () -> text("main").contains("999999999"));
        assertThat(text("[role=alert]")).contains("The page could not be shown");
    }

    @Test
    void aMalformedAddressIsAMessageNotABlankPage() throws Exception {
        open(server, "/browse/warehouse/%E0%A4");
        Chromium.await(
                browser,
                "the message",
                () -> !browser.findElements(By.cssSelector("[role=alert]")).isEmpty());
        assertThat(text("[role=alert]")).contains("%E0%A4");
        open(server, "/no-such-page");
        Chromium.await(
                browser, "the unknown page's message", () -> text("main").contains("No such page: no-such-page"));
    }

    @Test
    void anExpiredVidIsAClearMessage() throws Exception {
        try (TreeCatTestServer retained = new TreeCatTestServer(
                directory.resolve("retained"),
                ConfigOverride.config("retention.keep-for", "0 seconds"),
                ConfigOverride.config("retention.keep-versions", "2"),
                ConfigOverride.config("retention.gc-interval", "1 hour"))) {
            long old = 0;
            for (int i = 1; i <= 5; i++) {
                Reply committed = retained.post(
                        "/treecat/v1/commit",
                        "{\"writes\": [{\"op\": \"update\", \"path\": \"/notes\", \"kind\": \"inner\", \"value\": {\"n\": "
                                + i + "}}]}");
                assertThat(committed.status()).as(committed.body()).isEqualTo(200);
                if (i == 1) {
                    old = committed.json().get("vid").asLong();
                }
            }
            long newest = newestVid(retained);
            HttpClient http = HttpClient.newHttpClient();
            for (int attempt = 0;
                    attempt < 100
                            && retained.get("/treecat/v1/objects?path=%2Fnotes&vid=" + old)
                                            .status()
                                    != 404;
                    attempt++) {
                http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + retained.adminPort() + "/tasks/gc-run"))
                                .POST(HttpRequest.BodyPublishers.noBody())
                                .build(),
                        HttpResponse.BodyHandlers.discarding());
                Thread.sleep(20);
            }
            assertThat(newest).isGreaterThan(old);

            open(retained, "/browse/notes?vid=" + old);
            Chromium.await(
                    browser,
                    "the expired vid's message",
                    () -> !browser.findElements(By.cssSelector("[data-error-type='VERSION_EXPIRED']"))
                            .isEmpty());
            assertThat(text("[data-error-type='VERSION_EXPIRED']"))
                    .contains("Version " + old + " has expired: the oldest readable version is");
            Chromium.screenshot(browser, "expired-vid");
        }
    }

    @Test
    void aSignedInReaderSeesOnlyWhatItMayRead() throws Exception {
        Path data = directory.resolve("secured");
        String readerSecret;
        String adminSecret;
        String readerId;
        String adminId;
        try (TreeCatTestServer open = new TreeCatTestServer(data)) {
            Reply reader = open.post("/treecat/v1/principals", "{\"name\": \"reader\"}");
            Reply admin = open.post("/treecat/v1/principals", "{\"name\": \"admin\"}");
            readerId = reader.json().get("client_id").asText();
            readerSecret = reader.json().get("secret").asText();
            adminId = admin.json().get("client_id").asText();
            adminSecret = admin.json().get("secret").asText();
        }
        try (TreeCatTestServer secured =
                new TreeCatTestServer(data, Map.of("auth.enabled", "true", "auth.admin-principals", "admin"))) {
            String adminToken = token(secured, adminId, adminSecret);
            for (String namespace : List.of("sales", "secret")) {
                Reply created = secured.send(
                        "POST",
                        "/v1/warehouse/namespaces",
                        "{\"namespace\": [\"" + namespace + "\"]}",
                        "Authorization",
                        "Bearer " + adminToken);
                assertThat(created.status()).as(created.body()).isEqualTo(200);
            }
            Reply granted = secured.send(
                    "POST",
                    "/treecat/v1/grants",
                    "{\"principal\": \"reader\", \"privilege\": \"TABLE_READ_METADATA\", \"on\": \"/warehouse/sales\"}",
                    "Authorization",
                    "Bearer " + adminToken);
            assertThat(granted.status()).as(granted.body()).isEqualTo(201);

            // Not signed in: the API refuses, and the page says to sign in.
            open(secured, "/browse/warehouse");
            Chromium.await(browser, "the sign-in notice", () -> text("main").contains("Sign-in needed"));

            signIn(secured, readerId, readerSecret);
            Chromium.await(
                    browser,
                    "the catalogs as the reader",
                    () -> column("children", 0).contains("warehouse"));
            open(secured, "/browse/warehouse");
            Chromium.await(
                    browser,
                    "the namespaces as the reader",
                    () -> column("children", 0).contains("sales"));
            assertThat(column("children", 0)).doesNotContain("secret");
            Chromium.screenshot(browser, "signed-in-reader");
            // A wrong secret is refused with a message.
            browser.findElement(By.xpath("//button[text()='Sign out']")).click();
            signIn(secured, readerId, "not-the-secret");
            Chromium.await(browser, "the refusal", () -> text("main").contains("Sign-in failed"));

            // The admin reads the commit log, filtered by who committed: its own namespaces, and no commit of
            // the reader (who made none).
            signIn(secured, adminId, adminSecret);
            Chromium.await(
                    browser,
                    "the catalogs as the admin",
                    () -> column("children", 0).contains("warehouse"));
            open(secured, "/activity?principal=admin");
            Chromium.await(
                    browser, "the admin's commits", () -> text("#feed-status").startsWith("Following"));
            List<WebElement> byAdmin = browser.findElements(By.cssSelector("#commits > li"));
            assertThat(byAdmin)
                    .isNotEmpty()
                    .allSatisfy(commit -> assertThat(commit.getText()).contains("by admin"));
            assertThat(text("#commits")).contains("/warehouse/secret");
            open(secured, "/activity?principal=reader");
            Chromium.await(
                    browser, "the reader's commits", () -> text("#feed-status").startsWith("Following"));
            assertThat(browser.findElements(By.cssSelector("#commits > li"))).isEmpty();
            browser.findElement(By.xpath("//button[text()='Sign out']")).click();
        }
    }

    /**
     * Sign-in at an external OpenID Connect issuer (navikt's mock-oauth2-server on loopback): the authorization code
     * flow with PKCE, as a public client; the issuer sends the browser back with a code, the page exchanges it and reads
     * the lake as the issuer's user, and the code does not stay in the address bar.
     */
    @Test
    void aUserSignsInAtTheIssuerWithTheAuthorizationCodeFlowAndPkce() throws Exception {
        MockOAuth2Server idp = new MockOAuth2Server();
        idp.start();
        try (TreeCatTestServer secured = new TreeCatTestServer(
                directory.resolve("oidc"),
                TestOidcAuth.oidc(
                        directory.resolve("oidc.yml"), idp.issuerUrl("default").toString(), "1 second"),
                ConfigOverride.config("auth.enabled", "true"),
                ConfigOverride.config("auth.admin-principals", "idp:alice"),
                ConfigOverride.config("console.oidc.issuer", "idp"),
                ConfigOverride.config("console.oidc.client-id", "treecat-console"))) {
            // The token the issuer gives for the code: alice's, for TreeCat's audience.
            idp.enqueueCallback(new DefaultOAuth2TokenCallback(
                    "default", "alice", "JWT", List.of(TestOidcAuth.AUDIENCE), Map.of(), 3600));
            open(secured, "/sign-in");
            Chromium.await(
                    browser,
                    "the issuer's button",
                    () -> !browser.findElements(By.id("issuer-sign-in")).isEmpty());
            assertThat(text("#issuer-sign-in")).isEqualTo("Sign in with idp");
            browser.findElement(By.id("issuer-sign-in")).click();

            Chromium.await(
                    browser, "the lake as alice", () -> column("children", 0).contains("warehouse"));
            assertThat(browser.getCurrentUrl())
                    .startsWith("http://127.0.0.1:" + secured.port() + "/ui/#/browse")
                    .doesNotContain("code=");
            // The issuer saw PKCE: a S256 challenge with the authorization request, the verifier with the token
            // request.
            // Every request the issuer got (mock-oauth2-server records them all, and throws once none is left).
            List<okhttp3.mockwebserver.RecordedRequest> seen = new java.util.ArrayList<>();
            while (true) {
                try {
                    seen.add(idp.takeRequest(1, java.util.concurrent.TimeUnit.SECONDS));
                } catch (RuntimeException none) {
                    break;
                }
            }
            var authorize = seen.stream()
                    .filter(request -> request.getRequestUrl().encodedPath().endsWith("/authorize"))
                    .findFirst()
                    .orElseThrow();
            assertThat(authorize.getRequestUrl().queryParameter("code_challenge_method"))
                    .isEqualTo("S256");
            assertThat(authorize.getRequestUrl().queryParameter("code_challenge"))
                    .hasSize(43);
            assertThat(authorize.getRequestUrl().queryParameter("client_id")).isEqualTo("treecat-console");
            assertThat(authorize.getRequestUrl().queryParameter("redirect_uri"))
                    .isEqualTo("http://127.0.0.1:" + secured.port() + "/ui/");
            var exchange = seen.stream()
                    .filter(request -> request.getRequestUrl().encodedPath().endsWith("/token"))
                    .findFirst()
                    .orElseThrow();
            assertThat(exchange.getBody().readUtf8())
                    .contains("grant_type=authorization_code")
                    .contains("code_verifier=");
            browser.findElement(By.xpath("//button[text()='Sign out']")).click();
        } finally {
            idp.shutdown();
        }
    }

    /** Signs in on the sign-in page with a built-in principal's client id and secret, as a user types them. */
    private static void signIn(TreeCatTestServer on, String clientId, String secret) throws Exception {
        open(on, "/sign-in");
        Chromium.await(
                browser,
                "the sign-in form",
                () -> !browser.findElements(By.id("client-id")).isEmpty());
        // Already on the sign-in page (after a refusal), the form keeps what was typed.
        browser.findElement(By.id("client-id")).clear();
        browser.findElement(By.id("client-id")).sendKeys(clientId);
        browser.findElement(By.id("client-secret")).clear();
        browser.findElement(By.id("client-secret")).sendKeys(secret);
        browser.findElement(By.xpath("//form[@aria-label='Sign in']//button")).click();
    }

    private static String token(TreeCatTestServer on, String clientId, String secret) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + on.port() + "/v1/oauth/tokens"))
                                .header("Content-Type", "application/x-www-form-urlencoded")
                                .POST(HttpRequest.BodyPublishers.ofString("grant_type=client_credentials&client_id="
                                        + clientId + "&client_secret=" + secret))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return TreeCatTestServer.JSON
                .readTree(response.body())
                .get("access_token")
                .asText();
    }
}
