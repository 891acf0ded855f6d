package io.treecat.benchmarks.iceberg;

import io.treecat.benchmarks.ServerProcess;
import io.treecat.lakehouse.storage.LocalFileIO;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;

/**
 * What authentication and authorization cost an Iceberg client (issue 18's goal: under 5 % on {@code loadTable}, with
 * validated tokens cached): REST {@code loadTable} and one-file {@code FastAppend} commit latency against two TreeCat
 * servers started alike (the same jar, JVM options and embedded configuration), one with {@code auth.enabled: false}
 * and two with {@code auth.enabled: true}, side by side in one run.
 *
 * <p>Three clients, each Iceberg's own {@link RESTCatalog} on a server of its own (each server with the same history:
 * started once with auth off to make the principals, then again), each with its own table (same schema, same spec,
 * seeded with the same 20 commits):
 *
 * <ul>
 *   <li>{@code off}: no credential, against the server with auth off;
 *   <li>{@code built-in}: {@code credential=<client id>:<secret>} of a built-in principal that is <b>not</b> an admin,
 *       so every request passes the grants check (its grants: create, write and drop on the catalog);
 *   <li>{@code oidc}: {@code token=} of an external issuer ({@link LoopbackIssuer} in this JVM: discovery, JWKS,
 *       RS256), principal {@code idp:bench} with the same grants.
 * </ul>
 *
 * <p>The clients alternate in rounds ({@code -Drounds}, 5; each round starting with the next client), so that all
 * three see the same machine load; each round is
 * {@code -Dloads} (200) {@code loadTable} calls then {@code -Dcommits} (20) commits per client. Before measuring, each
 * client runs an untimed warm-up of the same calls ({@code -Dwarmup}, 300 loads and 30 commits). Reported per client:
 * p50, p99 and mean of each call, and the servers' CPU time per call (from {@code /proc}, which waiting for a core does
 * not inflate). The three servers run together; only one is busy at a time.
 *
 * <pre>
 * java -Xmx1g -cp benchmarks/target/treecat-benchmarks.jar io.treecat.benchmarks.iceberg.AuthOverheadBenchmark
 * </pre>
 */
