package io.treecat.core.storage.rocksdb;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.storage.KeySpace;
import io.treecat.core.storage.KvBatch;
import io.treecat.core.storage.KvIterator;
import io.treecat.core.storage.KvStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Checkpoint;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.rocksdb.Status;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The RocksDB store: one column family per {@link KeySpace}, all with the default bytewise
 * comparator (the key encodings carry the order; a Java comparator through JNI would be far slower).
 *
 * <p>This class owns every long-lived native handle and closes them in reverse order of opening.
 * {@link #close()} waits for operations in flight, open iterators included. After a corruption or
 * I/O error from RocksDB the store refuses every further operation, as continuing on a damaged
 * database risks making it worse.
 */
public final class RocksKvStore implements KvStore {
    static {
        RocksDB.loadLibrary();
    }

    private final Path directory;
    private final List<AutoCloseable> owned = new ArrayList<>();
    private final Map<KeySpace, ColumnFamilyHandle> families = new EnumMap<>(KeySpace.class);
    private final RocksDB db;
    private final WriteOptions syncWrite;
    private final WriteOptions asyncWrite;
    private final ReadOptions defaultRead;
    /** Operations in flight, open iterators included; {@link Long#MIN_VALUE} once closing. */
    private final AtomicLong inFlight = new AtomicLong();
    /** The corruption or I/O error after which the store refuses every operation. */
    private volatile CatalogException brokenBy;

    private RocksKvStore(Path directory, RocksStoreOptions options) throws RocksDBException {
        this.directory = directory;
        LRUCache cache = own(new LRUCache(options.blockCacheBytes()));
        BloomFilter bloom = own(new BloomFilter(10));
        BlockBasedTableConfig table = new BlockBasedTableConfig()
                .setBlockCache(cache)
                .setFilterPolicy(bloom)
                .setBlockSize(16 * 1024)
                .setCacheIndexAndFilterBlocks(true)
                .setPinL0FilterAndIndexBlocksInCache(true);
        ColumnFamilyOptions familyOptions = own(new ColumnFamilyOptions()
                .setTableFormatConfig(table)
                .setCompressionType(CompressionType.LZ4_COMPRESSION)
                .setWriteBufferSize(options.writeBufferBytes())
                .setLevelCompactionDynamicLevelBytes(true));
        DBOptions dbOptions = own(new DBOptions()
                .setCreateIfMissing(true)
                .setCreateMissingColumnFamilies(true)
                .setMaxBackgroundJobs(options.backgroundJobs())
                .setBytesPerSync(1024 * 1024)
                // A WAL file is deleted only once every column family with data in it has flushed, and the
                // small ones (meta, inner objects) fill their memtables rarely: without a cap, RocksDB's
                // default (4 × all write buffers, about 3 GiB here) let the WAL grow that far under a steady
                // rewrite while the data itself stayed flat (docs/benchmarks-history.md, retention). Past the cap
                // RocksDB flushes the families that hold the oldest WAL file.
                .setMaxTotalWalSize(4 * options.writeBufferBytes()));

        List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
        descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, familyOptions));
        for (KeySpace space : KeySpace.values()) {
            descriptors.add(
                    new ColumnFamilyDescriptor(space.familyName().getBytes(StandardCharsets.UTF_8), familyOptions));
        }
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        this.db = RocksDB.open(dbOptions, directory.toString(), descriptors, handles);
        // Handles close before the database, which closes before the options it was opened with.
        owned.add(db);
        owned.addAll(handles);
        for (KeySpace space : KeySpace.values()) {
            families.put(space, handles.get(space.ordinal() + 1));
        }
        this.syncWrite = own(new WriteOptions().setSync(true));
        this.asyncWrite = own(new WriteOptions().setSync(false));
        this.defaultRead = own(new ReadOptions());
    }

    /** Opens (creating if needed) the store in {@code directory}. */
    public static RocksKvStore open(Path directory, RocksStoreOptions options) {
        requireNonNull(directory, "directory is null");
        requireNonNull(options, "options is null");
        try {
            Files.createDirectories(directory);
            return new RocksKvStore(directory, options);
        } catch (RocksDBException e) {
            throw new CatalogException(ErrorCode.STORAGE_FAILURE, "Cannot open the RocksDB store", e)
                    .with("directory", directory)
                    .with("status", e.getMessage());
        } catch (IOException e) {
            throw new CatalogException(ErrorCode.STORAGE_FAILURE, "Cannot create the store directory", e)
                    .with("directory", directory);
        }
    }

    public static RocksKvStore open(Path directory) {
        return open(directory, RocksStoreOptions.defaults());
    }

    private <T extends AutoCloseable> T own(T handle) {
        owned.add(handle);
        return handle;
    }

    public Path directory() {
        return directory;
    }

    @Override
    public byte[] get(KeySpace space, byte[] key) {
        acquire();
        try {
            return db.get(families.get(space), defaultRead, key);
        } catch (RocksDBException e) {
            throw failure("get", space, e);
        } finally {
            release();
        }
    }

    @Override
    public KvIterator iterator(KeySpace space, byte[] lowerInclusive, byte[] upperExclusive) {
        acquire();
        Slice lower = null;
        Slice upper = null;
        ReadOptions options = null;
        try {
            options = new ReadOptions();
            if (lowerInclusive != null) {
                lower = new Slice(lowerInclusive);
                options.setIterateLowerBound(lower);
            }
            if (upperExclusive != null) {
                upper = new Slice(upperExclusive);
                options.setIterateUpperBound(upper);
            }
            RocksIterator iterator = db.newIterator(families.get(space), options);
            return new RocksKvIterator(iterator, options, lower, upper, lowerInclusive);
        } catch (RuntimeException e) {
            closeQuietly(options, lower, upper);
            release();
            throw e;
        }
    }

    @Override
    public KvBatch newBatch() {
        return new RocksKvBatch(new WriteBatch());
    }

    @Override
    public void write(KvBatch batch, boolean sync) {
        RocksKvBatch rocksBatch = (RocksKvBatch) batch;
        acquire();
        try {
            db.write(sync ? syncWrite : asyncWrite, rocksBatch.batch);
        } catch (RocksDBException e) {
            throw failure("write", null, e);
        } finally {
            release();
        }
    }

    @Override
    public void syncWal() {
        acquire();
        try {
            db.syncWal();
        } catch (RocksDBException e) {
            throw failure("syncWal", null, e);
        } finally {
            release();
        }
    }

    /**
     * RocksDB's own checkpoint: SST files hard-linked where the file system allows (so it costs little
     * space and time), the rest copied, the memtables flushed into it first.
     */
    @Override
    public void checkpoint(Path target) {
        acquire();
        try (Checkpoint checkpoint = Checkpoint.create(db)) {
            checkpoint.createCheckpoint(target.toString());
        } catch (RocksDBException e) {
            throw failure("checkpoint", null, e).with("target", target);
        } finally {
            release();
        }
    }

    @Override
    public OptionalLong longProperty(String name) {
        requireNonNull(name, "name is null");
        acquire();
        try {
            long total = 0;
            for (ColumnFamilyHandle family : families.values()) {
                total += db.getLongProperty(family, name);
            }
            return OptionalLong.of(total);
        } catch (RocksDBException e) {
            // An unknown property name is not a store failure: the store just does not know it.
            return OptionalLong.empty();
        } finally {
            release();
        }
    }

    /** Flushes memtables to SST files, e.g. after a bulk load written without syncing each batch. */
    public void flush() {
        acquire();
        try (FlushOptions options = new FlushOptions().setWaitForFlush(true)) {
            db.flush(options, new ArrayList<>(families.values()));
        } catch (RocksDBException e) {
            throw failure("flush", null, e);
        } finally {
            release();
        }
    }

    private void acquire() {
        CatalogException broken = brokenBy;
        if (broken != null) {
            throw new CatalogException(
                            ErrorCode.STORAGE_CORRUPTION,
                            "The store stopped after a RocksDB corruption or I/O error",
                            broken)
                    .with("directory", directory);
        }
        if (inFlight.getAndIncrement() < 0) {
            inFlight.decrementAndGet();
            throw new CatalogException(ErrorCode.STORE_CLOSED, "The store is closed").with("directory", directory);
        }
    }

    private void release() {
        inFlight.decrementAndGet();
    }

    private CatalogException failure(String operation, KeySpace space, RocksDBException e) {
        Status status = e.getStatus();
        Status.Code code = status == null ? Status.Code.Undefined : status.getCode();
        boolean fatal = code == Status.Code.Corruption || code == Status.Code.IOError;
        CatalogException failure = new CatalogException(
                        fatal ? ErrorCode.STORAGE_CORRUPTION : ErrorCode.STORAGE_FAILURE, "RocksDB operation failed", e)
                .with("operation", operation)
                .with("status", e.getMessage());
        if (space != null) {
            failure.with("keySpace", space.familyName());
        }
        if (fatal) {
            // Refuse everything from now on rather than close here: open iterators still hold native
            // handles, and closing under them would crash the process. close() at shutdown frees them.
            brokenBy = failure;
        }
        return failure;
    }

    @Override
    public synchronized void close() {
        // Wait for operations in flight to finish; new ones are refused from here on.
        while (!inFlight.compareAndSet(0, Long.MIN_VALUE)) {
            if (inFlight.get() < 0) {
                return;
            }
            Thread.onSpinWait();
        }
        try {
            db.syncWal();
        } catch (RocksDBException e) {
            // Closing anyway: every acknowledged commit was already synced when it was acknowledged.
        }
        // Column family handles first, then the database, then the options and caches it was opened
        // with, in reverse order of creation.
        List<AutoCloseable> order = new ArrayList<>(families.values());
        order.add(db);
        for (int i = owned.size() - 1; i >= 0; i--) {
            AutoCloseable handle = owned.get(i);
            if (handle != db && !(handle instanceof ColumnFamilyHandle)) {
                order.add(handle);
            }
        }
        for (AutoCloseable handle : order) {
            closeQuietly(handle);
        }
    }

    private static void closeQuietly(AutoCloseable... handles) {
        for (AutoCloseable handle : handles) {
            if (handle != null) {
                try {
                    handle.close();
                } catch (Exception e) {
                    // Nothing useful to do while releasing native memory.
                }
            }
        }
    }

    private final class RocksKvIterator implements KvIterator {
        private final RocksIterator iterator;
        private final ReadOptions options;
        private final Slice lower;
        private final Slice upper;
        private final byte[] lowerBytes;
        private boolean closed;

        RocksKvIterator(RocksIterator iterator, ReadOptions options, Slice lower, Slice upper, byte[] lowerBytes) {
            this.iterator = iterator;
            this.options = options;
            this.lower = lower;
            this.upper = upper;
            this.lowerBytes = lowerBytes;
        }

        @Override
        public void seek(byte[] key) {
            // A closed RocksIterator is freed native memory: using it may crash the JVM, not throw.
            requireOpen();
            if (lowerBytes != null && Arrays.compareUnsigned(key, lowerBytes) < 0) {
                iterator.seek(lowerBytes);
            } else {
                iterator.seek(key);
            }
        }

        @Override
        public boolean isValid() {
            if (iterator.isValid()) {
                return true;
            }
            try {
                iterator.status();
            } catch (RocksDBException e) {
                throw failure("iterate", null, e);
            }
            return false;
        }

        @Override
        public void next() {
            requireOpen();
            iterator.next();
        }

        private void requireOpen() {
            if (closed) {
                throw new IllegalStateException("store iterator used after it was closed");
            }
        }

        @Override
        public byte[] key() {
            return iterator.key();
        }

        @Override
        public byte[] value() {
            return iterator.value();
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                // The bounds must outlive the iterator: close in reverse order of creation.
                closeQuietly(iterator, options, upper, lower);
                release();
            }
        }
    }

    private final class RocksKvBatch implements KvBatch {
        private final WriteBatch batch;

        RocksKvBatch(WriteBatch batch) {
            this.batch = batch;
        }

        @Override
        public void put(KeySpace space, byte[] key, byte[] value) {
            try {
                batch.put(families.get(space), key, value);
            } catch (RocksDBException e) {
                throw failure("batch put", space, e);
            }
        }

        @Override
        public void delete(KeySpace space, byte[] key) {
            try {
                batch.delete(families.get(space), key);
            } catch (RocksDBException e) {
                throw failure("batch delete", space, e);
            }
        }

        @Override
        public void deleteRange(KeySpace space, byte[] fromInclusive, byte[] toExclusive) {
            try {
                batch.deleteRange(families.get(space), fromInclusive, toExclusive);
            } catch (RocksDBException e) {
                throw failure("batch deleteRange", space, e);
            }
        }

        @Override
        public int count() {
            return batch.count();
        }

        @Override
        public long sizeInBytes() {
            return batch.getDataSize();
        }

        @Override
        public void close() {
            batch.close();
        }
    }
}
