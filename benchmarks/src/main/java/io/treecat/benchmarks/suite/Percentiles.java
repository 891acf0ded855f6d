package io.treecat.benchmarks.suite;

import java.util.Arrays;

/** Latency percentiles of samples in nanoseconds, by the nearest-rank method. */
public final class Percentiles {
    private Percentiles() {}

    /** The nearest-rank percentile of samples already sorted ascending; 0 for no samples. */
    public static long ofSorted(long[] sortedNanos, double percent) {
        if (sortedNanos.length == 0) {
            return 0;
        }
        int index = (int) Math.ceil(percent / 100.0 * sortedNanos.length) - 1;
        return sortedNanos[Math.max(0, Math.min(sortedNanos.length - 1, index))];
    }

    /** The percentile in milliseconds of unsorted samples (the array is sorted in place). */
    public static double millis(long[] nanos, double percent) {
        Arrays.sort(nanos);
        return ofSorted(nanos, percent) / 1e6;
    }
}
