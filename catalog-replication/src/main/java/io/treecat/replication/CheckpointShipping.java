package io.treecat.replication;

import static java.util.Objects.requireNonNull;

import io.treecat.core.storage.KvStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * RocksDB checkpoints of a node's store, sent over the group's own transport to a node that needs one:
 * a new node, or one that fell behind what the group's log still holds (Ratis then tells it to install
 * a snapshot, see {@link TreeCatStateMachine}).
 *
 * <p>The serving side makes a checkpoint on request ({@link KvStore#checkpoint}: SST files hard-linked,
 * so it costs little), lists its files, sends them in chunks of {@link #CHUNK_BYTES}, and deletes the
 * checkpoint when the receiver closes it, or once nobody read it for {@link #IDLE}. The receiving side
 * writes the files into a directory of its own, checking every file's length, and opens that as a
 * store to install from. A receiver talks to one server for the whole transfer: if the leader changes
 * half-way, the transfer fails, and Ratis asks again, of the new leader.
 *
 * <p>Requests and answers are BSON documents with a {@code checkpoint} field naming the step: {@code
 * open} (answers {@code id} and {@code files}: name to length), {@code read} ({@code id}, {@code
 * name}, {@code offset}; answers {@code data}) and {@code close} ({@code id}).
 */
final class CheckpointShipping {
    static final int CHUNK_BYTES = 4 << 20;
    static final Duration IDLE = Duration.ofMinutes(10);
    /** Checkpoints served at once; a further receiver is refused and asks again later. */
    private static final int MAX_SERVED = 2;

    private final KvStore store;
    private final Path servedDirectory;
    private final Path receivedDirectory;
    private final Map<String, Served> served = new ConcurrentHashMap<>();

    private record Served(Path directory, Map<String, Long> files, AtomicLong lastUsedNanos) {}

    /**
     * @param workDirectory where checkpoints are made and received ({@code checkpoints/} and {@code
     *     received/} in it); on the store's file system, so that a checkpoint's files are hard links.
     *     What an earlier run left there is deleted.
     */
    CheckpointShipping(KvStore store, Path workDirectory) {
        this.store = requireNonNull(store, "store is null");
        this.servedDirectory = workDirectory.resolve("checkpoints");
        this.receivedDirectory = workDirectory.resolve("received");
        deleteRecursively(servedDirectory);
        deleteRecursively(receivedDirectory);
    }

    /** Whether {@code request} is a step of a checkpoint transfer (and not a forwarded commit). */
    static boolean isCheckpointRequest(BsonDocument request) {
        return request.containsKey("checkpoint");
    }

    /** Answers one step of a transfer, on the serving node. */
    BsonDocument serve(BsonDocument request) {
        String step = request.getString("checkpoint").getValue();
        return switch (step) {
            case "open" -> open();
            case "read" ->
                read(
                        request.getString("id").getValue(),
                        request.getString("name").getValue(),
                        request.getInt64("offset").getValue());
            case "close" -> close(request.getString("id").getValue());
            default -> throw new IllegalArgumentException("unknown checkpoint step '" + step + "'");
        };
    }

    private BsonDocument open() {
        expireIdle();
        if (served.size() >= MAX_SERVED) {
            throw new IllegalStateException(
                    "this node is sending " + served.size() + " checkpoints already; ask again later");
        }
        String id = UUID.randomUUID().toString();
        Path directory = servedDirectory.resolve(id);
        try {
            Files.createDirectories(servedDirectory);
            store.checkpoint(directory);
            Map<String, Long> files = new LinkedHashMap<>();
            try (Stream<Path> listing = Files.list(directory)) {
                for (Path file : listing.sorted().toList()) {
                    if (Files.isRegularFile(file)) {
                        files.put(file.getFileName().toString(), Files.size(file));
                    }
                }
            }
            served.put(id, new Served(directory, files, new AtomicLong(System.nanoTime())));
            BsonDocument listed = new BsonDocument();
            files.forEach((name, length) -> listed.append(name, new BsonInt64(length)));
            return new BsonDocument().append("id", new BsonString(id)).append("files", listed);
        } catch (IOException | RuntimeException e) {
            deleteRecursively(directory);
            throw new IllegalStateException("could not make a checkpoint of the store: " + e, e);
        }
    }

    private BsonDocument read(String id, String name, long offset) {
        Served checkpoint = served.get(id);
        if (checkpoint == null) {
            throw new IllegalArgumentException("no checkpoint " + id + " is open here (expired, or another node)");
        }
        Long length = checkpoint.files().get(name);
        if (length == null || offset < 0 || offset > length) {
            throw new IllegalArgumentException("checkpoint " + id + " has no file " + name + " with offset " + offset);
        }
        checkpoint.lastUsedNanos().set(System.nanoTime());
        ByteBuffer chunk = ByteBuffer.allocate((int) Math.min(CHUNK_BYTES, length - offset));
        try (FileChannel file = FileChannel.open(checkpoint.directory().resolve(name), StandardOpenOption.READ)) {
            while (chunk.hasRemaining()) {
                if (file.read(chunk, offset + chunk.position()) < 0) {
                    throw new IOException("file " + name + " ended before its listed length " + length);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new BsonDocument().append("data", new BsonBinary(chunk.array()));
    }

    private BsonDocument close(String id) {
        Served checkpoint = served.remove(id);
        if (checkpoint != null) {
            deleteRecursively(checkpoint.directory());
        }
        return new BsonDocument();
    }

    private void expireIdle() {
        long now = System.nanoTime();
        served.forEach((id, checkpoint) -> {
            if (now - checkpoint.lastUsedNanos().get() > IDLE.toNanos()) {
                close(id);
            }
        });
    }

    /** Deletes every checkpoint served or received, when the node stops. */
    void clear() {
        served.keySet().forEach(this::close);
        deleteRecursively(receivedDirectory);
    }

    /**
     * Receives a whole checkpoint through {@code send} (one request, its answer), into a new directory
     * that the caller deletes once it has installed it.
     */
    Path receive(UnaryOperator<BsonDocument> send) throws IOException {
        BsonDocument opened = send.apply(new BsonDocument("checkpoint", new BsonString("open")));
        String id = opened.getString("id").getValue();
        Path directory = receivedDirectory.resolve(id);
        try {
            Files.createDirectories(directory);
            for (Map.Entry<String, BsonValue> file : opened.getDocument("files").entrySet()) {
                String name = file.getKey();
                long length = file.getValue().asInt64().getValue();
                Path target = directory.resolve(name).normalize();
                if (!target.getParent().equals(directory) || name.isEmpty()) {
                    throw new IOException("the checkpoint lists a file outside its directory: " + name);
                }
                try (FileChannel out =
                        FileChannel.open(target, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                    long offset = 0;
                    while (offset < length) {
                        byte[] data = send.apply(new BsonDocument("checkpoint", new BsonString("read"))
                                        .append("id", new BsonString(id))
                                        .append("name", new BsonString(name))
                                        .append("offset", new BsonInt64(offset)))
                                .getBinary("data")
                                .getData();
                        if (data.length == 0) {
                            throw new IOException("file " + name + " of the checkpoint ended at " + offset + " of "
                                    + length + " bytes");
                        }
                        ByteBuffer buffer = ByteBuffer.wrap(data);
                        while (buffer.hasRemaining()) {
                            out.write(buffer);
                        }
                        offset += data.length;
                    }
                    if (offset != length) {
                        throw new IOException("file " + name + " of the checkpoint has " + offset + " bytes, not the "
                                + length + " listed");
                    }
                    out.force(true);
                }
            }
            return directory;
        } catch (IOException | RuntimeException e) {
            deleteRecursively(directory);
            throw e;
        } finally {
            try {
                var unused = send.apply(
                        new BsonDocument("checkpoint", new BsonString("close")).append("id", new BsonString(id)));
            } catch (RuntimeException ignored) {
                // The serving node drops an idle checkpoint by itself.
            }
        }
    }

    static void deleteRecursively(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(directory)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete " + directory, e);
        }
    }
}
