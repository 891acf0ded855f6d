package io.treecat.benchmarks;

import io.treecat.core.storage.KeySpace;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * A TreeCat directory opened with plain rocksdbjni, bypassing every TreeCat layer: what the physical
 * limit is measured with. Options mirror {@code RocksKvStore}'s (LZ4, 16 KiB blocks, a 256 MiB LRU
 * block cache, bloom filters), so both read the same files through equally sized caches.
 */
public final class RawRocks implements AutoCloseable {
    static {
        RocksDB.loadLibrary();
    }

    private final List<AutoCloseable> owned = new ArrayList<>();
    private final List<ColumnFamilyHandle> handles = new ArrayList<>();
    private final List<String> names = new ArrayList<>();
    private final RocksDB db;

    private RawRocks(Path directory, boolean readOnly) throws RocksDBException {
        LRUCache cache = own(new LRUCache(256L << 20));
        BloomFilter bloom = own(new BloomFilter(10));
        ColumnFamilyOptions familyOptions = own(new ColumnFamilyOptions()
                .setTableFormatConfig(new BlockBasedTableConfig()
                        .setBlockCache(cache)
                        .setFilterPolicy(bloom)
                        .setBlockSize(16 * 1024)
                        .setCacheIndexAndFilterBlocks(true)
                        .setPinL0FilterAndIndexBlocksInCache(true))
                .setCompressionType(CompressionType.LZ4_COMPRESSION)
                .setLevelCompactionDynamicLevelBytes(true));
        DBOptions dbOptions = own(new DBOptions().setMaxBackgroundJobs(2));
        List<byte[]> families;
        try (Options listOptions = new Options()) {
            families = RocksDB.listColumnFamilies(listOptions, directory.toString());
        }
        List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
        for (byte[] family : families) {
            descriptors.add(new ColumnFamilyDescriptor(family, familyOptions));
            names.add(new String(family, StandardCharsets.UTF_8));
        }
        db = readOnly
                ? RocksDB.openReadOnly(dbOptions, directory.toString(), descriptors, handles)
                : RocksDB.open(dbOptions, directory.toString(), descriptors, handles);
    }

    /** Opens {@code directory} read-only: no lock, no background work. */
    public static RawRocks openReadOnly(Path directory) {
        try {
            return new RawRocks(directory, true);
        } catch (RocksDBException e) {
            throw new IllegalStateException("Cannot open " + directory + " with rocksdbjni: " + e.getMessage(), e);
        }
    }

    /** Compacts every column family of {@code directory} down to its last level. */
    public static void compact(Path directory) {
        try (RawRocks rocks = new RawRocks(directory, false)) {
            for (ColumnFamilyHandle handle : rocks.handles) {
                rocks.db.compactRange(handle);
            }
        } catch (RocksDBException e) {
            throw new IllegalStateException("Cannot compact " + directory + ": " + e.getMessage(), e);
        }
    }

    private <T extends AutoCloseable> T own(T handle) {
        owned.add(handle);
        return handle;
    }

    public RocksDB db() {
        return db;
    }

    public ColumnFamilyHandle family(KeySpace space) {
        int index = names.indexOf(space.familyName());
        if (index < 0) {
            throw new IllegalStateException("No column family " + space.familyName() + " among " + names);
        }
        return handles.get(index);
    }

    @Override
    public void close() {
        for (ColumnFamilyHandle handle : handles) {
            handle.close();
        }
        db.close();
        for (int i = owned.size() - 1; i >= 0; i--) {
            try {
                owned.get(i).close();
            } catch (Exception e) {
                // Releasing native memory; nothing to do.
            }
        }
    }
}
