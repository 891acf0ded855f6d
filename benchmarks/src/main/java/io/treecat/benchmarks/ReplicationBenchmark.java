package io.treecat.benchmarks;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Issue 20's replication figures: a single TreeCat node against a Raft group of three, on the same machine, through
 * the native JSON API and Iceberg REST over HTTP.
 *
 * <p>Both setups run at once for the whole run, so that their figures alternate round by round and share the
 * machine's drift: the <b>single</b> node is the packaged server as {@link ServerProcess#startTreeCat} starts it;
 * the <b>group</b> is three packaged servers started concurrently (a node serves only once a majority runs), each with
 * its own data directory and Raft log, {@code -Ddw.replication.node-id=nX} and {@code
 * -Ddw.replication.peers=n1=127.0.0.1:P1,n2=…,n3=…}. The leader is the node whose admin port's {@code /metrics}
 * gauge {@code treecat.replication.leader} is 1 (a single node's is -1); "the follower" is the first other node.
 *
 * <p>Setup, on each: {@code /bench} and {@value #READ_TARGETS} children {@code /bench/r0…} to read, and the Iceberg
 * namespace {@value #NAMESPACE}. Then an untimed warm-up, with all the clients, on each node: {@code
 * -Dwarmup.commit-seconds} (30) of commits and {@code -Dwarmup.seconds} (5) of each read (a group's commit path, Ratis
 * and gRPC in three JVMs on two cores, is still being compiled by C2 after 5 s: its p50 kept falling for a minute of
 * commits, 11.6 to 2.7 ms), then {@code -Drounds} (2) rounds of the figures, each workload's setups in turn, the order rotated
 * every round:
 *
 * <ol type="a">
 *   <li>Commit latency, one client: {@code -Dcommits} (300) autocommits in a row, each {@code POST /treecat/v1/commit}
 *       of one {@code add} of a new {@code /bench/c<n>}: on the single node; on the group's leader; on a follower,
 *       which forwards it to the leader and answers once it has installed it too.
 *   <li>Commit throughput: {@code -Dclients} (8) clients committing as fast as they are answered for {@code -Dseconds}
 *       (8); on the group the clients are dealt to the three nodes in turn.
 *   <li>Native reads: the same number of clients for the same time, each request {@code GET /treecat/v1/query} of
 *       {@code /[obj_id='bench']/[obj_id='r<k>']} for a random k (a point query; the node's newest vid, no Raft): on the
 *       single node, the follower, the leader.
 *   <li>Iceberg REST reads: {@code GET /v1/warehouse/namespaces/benchns} the same way; on a group node each takes a
 *       linearizable read point first (Ratis's read index: a round trip to the leader from a follower).
 * </ol>
 *
 * <p>Every request is checked (status 200, and the commit's {@code vid} or the row read); a failed one is counted and
 * its latency left out. The last table gives, per figure, operations/s, p50/p90/p99 and the CPU time per operation of
 * the node(s) it targets, of the rest of its setup, and of this driver (from /proc, as {@link ServerProcess#cpuNanos}:
 * on a shared 2-core machine the per-node capacity in CPU terms is steadier than the wall-clock rate), then the issue's
 * goal: the group's commit p50 ≤ 3× the single node's. From the repository root, after {@code ./mvnw -B -q
 * -DskipTests -pl catalog-server,benchmarks -am package}:
 *
 * <pre>
 * java -cp benchmarks/target/treecat-benchmarks.jar io.treecat.benchmarks.ReplicationBenchmark
 * </pre>
 *
 * <p>About 4 minutes. {@code -Dserver.xmx} (-Xmx1g) and {@code -Dserver.jvm-args} go to every server's JVM; {@code
 * -Dkeep=true} keeps the work directory (the servers' logs, stores and Raft logs), deleted otherwise.
 */
final class ReplicationBenchmark {
    private static final int READ_TARGETS = 100;
    private static final String NAMESPACE = "benchns";
    private static final String COMMIT = "/treecat/v1/commit";
    private static final String ICEBERG_NAMESPACES = "/v1/warehouse/namespaces";
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);
    private static final HttpClient HTTP = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AtomicLong NAMES = new AtomicLong();

    private ReplicationBenchmark() {}

    /**
     * One server: its id ({@code single}, or its node id in the group), process and admin port, and its directory and
     * options, to start it again on its data after a kill.
     */
    private record Node(String id, ServerProcess server, int adminPort, Path directory, List<String> options) {
        Node {
            requireNonNull(id, "id is null");
            requireNonNull(server, "server is null");
            options = List.copyOf(options);
        }

        URI uri(String pathAndQuery) {
            return URI.create("http://127.0.0.1:" + server.port() + pathAndQuery);
        }
    }

    /** A setup under test: its nodes, and in a group its leader and the follower the figures use. */
    private record Setup(String name, List<Node> nodes, Node leader, Node follower) {
        Setup {
            requireNonNull(name, "name is null");
            nodes = List.copyOf(nodes);
            requireNonNull(leader, "leader is null");
        }
    }

    /** One request, sent to one node; throws when the answer is not the expected one. */
    @FunctionalInterface
    private interface Operation {
        void run(Node node) throws IOException, InterruptedException;
    }

    /** One figure of the table: what its rounds gathered. */
    static final class Figure {
        final String setup;
        final String workload;
        final String target;
        final int clients;
        final List<Long> nanos = new ArrayList<>();
        final Map<String, Integer> errors = new TreeMap<>();
        long failures;
        double seconds;
        long targetCpu;
        long restCpu;
        long driverCpu;
        long idleCpu;

        Figure(String setup, String workload, String target, int clients) {
            this.setup = setup;
            this.workload = workload;
            this.target = target;
            this.clients = clients;
        }

        double perSecond() {
            return nanos.size() / Math.max(1e-9, seconds);
        }

        double percentileMillis(double p) {
            long[] sorted = nanos.stream().mapToLong(Long::longValue).sorted().toArray();
            if (sorted.length == 0) {
                return Double.NaN;
            }
            return sorted[Math.min(sorted.length - 1, Math.max(0, (int) Math.ceil(p * sorted.length) - 1))] / 1e6;
        }

        double cpuMicrosPerOperation(long cpuNanos) {
            return cpuNanos / 1e3 / Math.max(1, nanos.size());
        }
    }

    /** One measured step of a round: a figure, the nodes its clients are dealt to, and its request. */
    private record Step(Figure figure, Setup setup, List<Node> targets, Operation operation) {}

    /**
     * How much to run: rounds of the figures, commits of a one-client latency figure, clients of the others and their
     * seconds, the untimed warm-ups (reads, commits), and how many times to kill the leader at the end (fail-over).
     */
    record Params(
            int rounds,
            int commits,
            int clients,
            double seconds,
            double warmupSeconds,
            double commitWarmupSeconds,
            int kills) {}

    /** What a run measured: its figures, and each kill's fail-over time in milliseconds (none when not measured). */
    record Measured(List<Figure> figures, List<Double> failoverMillis) {
        Measured {
            figures = List.copyOf(figures);
            failoverMillis = List.copyOf(failoverMillis);
        }
    }

    /** Starts both setups under {@code work}, measures, stops them; progress goes to stderr. */
    static Measured measure(Path work, Params params) throws Exception {
        int rounds = params.rounds();
        int commits = params.commits();
        int clients = params.clients();
        double seconds = params.seconds();
        double warmupSeconds = params.warmupSeconds();
        double commitWarmupSeconds = params.commitWarmupSeconds();
        System.err.printf(Locale.ROOT, "Work directory %s%nStarted %s, load average %s%n", work, now(), loadAverage());

        List<Node> all = new ArrayList<>();
        try {
            Node lone = startNode("single", work.resolve("single"), List.of());
            all.add(lone);
            Setup single = new Setup("single", List.of(lone), lone, null);
            List<Node> members = startGroup(work.resolve("group"), 3);
            all.addAll(members);
            Node leader = awaitLeader(members);
            Node follower =
                    members.stream().filter(node -> node != leader).findFirst().orElseThrow();
            Setup group = new Setup("group", members, leader, follower);
            System.err.printf(
                    Locale.ROOT,
                    "single: started in %d ms, leader gauge %d; group: started in %s ms, leader %s, follower %s%n",
                    lone.server().startedMillis(),
                    leaderGauge(lone),
                    members.stream()
                            .map(node -> node.id() + " " + node.server().startedMillis())
                            .toList(),
                    leader.id(),
                    follower.id());
            for (Setup setup : List.of(single, group)) {
                prepare(setup);
            }

            Operation commit = ReplicationBenchmark::commit;
            Operation nativeRead = ReplicationBenchmark::nativeRead;
            Operation icebergRead = ReplicationBenchmark::icebergRead;
            if (warmupSeconds > 0) {
                // Untimed: every server's and this driver's paths compiled before the first figure, each node's as
                // long as the single node's (a follower's own paths: forwarding, the read index).
                for (Setup setup : List.of(single, group)) {
                    for (Node node : setup.nodes()) {
                        for (Operation operation : List.of(commit, nativeRead, icebergRead)) {
                            Figure scratch = new Figure(setup.name(), "warm-up", node.id(), clients);
                            run(
                                    new Step(scratch, setup, List.of(node), operation),
                                    all,
                                    clients,
                                    0,
                                    operation == commit ? commitWarmupSeconds : warmupSeconds);
                        }
                    }
                }
                System.err.printf(
                        Locale.ROOT,
                        "%s warm-up done (%.0f s of commits and %.0f s of each read on each node), load average %s%n",
                        now(),
                        commitWarmupSeconds,
                        warmupSeconds,
                        loadAverage());
            }

            Map<String, List<Step>> workloads = new LinkedHashMap<>();
            workloads.put(
                    "a",
                    List.of(
                            step(single, lone, "a. commit, 1 client", 1, commit),
                            step(group, leader, "a. commit, 1 client, on the leader", 1, commit),
                            step(group, follower, "a. commit, 1 client, on a follower (forwarded)", 1, commit)));
            workloads.put(
                    "b",
                    List.of(
                            new Step(
                                    new Figure("single", "b. commit, " + clients + " clients", "single", clients),
                                    single,
                                    single.nodes(),
                                    commit),
                            new Step(
                                    new Figure(
                                            "group",
                                            "b. commit, " + clients + " clients, spread over the nodes",
                                            "all 3",
                                            clients),
                                    group,
                                    group.nodes(),
                                    commit)));
            workloads.put(
                    "c",
                    List.of(
                            step(single, lone, "c. native point query", clients, nativeRead),
                            step(group, follower, "c. native point query, on a follower", clients, nativeRead),
                            step(group, leader, "c. native point query, on the leader", clients, nativeRead)));
            workloads.put(
                    "d",
                    List.of(
                            step(single, lone, "d. Iceberg REST GET namespace", clients, icebergRead),
                            step(group, follower, "d. Iceberg REST GET namespace, on a follower", clients, icebergRead),
                            step(group, leader, "d. Iceberg REST GET namespace, on the leader", clients, icebergRead)));

            for (int round = 0; round < rounds; round++) {
                for (List<Step> steps : workloads.values()) {
                    List<Step> order = new ArrayList<>(steps);
                    Collections.rotate(order, -round);
                    for (Step step : order) {
                        boolean fixedCount = step.figure().clients == 1;
                        run(step, all, step.figure().clients, fixedCount ? commits : 0, seconds);
                        System.err.printf(
                                Locale.ROOT,
                                "%s round %d: %s %s on %s: %.1f/s, p50 %.2f ms so far%n",
                                now(),
                                round + 1,
                                step.figure().setup,
                                step.figure().workload,
                                step.figure().target,
                                step.figure().perSecond(),
                                step.figure().percentileMillis(0.5));
                    }
                }
                System.err.printf(
                        Locale.ROOT, "round %d of %d done, load average %s%n", round + 1, rounds, loadAverage());
                if (leaderGauge(leader) != 1) {
                    // An election on the loaded machine: "leader" and "follower" figures from here on are mixed.
                    System.err.printf(
                            Locale.ROOT, "WARNING: %s no longer leads after round %d%n", leader.id(), round + 1);
                }
            }
            List<Figure> figures = workloads.values().stream()
                    .flatMap(List::stream)
                    .map(Step::figure)
                    .toList();
            List<Double> failoverMillis = failovers(members, params.kills(), all);
            return new Measured(figures, failoverMillis);
        } finally {
            for (Node node : all) {
                node.server().close();
            }
        }
    }

    private static Step step(Setup setup, Node target, String workload, int clients, Operation operation) {
        return new Step(new Figure(setup.name(), workload, target.id(), clients), setup, List.of(target), operation);
    }

    // ---- servers

    /** A TreeCat server on its own admin port (the leader gauge is read there), with {@code options} added. */
    private static Node startNode(String id, Path directory, List<String> options) throws Exception {
        int adminPort = ServerProcess.freePort();
        List<String> jvm = ServerProcess.serverJvmOptions();
        jvm.add("-Ddw.server.adminConnectors[0].port=" + adminPort);
        jvm.addAll(options);
        ServerProcess server =
                ServerProcess.startTreeCat(ServerProcess.treecatJar(), directory, jvm, ServerProcess.freePort(), 0);
        return new Node(id, server, adminPort, directory, options);
    }

    /** Starts a group's nodes at once (each waits for a majority to elect a leader before it serves). */
    private static List<Node> startGroup(Path directory, int size) throws Exception {
        List<String> ids = new ArrayList<>();
        List<String> peers = new ArrayList<>();
        for (int i = 1; i <= size; i++) {
            ids.add("n" + i);
            peers.add("n" + i + "=127.0.0.1:" + ServerProcess.freePort());
        }
        ExecutorService starters = Executors.newFixedThreadPool(size);
        try {
            List<Future<Node>> starting = new ArrayList<>();
            for (String id : ids) {
                List<String> options =
                        List.of("-Ddw.replication.node-id=" + id, "-Ddw.replication.peers=" + String.join(",", peers));
                starting.add(starters.submit(() -> startNode(id, directory.resolve(id), options)));
            }
            List<Node> nodes = new ArrayList<>();
            Exception failure = null;
            for (Future<Node> future : starting) {
                try {
                    nodes.add(future.get());
                } catch (java.util.concurrent.ExecutionException e) {
                    failure = e.getCause() instanceof Exception cause ? cause : e;
                }
            }
            if (failure != null) {
                for (Node node : nodes) {
                    node.server().close();
                }
                throw failure;
            }
            return nodes;
        } finally {
            starters.shutdownNow();
        }
    }

    /** The group's leader: the one node whose {@code treecat.replication.leader} gauge is 1. */
    private static Node awaitLeader(List<Node> nodes) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            List<Node> leaders = new ArrayList<>();
            for (Node node : nodes) {
                if (leaderGauge(node) == 1) {
                    leaders.add(node);
                }
            }
            if (leaders.size() == 1) {
                return leaders.get(0);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("No single leader within 60 s: " + leaders);
            }
            Thread.sleep(200);
        }
    }

    /** The admin port's {@code treecat.replication.leader} gauge: 1 on the leader, 0 on a follower, -1 alone. */
    private static int leaderGauge(Node node) throws IOException, InterruptedException {
        HttpResponse<String> response =
                send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.adminPort() + "/metrics"))
                        .timeout(REQUEST_TIMEOUT)
                        .build());
        expect(response, 200);
        JsonNode value = JSON.readTree(response.body())
                .path("gauges")
                .path("treecat.replication.leader")
                .path("value");
        if (!value.isNumber()) {
            throw new IllegalStateException(node.id() + ": no treecat.replication.leader gauge on its admin port");
        }
        return value.asInt();
    }

    // ---- requests

    /** {@code /bench}, its children to read, and the Iceberg namespace, through the leader; then seen on every node. */
    private static void prepare(Setup setup) throws IOException, InterruptedException {
        post(setup.leader(), COMMIT, "{\"writes\": [{\"op\": \"add\", \"path\": \"/bench\", \"value\": {}}]}");
        StringBuilder writes = new StringBuilder("{\"writes\": [");
        for (int i = 0; i < READ_TARGETS; i++) {
            writes.append(i == 0 ? "" : ", ")
                    .append("{\"op\": \"add\", \"path\": \"/bench/r")
                    .append(i)
                    .append("\", \"value\": {\"n\": ")
                    .append(i)
                    .append("}}");
        }
        HttpResponse<String> targets =
                post(setup.leader(), COMMIT, writes.append("]}").toString());
        long vid = JSON.readTree(targets.body()).path("vid").asLong();
        post(setup.leader(), ICEBERG_NAMESPACES, "{\"namespace\": [\"" + NAMESPACE + "\"]}");
        for (Node node : setup.nodes()) {
            // A follower answers a native read at its own newest vid: wait until it has the setup's commits.
            HttpResponse<String> seen = send(HttpRequest.newBuilder(node.uri(queryPath(READ_TARGETS - 1)))
                    .header("X-TreeCat-Min-Vid", Long.toString(vid))
                    .timeout(REQUEST_TIMEOUT)
                    .build());
            expect(seen, 200);
            icebergRead(node);
        }
    }

    private static void commit(Node node) throws IOException, InterruptedException {
        String path = "/bench/c" + NAMES.incrementAndGet();
        HttpResponse<String> response =
                post(node, COMMIT, "{\"writes\": [{\"op\": \"add\", \"path\": \"" + path + "\", \"value\": {}}]}");
        if (!response.body().contains("\"vid\"")) {
            throw new IllegalStateException("commit answered without a vid: " + response.body());
        }
    }

    private static void nativeRead(Node node) throws IOException, InterruptedException {
        int target = ThreadLocalRandom.current().nextInt(READ_TARGETS);
        HttpResponse<String> response = send(HttpRequest.newBuilder(node.uri(queryPath(target)))
                .timeout(REQUEST_TIMEOUT)
                .build());
        expect(response, 200);
        if (!response.body().contains("/bench/r" + target + "\"")) {
            throw new IllegalStateException("query answered without /bench/r" + target + ": " + response.body());
        }
    }

    private static void icebergRead(Node node) throws IOException, InterruptedException {
        HttpResponse<String> response = send(HttpRequest.newBuilder(node.uri(ICEBERG_NAMESPACES + "/" + NAMESPACE))
                .timeout(REQUEST_TIMEOUT)
                .build());
        expect(response, 200);
    }

    private static String queryPath(int target) {
        String query = "/[obj_id='bench']/[obj_id='r" + target + "']";
        return "/treecat/v1/query?q=" + URLEncoder.encode(query, StandardCharsets.UTF_8);
    }

    private static HttpResponse<String> post(Node node, String path, String body)
            throws IOException, InterruptedException {
        HttpResponse<String> response = send(HttpRequest.newBuilder(node.uri(path))
                .header("Content-Type", "application/json")
                .timeout(REQUEST_TIMEOUT)
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build());
        expect(response, 200);
        return response;
    }

    private static HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static void expect(HttpResponse<String> response, int status) {
        if (response.statusCode() != status) {
            String body = response.body();
            throw new IllegalStateException("HTTP " + response.statusCode() + " from "
                    + response.request().method()
                    + " " + response.request().uri().getPath() + ": "
                    + body.substring(0, Math.min(300, body.length())));
        }
    }

    // ---- measuring

    /**
     * Runs a step: {@code clients} threads, client i on {@code targets[i % size]}, each sending requests one after the
     * other, {@code count} in all when it is above 0, otherwise until {@code seconds} have passed. Adds to the step's
     * figure its latencies, wall time, failures and the CPU time of its targets, the rest of its setup, the idle
     * other setup and this driver.
     */
    private static void run(Step step, List<Node> all, int clients, int count, double seconds) throws Exception {
        Figure figure = step.figure();
        List<Node> rest = step.setup().nodes().stream()
                .filter(node -> !step.targets().contains(node))
                .toList();
        List<Node> idle = all.stream()
                .filter(node -> !step.setup().nodes().contains(node))
                .toList();
        long targetCpu = cpu(step.targets());
        long restCpu = cpu(rest);
        long idleCpu = cpu(idle);
        long driverCpu = driverCpuNanos();
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        List<Future<List<Long>>> futures = new ArrayList<>();
        AtomicLong remaining = new AtomicLong(count);
        long start = System.nanoTime();
        long end = start + (long) (seconds * 1e9);
        for (int i = 0; i < clients; i++) {
            Node node = step.targets().get(i % step.targets().size());
            futures.add(pool.submit(() -> {
                List<Long> nanos = new ArrayList<>();
                while (count > 0 ? remaining.getAndDecrement() > 0 : System.nanoTime() < end) {
                    long began = System.nanoTime();
                    try {
                        step.operation().run(node);
                        nanos.add(System.nanoTime() - began);
                    } catch (IOException | RuntimeException e) {
                        synchronized (figure) {
                            figure.failures++;
                            String message = String.valueOf(e.getMessage());
                            figure.errors.merge(
                                    e.getClass().getSimpleName() + ": "
                                            + message.substring(0, Math.min(160, message.length())),
                                    1,
                                    Integer::sum);
                        }
                    }
                }
                return nanos;
            }));
        }
        List<Long> nanos = new ArrayList<>();
        for (Future<List<Long>> future : futures) {
            nanos.addAll(future.get());
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        pool.shutdown();
        synchronized (figure) {
            figure.nanos.addAll(nanos);
            figure.seconds += elapsed;
            figure.targetCpu += cpu(step.targets()) - targetCpu;
            figure.restCpu += cpu(rest) - restCpu;
            figure.idleCpu += cpu(idle) - idleCpu;
            figure.driverCpu += driverCpuNanos() - driverCpu;
        }
    }

    /**
     * Fail-over, {@code kills} times: 4 clients commit continuously, each through a live node other than the leader
     * (which forwards to it), while the leader is killed with SIGKILL; the figure is the time from the kill to the
     * first commit acknowledged that was also sent after it. The killed node is then started again on its data, and
     * the next kill waits until a commit through it is acknowledged (it has caught up) and 2 s more. Restarted nodes
     * join {@code all}, to be stopped at the end.
     */
    private static List<Double> failovers(List<Node> members, int kills, List<Node> all) throws Exception {
        if (kills == 0) {
            return List.of();
        }
        AtomicReference<List<Node>> live = new AtomicReference<>(List.copyOf(members));
        AtomicReference<Node> leading = new AtomicReference<>(awaitLeader(members));
        AtomicLong killedAt = new AtomicLong(Long.MAX_VALUE);
        AtomicLong firstAfter = new AtomicLong(Long.MAX_VALUE);
        java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean(true);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Double> times = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                int client = i;
                pool.submit(() -> {
                    int turn = client;
                    while (running.get()) {
                        List<Node> others = live.get().stream()
                                .filter(node -> node != leading.get())
                                .toList();
                        if (others.isEmpty()) {
                            Thread.sleep(10);
                            continue;
                        }
                        Node node = others.get(turn++ % others.size());
                        long sent = System.nanoTime();
                        try {
                            commit(node);
                            if (sent > killedAt.get()) {
                                firstAfter.accumulateAndGet(System.nanoTime(), Math::min);
                            }
                        } catch (IOException | RuntimeException e) {
                            // No leader yet, or the node was killed: refused or unanswered; the next one tries again.
                        }
                    }
                    return null;
                });
            }
            for (int kill = 1; kill <= kills; kill++) {
                Thread.sleep(2000);
                Node leader = awaitLeader(live.get());
                leading.set(leader);
                firstAfter.set(Long.MAX_VALUE);
                killedAt.set(System.nanoTime());
                leader.server().kill();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (firstAfter.get() == Long.MAX_VALUE && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                if (firstAfter.get() == Long.MAX_VALUE) {
                    throw new IllegalStateException(
                            "No commit was acknowledged within 60 s of killing the leader " + leader.id());
                }
                times.add((firstAfter.get() - killedAt.get()) / 1e6);
                killedAt.set(Long.MAX_VALUE);
                System.err.printf(
                        Locale.ROOT,
                        "kill %d of %d: %s killed, a commit acknowledged %.0f ms after%n",
                        kill,
                        kills,
                        leader.id(),
                        times.get(times.size() - 1));
                List<Node> survivors =
                        live.get().stream().filter(node -> node != leader).toList();
                live.set(survivors);
                leading.set(awaitLeader(survivors));
                Node back = startNode(leader.id(), leader.directory(), leader.options());
                all.add(back);
                awaitCommit(back);
                List<Node> whole = new ArrayList<>(survivors);
                whole.add(back);
                live.set(List.copyOf(whole));
            }
            return times;
        } finally {
            running.set(false);
            pool.shutdown();
            pool.awaitTermination(60, TimeUnit.SECONDS);
        }
    }

    /** Waits until a commit through {@code node} is acknowledged: a restarted node has caught up and forwards. */
    private static void awaitCommit(Node node) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                commit(node);
                return;
            } catch (IOException | RuntimeException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            node.id() + " acknowledged no commit within 60 s of its restart", e);
                }
                Thread.sleep(100);
            }
        }
    }

    private static long cpu(List<Node> nodes) {
        return nodes.stream().mapToLong(node -> node.server().cpuNanos()).sum();
    }

    /** CPU time this JVM (the clients) has used so far, from /proc. */
    private static long driverCpuNanos() {
        return ProcessHandle.current()
                .info()
                .totalCpuDuration()
                .map(Duration::toNanos)
                .orElse(-1L);
    }

    // ---- report

    private static String now() {
        return ZonedDateTime.now(java.time.ZoneOffset.UTC)
                .format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'"));
    }

    /** The 1, 5 and 15-minute load averages, from /proc. */
    private static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return fields[0] + " " + fields[1] + " " + fields[2];
        } catch (IOException e) {
            return "unknown";
        }
    }
}
