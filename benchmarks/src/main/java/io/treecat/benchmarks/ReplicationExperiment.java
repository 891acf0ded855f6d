package io.treecat.benchmarks;

import static java.util.Objects.requireNonNull;

import io.treecat.benchmarks.suite.Experiment;
import io.treecat.benchmarks.suite.ExperimentRun;
import io.treecat.benchmarks.suite.Preset;
import io.treecat.benchmarks.suite.ResultTable;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Experiment 7 (the paper's §7): one TreeCat node against a Raft group of three, both running for the whole run so
 * that their figures alternate round by round ({@link ReplicationBenchmark} measures), then the group's fail-over
 * time when its leader is killed under commits.
 */
public final class ReplicationExperiment implements Experiment {
    private final ReplicationBenchmark.Params fixed;

    public ReplicationExperiment() {
        this.fixed = null;
    }

    public ReplicationExperiment(ReplicationBenchmark.Params params) {
        this.fixed = requireNonNull(params, "params is null");
    }

    static ReplicationBenchmark.Params paramsOf(Preset preset) {
        return new ReplicationBenchmark.Params(
                preset.pick(1, 2, 3),
                preset.pick(150, 300, 1000),
                8,
                preset.pick(4.0, 8.0, 20.0),
                preset.pick(2.0, 5.0, 5.0),
                preset.pick(10.0, 30.0, 60.0),
                preset.pick(3, 5, 10));
    }

    @Override
    public String name() {
        return "replication";
    }

    @Override
    public String title() {
        return "Replication: one node against a Raft group of three, and fail-over";
    }

    @Override
    public String description() {
        return "A single packaged TreeCat node and a group of three (Apache Ratis; each node its own JVM, RocksDB and"
                + " Raft log) run side by side on this machine, their figures alternating round by round after an"
                + " untimed warm-up of every node: (a) commit latency of one client, on the single node, on the"
                + " group's leader and on a follower (which forwards to the leader); (b) commit throughput of 8"
                + " clients; (c) native point queries; (d) Iceberg REST reads (on the group, after a linearizable"
                + " read point). Every request is checked. Then fail-over, again and again: clients commit through the"
                + " nodes that do not lead while the leader is killed with SIGKILL, and the time from the kill to the"
                + " first commit acknowledged that was sent after it is measured; the killed node is started again on"
                + " its data, and the next kill waits until it has caught up. All nodes share this machine's two cores: on three machines"
                + " the group's nodes would work in parallel.";
    }

    @Override
    public void run(ExperimentRun run) throws Exception {
        ReplicationBenchmark.Params params = fixed != null ? fixed : paramsOf(run.preset());
        ReplicationBenchmark.Measured measured = ReplicationBenchmark.measure(run.directory("nodes"), params);
        ResultTable figures = run.table(
                "figures",
                "Every figure, " + params.rounds() + " round(s)",
                "setup",
                "workload",
                "on",
                "clients",
                "operations/s",
                "p50 ms",
                "p99 ms",
                "failures");
        ResultTable commits = run.table("commit-latency", "Commit latency of one client", "where", "p50 ms", "p99 ms");
        Map<String, Double> p50 = new HashMap<>();
        for (ReplicationBenchmark.Figure figure : measured.figures()) {
            figures.add(
                    figure.setup,
                    figure.workload,
                    figure.target,
                    figure.clients,
                    figure.perSecond(),
                    figure.percentileMillis(0.5),
                    figure.percentileMillis(0.99),
                    figure.failures);
            if (figure.workload.startsWith("a.")) {
                String where = figure.setup.equals("single")
                        ? "single node"
                        : figure.workload.contains("follower") ? "group, via a follower" : "group, on the leader";
                commits.add(where, figure.percentileMillis(0.5), figure.percentileMillis(0.99));
                p50.put(where, figure.percentileMillis(0.5));
            }
        }
        run.bars(
                "commit-latency",
                "Commit p50, one client: single node against a group of three",
                commits,
                "where",
                "p50 ms");
        List<Double> kills = measured.failoverMillis();
        if (!kills.isEmpty()) {
            ResultTable failover = run.table(
                    "failover",
                    "Fail-over: each kill of the leader, and the first commit acknowledged after it",
                    "kill",
                    "first commit after the kill, ms");
            for (int i = 0; i < kills.size(); i++) {
                failover.add(i + 1, kills.get(i));
            }
        }
        double single = p50.get("single node");
        run.finding(String.format(
                Locale.ROOT,
                "a group of three commits at %.2f× the single node's p50 on the leader and %.2f× through a follower"
                        + " (single %.2f ms; issue 20's goal: at most 3×)%s.",
                p50.get("group, on the leader") / single,
                p50.get("group, via a follower") / single,
                single,
                kills.isEmpty()
                        ? ""
                        : String.format(
                                Locale.ROOT,
                                "; over %d kills of the leader, the group acknowledged a new commit a median %.1f s and"
                                        + " at most %.1f s after the kill",
                                kills.size(),
                                kills.stream().sorted().toList().get(kills.size() / 2) / 1000,
                                kills.stream()
                                                .mapToDouble(Double::doubleValue)
                                                .max()
                                                .orElseThrow()
                                        / 1000)));
    }
}
