package io.treecat.benchmarks.suite;

/**
 * One experiment of the suite: it measures, and records what it measured in its {@link
 * ExperimentRun} (tables, charts, notes). It starts whatever it compares against and stops it
 * before it returns, also when it fails.
 */
public interface Experiment {
    /** The name given on the command line, such as {@code concurrency}. */
    String name();

    /** The heading of its part of the report. */
    String title();

    /** What the experiment asks, and how it answers it: the first paragraph of its part of the report. */
    String description();

    void run(ExperimentRun run) throws Exception;
}