public final class AuthOverheadBenchmark {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "day", Types.StringType.get()));
    private static final PartitionSpec SPEC =
            PartitionSpec.builderFor(SCHEMA).identity("day").build();
    private static final Namespace NS = Namespace.of("bench");
    private static final String AUDIENCE = "treecat";
    private static final List<String> GRANTS = List.of("NAMESPACE_CREATE", "TABLE_CREATE", "TABLE_WRITE", "TABLE_DROP");
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final Pattern CREDENTIAL = Pattern.compile("\"credential\"\\s*:\\s*\"([^\"]+)\"");
    private static final Pattern ACCESS_TOKEN = Pattern.compile("\"access_token\"\\s*:\\s*\"([^\"]+)\"");

    private AuthOverheadBenchmark() {}

    /** One measured client: its catalog, its table, the server behind it, and its samples (nanoseconds). */
    private record Client(String name, RESTCatalog catalog, Table table, ServerProcess server, Samples samples) {}

    private record Samples(List<Long> loads, List<Long> commits, long[] serverCpu) {
        Samples() {
            this(new ArrayList<>(), new ArrayList<>(), new long[2]);
        }
    }

    public static void main(String[] args) throws Exception {
        int rounds = Integer.getInteger("rounds", 5);
        int loads = Integer.getInteger("loads", 200);
        int commits = Integer.getInteger("commits", 20);
        int warmup = Integer.getInteger("warmup", 300);
        Path work = Files.createTempDirectory("auth-overhead-bench");
        Path jar = ServerProcess.treecatJar();
        List<String> jvm = serverJvmOptions();

        try (LoopbackIssuer idp = LoopbackIssuer.start()) {
            Path config = configWithIssuer(work, idp.issuer());
            Map<String, String> authOn = Map.of(
                    "TREECAT_AUTH_ENABLED", "true",
                    "TREECAT_AUTH_ADMIN_PRINCIPALS", "[admin]",
                    "TREECAT_HMS_ALLOW_UNAUTHENTICATED", "true");
            try (Prepared off = prepare(jar, work.resolve("off"), jvm, config, Map.of());
                    Prepared builtIn = prepare(jar, work.resolve("built-in"), jvm, config, authOn);
                    Prepared oidc = prepare(jar, work.resolve("oidc"), jvm, config, authOn)) {
                grantAll(builtIn, "bench");
                grantAll(oidc, "idp:bench");
                String idpToken = idp.token("bench", AUDIENCE, Duration.ofDays(1));
                // -Dcross=true adds the issuer's token on the built-in client's server: tells a difference of the
                // token's kind from one of the server (each server JIT-compiles its own way).
                if (Boolean.getBoolean("cross")) {
                    grantAll(builtIn, "idp:bench");
                }
                List<Client> clients = new java.util.ArrayList<>(List.of(
                        client("off", catalog(off.server(), Map.of()), off.server()),
                        client(
                                "built-in",
                                catalog(
                                        builtIn.server(),
                                        Map.of("credential", builtIn.bench(), "rest.auth.type", "oauth2")),
                                builtIn.server()),
                        client(
                                "oidc",
                                catalog(oidc.server(), Map.of("token", idpToken, "token-refresh-enabled", "false")),
                                oidc.server())));
                if (Boolean.getBoolean("cross")) {
                    clients.add(client(
                            "oidc-on-built-in",
                            catalog(builtIn.server(), Map.of("token", idpToken, "token-refresh-enabled", "false")),
                            builtIn.server()));
                }

                for (Client client : clients) {
                    run(client, warmup, warmup / 10, false);
                }
                for (int round = 0; round < rounds; round++) {
                    // Each round starts with the next client, so that none always follows the same one.
                    for (int i = 0; i < clients.size(); i++) {
                        run(clients.get((round + i) % clients.size()), loads, commits, true);
                    }
                }
                report(clients, loads, commits, rounds);
                for (Client client : clients) {
                    client.catalog().close();
                }
            }
        }
    }

    /** A server for one client, and the credentials of the principals made on it. */
    private record Prepared(ServerProcess server, String admin, String bench) implements AutoCloseable {
        @Override
        public void close() throws InterruptedException {
            server.close();
        }
    }

    /**
     * A server with the same history as the others: started with auth off to make the principals {@code admin} and
     * {@code bench} (docs/security.md, "Turning it on"), stopped, and started again on the same data directory with
     * {@code environment} (auth on, or nothing). Each client gets a server of its own, so that no server serves two
     * clients' calls (a server that does is warmer than one that waits in between).
     */
    private static Prepared prepare(
            Path jar, Path directory, List<String> jvm, Path config, Map<String, String> environment)
            throws IOException, InterruptedException {
        String admin;
        String bench;
        try (ServerProcess setup = startTreeCat(jar, directory, jvm, Map.of(), config)) {
            admin = createPrincipal(setup, "admin");
            bench = createPrincipal(setup, "bench");
        }
        ServerProcess server = startTreeCat(jar, directory, jvm, environment, config);
        return new Prepared(server, admin, bench);
    }

    /** The measured principal's grants (it is not an admin, so every call passes the grants check). */
    private static void grantAll(Prepared server, String grantee) throws IOException, InterruptedException {
        String adminToken = token(server.server(), server.admin());
        for (String privilege : GRANTS) {
            grant(server.server(), adminToken, grantee, privilege);
        }
    }

    /** The same options for every server: heap, and any extra ones (a profiler) from -Dtreecat.server.jvm-args. */
    private static List<String> serverJvmOptions() {
        List<String> jvm = new ArrayList<>(List.of(System.getProperty("treecat.server.xmx", "-Xmx1g")));
        String extra = System.getProperty("treecat.server.jvm-args", "").trim();
        if (!extra.isEmpty()) {
            jvm.addAll(Arrays.asList(extra.split("\\s+")));
        }
        return jvm;
    }

    private static ServerProcess startTreeCat(
            Path jar, Path directory, List<String> jvm, Map<String, String> environment, Path config)
            throws IOException, InterruptedException {
        return ServerProcess.startTreeCat(jar, directory, jvm, environment, ServerProcess.freePort(), 0, config);
    }

    /**
     * The embedded default with one {@code auth.oidc} issuer, for every server (the one with auth off ignores it), so
     * that their configurations differ only in {@code TREECAT_AUTH_*}.
     */
    private static Path configWithIssuer(Path work, String issuer) throws IOException {
        String defaults;
        try (java.util.jar.JarFile archive =
                        new java.util.jar.JarFile(ServerProcess.treecatJar().toFile());
                java.io.InputStream in = archive.getInputStream(archive.getJarEntry("treecat-default.yml"))) {
            defaults = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        String emptyList = "\n  oidc: []\n";
        if (!defaults.contains(emptyList)) {
            throw new IllegalStateException("treecat-default.yml has no empty auth.oidc list");
        }
        String issuers =
                "\n  oidc:\n    - name: idp\n      issuer: \"" + issuer + "\"\n      audience: " + AUDIENCE + "\n";
        Path file = work.resolve("treecat.yml");
        Files.writeString(file, defaults.replace(emptyList, issuers), StandardCharsets.UTF_8);
        return file;
    }

    private static RESTCatalog catalog(ServerProcess server, Map<String, String> auth) {
        RESTCatalog catalog = new RESTCatalog();
        Map<String, String> properties = new HashMap<>(auth);
        properties.put(CatalogProperties.URI, "http://127.0.0.1:" + server.port());
        properties.put(CatalogProperties.FILE_IO_IMPL, LocalFileIO.class.getName());
        if (!auth.isEmpty()) {
            properties.put("oauth2-server-uri", "http://127.0.0.1:" + server.port() + "/v1/oauth/tokens");
        }
        catalog.initialize("treecat", properties);
        return catalog;
    }

    private static Client client(String name, RESTCatalog catalog, ServerProcess server) {
        if (!catalog.namespaceExists(NS)) {
            catalog.createNamespace(NS);
        }
        Table table = catalog.createTable(TableIdentifier.of(NS, "t_" + name.replace('-', '_')), SCHEMA, SPEC);
        for (int i = 0; i < 20; i++) {
            table.newFastAppend().appendFile(file(table, i)).commit();
        }
        return new Client(name, catalog, table, server, new Samples());
    }

    private static DataFile file(Table table, long n) {
        String day = "2026-01-" + String.format(Locale.ROOT, "%02d", 1 + n % 28);
        return DataFiles.builder(table.spec())
                .withPath(table.location() + "/data/day=" + day + "/f-" + n + "-" + System.nanoTime() + ".parquet")
                .withFileSizeInBytes(1024)
                .withRecordCount(100)
                .withPartitionPath("day=" + day)
                .build();
    }

    private static void run(Client client, int loads, int commits, boolean measured) {
        TableIdentifier id = TableIdentifier.of(NS, "t_" + client.name().replace('-', '_'));
        long cpuBefore = client.server().cpuNanos();
        for (int i = 0; i < loads; i++) {
            long start = System.nanoTime();
            client.catalog().loadTable(id);
            long took = System.nanoTime() - start;
            if (measured) {
                client.samples().loads().add(took);
            }
        }
        long cpuAfterLoads = client.server().cpuNanos();
        Table table = client.catalog().loadTable(id);
        for (int i = 0; i < commits; i++) {
            DataFile file = file(table, i);
            long start = System.nanoTime();
            table.newFastAppend().appendFile(file).commit();
            long took = System.nanoTime() - start;
            if (measured) {
                client.samples().commits().add(took);
            }
        }
        long cpuAfterCommits = client.server().cpuNanos();
        if (measured) {
            // The one loadTable between the two phases is counted with the commits; it is 1 of 20+.
            client.samples().serverCpu()[0] += cpuAfterLoads - cpuBefore;
            client.samples().serverCpu()[1] += cpuAfterCommits - cpuAfterLoads;
        }
    }

    private static void report(List<Client> clients, int loads, int commits, int rounds) {
        System.out.printf(
                Locale.ROOT,
                "%d rounds; per round and client %d loadTable calls and %d one-file commits%n%n",
                rounds,
                loads,
                commits);
        System.out.printf(
                Locale.ROOT,
                "| client | loadTable p50 ms | p99 ms | mean ms | server CPU ms/load | commit p50 ms | p99 ms | mean ms"
                        + " | server CPU ms/commit |%n|---|---|---|---|---|---|---|---|---|%n");
        Map<String, double[]> p50s = new LinkedHashMap<>();
        for (Client client : clients) {
            long[] load = sorted(client.samples().loads());
            long[] commit = sorted(client.samples().commits());
            double cpuPerLoad = client.samples().serverCpu()[0] / 1e6 / load.length;
            double cpuPerCommit = client.samples().serverCpu()[1] / 1e6 / commit.length;
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |%n",
                    client.name(),
                    ms(percentile(load, 0.50)),
                    ms(percentile(load, 0.99)),
                    ms(mean(load)),
                    cpuPerLoad,
                    ms(percentile(commit, 0.50)),
                    ms(percentile(commit, 0.99)),
                    ms(mean(commit)),
                    cpuPerCommit);
            p50s.put(client.name(), new double[] {percentile(load, 0.50), percentile(commit, 0.50)});
        }
        double[] off = p50s.get("off");
        System.out.println();
        for (Map.Entry<String, double[]> entry : p50s.entrySet()) {
            if (!entry.getKey().equals("off")) {
                System.out.printf(
                        Locale.ROOT,
                        "%s vs off: loadTable p50 %+.1f %%, commit p50 %+.1f %%%n",
                        entry.getKey(),
                        100 * (entry.getValue()[0] / off[0] - 1),
                        100 * (entry.getValue()[1] / off[1] - 1));
            }
        }
    }

    // ---- TreeCat's native API over plain HTTP

    private static String createPrincipal(ServerProcess server, String name) throws IOException, InterruptedException {
        HttpResponse<String> created = send(
                server, "POST", "/treecat/v1/principals", "application/json", "{\"name\": \"" + name + "\"}", null);
        return field(CREDENTIAL, created, 201);
    }

    private static String token(ServerProcess server, String credential) throws IOException, InterruptedException {
        String[] parts = credential.split(":", 2);
        String form = "grant_type=client_credentials&scope=catalog&client_id="
                + java.net.URLEncoder.encode(parts[0], StandardCharsets.UTF_8) + "&client_secret="
                + java.net.URLEncoder.encode(parts[1], StandardCharsets.UTF_8);
        return field(
                ACCESS_TOKEN,
                send(server, "POST", "/v1/oauth/tokens", "application/x-www-form-urlencoded", form, null),
                200);
    }

    private static void grant(ServerProcess server, String token, String grantee, String privilege)
            throws IOException, InterruptedException {
        String body =
                "{\"principal\": \"" + grantee + "\", \"privilege\": \"" + privilege + "\", \"on\": \"/warehouse\"}";
        HttpResponse<String> granted = send(server, "POST", "/treecat/v1/grants", "application/json", body, token);
        if (granted.statusCode() != 201) {
            throw new IllegalStateException("grant " + privilege + " answered " + granted.statusCode());
        }
    }

    private static HttpResponse<String> send(
            ServerProcess server, String method, String path, String type, String body, String token)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .header("Content-Type", type)
                .method(method, HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A field of a JSON answer; the answer itself is never printed (it holds a secret or a token). */
    private static String field(Pattern pattern, HttpResponse<String> answer, int status) {
        Matcher matcher = pattern.matcher(answer.body());
        if (answer.statusCode() != status || !matcher.find()) {
            throw new IllegalStateException("unexpected answer " + answer.statusCode());
        }
        return matcher.group(1);
    }

    // ---- statistics

    private static long[] sorted(List<Long> samples) {
        return samples.stream().mapToLong(Long::longValue).sorted().toArray();
    }

    private static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }

    private static double mean(long[] samples) {
        return Arrays.stream(samples).average().orElse(0);
    }

    private static double ms(double nanos) {
        return nanos / 1e6;
    }
}
