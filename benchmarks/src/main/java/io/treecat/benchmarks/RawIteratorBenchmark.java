package io.treecat.benchmarks;

import io.treecat.core.storage.KeySpace;
import io.treecat.core.storage.KvIterator;
import io.treecat.core.storage.PathKeys;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import java.time.LocalDate;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;

/**
 * The physical limit: the same leaf keys {@link PartitionQueryBenchmark} returns, read from the same
 * directory with plain rocksdbjni ({@code org.rocksdb.RocksDB} on the {@code leaf} column family,
 * found with {@code RocksDB.listColumnFamilies}), copying out the key and the value of every entry
 * as any Java reader must. No TreeCat code runs on the measured path except key computation in
 * setup.
 *
 * <ul>
 *   <li>{@link #range}: one seek and a scan bounded by {@code setIterateUpperBound} over 1 or 365
 *       partitions' files: the limit for the query.
 *   <li>{@link #seekPerPartition}: one bounded iterator per partition, as the query's correlated
 *       scans open them: what 365 seeks cost over one.
 *   <li>{@link #kvStoreRange}: the single range through TreeCat's own {@code RocksKvStore}
 *       iterator, to show the cost of the storage SPI alone.
 *   <li>{@link #fullScan}: every entry of the leaf column family (1,000,000): keys per second.
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch"})
public class RawIteratorBenchmark {
    /** The raw database, read-only. */
    @State(Scope.Benchmark)
    public static class Raw {
        RawRocks rocks;
        ColumnFamilyHandle leaf;

        @Setup
        public void open() {
            rocks = RawRocks.openReadOnly(BenchmarkData.catalog());
            leaf = rocks.family(KeySpace.LEAF);
        }

        @TearDown
        public void close() {
            rocks.close();
        }
    }

    /** A partition range of store_sales. */
    @State(Scope.Benchmark)
    public static class Range {
        @Param({"1", "365"})
        int days;

        byte[] lower;
        byte[] upper;
        byte[][] partitionLower;
        byte[][] partitionUpper;

        @Setup
        public void keys() {
            lower = Ranges.leafLower(days);
            upper = Ranges.leafUpper(days);
            partitionLower = new byte[days][];
            partitionUpper = new byte[days][];
            for (int i = 0; i < days; i++) {
                LocalDate day = Ranges.first(days).plusDays(i);
                partitionLower[i] = PathKeys.childrenPrefix(TpcdsCatalog.partitionPath(TpcdsCatalog.STORE_SALES, day));
                partitionUpper[i] = PathKeys.prefixEnd(partitionLower[i]);
            }
        }
    }

    /** TreeCat's own store, for the SPI comparison. */
    @State(Scope.Benchmark)
    public static class Store {
        RocksKvStore store;

        @Setup
        public void open() {
            store = RocksKvStore.open(BenchmarkData.catalog());
        }

        @TearDown
        public void close() {
            store.close();
        }
    }

    private static long scan(Raw raw, byte[] lower, byte[] upper, Blackhole blackhole) {
        long entries = 0;
        try (Slice upperSlice = new Slice(upper);
                ReadOptions options = new ReadOptions().setIterateUpperBound(upperSlice);
                RocksIterator iterator = raw.rocks.db().newIterator(raw.leaf, options)) {
            for (iterator.seek(lower); iterator.isValid(); iterator.next()) {
                blackhole.consume(iterator.key());
                blackhole.consume(iterator.value());
                entries++;
            }
        }
        return entries;
    }

    private static long expect(long entries, long expected) {
        if (entries != expected) {
            throw new IllegalStateException("Scanned " + entries + " entries, expected " + expected);
        }
        return entries;
    }

    @Benchmark
    public long range(Raw raw, Range range, Blackhole blackhole) {
        return expect(scan(raw, range.lower, range.upper, blackhole), Ranges.expectedFiles(range.days));
    }

    @Benchmark
    public long seekPerPartition(Raw raw, Range range, Blackhole blackhole) {
        long entries = 0;
        for (int i = 0; i < range.days; i++) {
            entries += scan(raw, range.partitionLower[i], range.partitionUpper[i], blackhole);
        }
        return expect(entries, Ranges.expectedFiles(range.days));
    }

    @Benchmark
    public long kvStoreRange(Store store, Range range, Blackhole blackhole) {
        long entries = 0;
        try (KvIterator iterator = store.store.iterator(KeySpace.LEAF, range.lower, range.upper)) {
            for (iterator.seek(range.lower); iterator.isValid(); iterator.next()) {
                blackhole.consume(iterator.key());
                blackhole.consume(iterator.value());
                entries++;
            }
        }
        return expect(entries, Ranges.expectedFiles(range.days));
    }

    @Benchmark
    public long fullScan(Raw raw, Blackhole blackhole) {
        long entries = 0;
        try (ReadOptions options = new ReadOptions();
                RocksIterator iterator = raw.rocks.db().newIterator(raw.leaf, options)) {
            for (iterator.seekToFirst(); iterator.isValid(); iterator.next()) {
                blackhole.consume(iterator.key());
                blackhole.consume(iterator.value());
                entries++;
            }
        }
        return expect(entries, TpcdsCatalog.LEAVES);
    }
}
