package io.treecat.lakehouse.iceberg;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TreeCatIcebergAccess;
import org.apache.iceberg.inmemory.InMemoryInputFile;
import org.apache.iceberg.inmemory.InMemoryOutputFile;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;

/**
 * A {@link FileIO} over a warehouse's own that holds what a commit chain writes (the rebased
 * manifest lists, {@link ChainedCommits}) in memory until {@link #flush}, and serves reads of those
 * files, and of files read ahead ({@link #readAhead}), from memory. Each member of a chain is rebased
 * onto the one before, whose manifest list it reads: on an object store, writing and reading each
 * list in turn would cost two store round trips per member while the table's queue waits. Staged,
 * the chain is computed in memory and its lists are written at once, in parallel.
 *
 * <p>Not a cache: one instance serves one attempt of one chain and is dropped with it. Deletes and
 * every other file go to the warehouse's FileIO.
 */
final class StagingFileIO implements FileIO {
    private final FileIO delegate;
    private final Map<String, InMemoryOutputFile> staged = new ConcurrentHashMap<>();
    private final Map<String, byte[]> readAhead = new ConcurrentHashMap<>();
    private final Map<String, List<ReadAhead.Entry>> entries = new ConcurrentHashMap<>();

    StagingFileIO(FileIO delegate) {
        this.delegate = requireNonNull(delegate, "delegate is null");
    }

    /** What a member read before the chain's queue: its own manifests, served from memory, and their entries. */
    void readAhead(ReadAhead read) {
        readAhead.putAll(read.files());
        entries.putAll(read.entries());
    }

    /**
     * The entries of a manifest decoded before the chain ({@link ReadAhead}), the sequence numbers
     * they inherit not yet filled in; null if it was not decoded ahead.
     */
    List<ReadAhead.Entry> entriesReadAhead(String manifest) {
        return entries.get(manifest);
    }

    /** The files written here and not yet flushed. */
    List<String> stagedLocations() {
        return List.copyOf(staged.keySet());
    }

    /**
     * Starts writing every staged file to the warehouse, in parallel on {@code executor}; the future
     * ends when all writes have ended, failed with the first failure if one did (the caller then
     * deletes what was staged: {@code onAbandon}).
     */
    CompletableFuture<Void> flush(Executor executor) {
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (InMemoryOutputFile file : staged.values()) {
            writes.add(CompletableFuture.runAsync(() -> write(file), executor));
        }
        return CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new));
    }

    private void write(InMemoryOutputFile file) {
        // Overwriting, not create(): on an object store create() first asks whether the object exists, a round trip
        // per file. Each name is new (a snapshot id, an attempt and a UUID), as for Iceberg's own catalogs' writes.
        try (PositionOutputStream out = delegate.newOutputFile(file.location()).createOrOverwrite()) {
            out.write(file.toByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write " + file.location(), e);
        }
    }

    /**
     * A snapshot's manifest list, read with one store request and kept by the snapshot (which keeps
     * what it has read): the whole file in one read, then decoded from memory. Iceberg's own read
     * asks the store for the file's length first (the list's length is in no metadata), a second
     * round trip on an object store. An encrypted list is read as Iceberg reads it.
     */
    static List<ManifestFile> readManifestList(FileIO io, Snapshot snapshot) {
        String location = snapshot.manifestListLocation();
        if (location == null || snapshot.keyId() != null || TreeCatIcebergAccess.hasManifests(snapshot)) {
            return snapshot.allManifests(io);
        }
        byte[] bytes;
        try (InputStream in = io.newInputFile(location).newStream()) {
            bytes = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + location, e);
        }
        StagingFileIO memory = new StagingFileIO(io);
        memory.readAhead.put(location, bytes);
        return snapshot.allManifests(memory);
    }

    /** Reads {@code location} whole, for {@link #readAhead}. */
    static byte[] readAll(FileIO io, String location, long length) {
        try (InputStream in = io.newInputFile(location, length).newStream()) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + location, e);
        }
    }

    @Override
    public InputFile newInputFile(String path) {
        InputFile memory = inMemory(path);
        return memory != null ? memory : delegate.newInputFile(path);
    }

    @Override
    public InputFile newInputFile(String path, long length) {
        InputFile memory = inMemory(path);
        return memory != null ? memory : delegate.newInputFile(path, length);
    }

    private InputFile inMemory(String path) {
        InMemoryOutputFile written = staged.get(path);
        if (written != null) {
            return new InMemoryInputFile(path, written.toByteArray());
        }
        byte[] read = readAhead.get(path);
        return read == null ? null : new InMemoryInputFile(path, read);
    }

    @Override
    public OutputFile newOutputFile(String path) {
        return staged.computeIfAbsent(path, location -> new InMemoryOutputFile(location));
    }

    @Override
    public void deleteFile(String path) {
        staged.remove(path);
        delegate.deleteFile(path);
    }

    @Override
    public Map<String, String> properties() {
        return delegate.properties();
    }

    @Override
    public void close() {
        // The warehouse's FileIO is the warehouse's to close.
    }
}
