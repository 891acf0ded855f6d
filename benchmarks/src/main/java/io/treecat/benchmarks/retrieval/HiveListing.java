package io.treecat.benchmarks.retrieval;

import io.treecat.benchmarks.peers.HivePeer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransportException;

/**
 * The paper's Hive Metastore way to find a table's files (§6, Figs. 10–11): the table is registered in a Hive
 * metastore partitioned by day, each partition's location the directory its files are in; a client asks {@code
 * get_partitions_by_filter} for the days, then lists the returned partitions' directories in parallel (the paper's
 * {@code listFile} over HDFS, here over this machine's disk).
 */
final class HiveListing implements AutoCloseable {
    private static final String DATABASE = "retrieval";
    private static final int BATCH = 100;
    private static final List<FieldSchema> COLUMNS = List.of(
            new FieldSchema("id", "bigint", null),
            new FieldSchema("category", "string", null),
            new FieldSchema("price", "double", null));

    private final TSocket socket;
    private final ThriftHiveMetastore.Client client;

    HiveListing(int port) throws TTransportException {
        // A wide filter at 500,000 files takes a while; a measured call never times out.
        this.socket = new TSocket("127.0.0.1", port, 600_000);
        socket.open();
        this.client = new ThriftHiveMetastore.Client(new TBinaryProtocol(socket));
    }

    /** Registers table {@code name}: one external partition per day, at {@code <dataDirectory>/day=<date>}. */
    void register(String name, Path dataDirectory, LocalDate firstDay, int days, Path databaseDirectory)
            throws TException {
        if (!databaseExists()) {
            Database database = new Database(
                    DATABASE, "file retrieval", databaseDirectory.toUri().toString(), null);
            database.setParameters(new HashMap<>());
            client.create_database(database);
        }
        Table table = new Table();
        table.setDbName(DATABASE);
        table.setTableName(name);
        table.setOwner("bench");
        table.setSd(storage(dataDirectory.toUri().toString()));
        table.setPartitionKeys(List.of(new FieldSchema("day", "string", null)));
        table.setParameters(new HashMap<>(Map.of("EXTERNAL", "TRUE")));
        table.setTableType("EXTERNAL_TABLE");
        client.create_table(table);
        List<Partition> batch = new ArrayList<>();
        for (int day = 0; day < days; day++) {
            String date = firstDay.plusDays(day).toString();
            Partition partition = new Partition();
            partition.setDbName(DATABASE);
            partition.setTableName(name);
            partition.setValues(List.of(date));
            partition.setSd(storage(dataDirectory.resolve("day=" + date).toUri().toString()));
            partition.setParameters(new HashMap<>());
            batch.add(partition);
            if (batch.size() == BATCH || day == days - 1) {
                client.add_partitions(batch);
                batch = new ArrayList<>();
            }
        }
    }

    private boolean databaseExists() throws TException {
        return client.get_all_databases().contains(DATABASE);
    }

    /**
     * The files of the days from {@code first} to {@code last}: the partitions by one filter call, then their
     * directories listed on {@code streams} threads, each taking every {@code streams}-th partition.
     */
    int files(String name, LocalDate first, LocalDate last, ExecutorService executor, int streams) throws Exception {
        List<Partition> partitions = client.get_partitions_by_filter(
                DATABASE, name, "day >= '" + first + "' and day <= '" + last + "'", (short) -1);
        List<Future<Integer>> counts = new ArrayList<>();
        for (int stream = 0; stream < streams; stream++) {
            int from = stream;
            counts.add(executor.submit(() -> {
                int count = 0;
                for (int i = from; i < partitions.size(); i += streams) {
                    count += listed(partitions.get(i).getSd().getLocation());
                }
                return count;
            }));
        }
        int total = 0;
        for (Future<Integer> count : counts) {
            total += count.get();
        }
        return total;
    }

    private static int listed(String location) {
        int count = 0;
        // With each file's attributes, as an HDFS listing returns them (a FileStatus: length, times, owner).
        try (DirectoryStream<Path> files = Files.newDirectoryStream(Path.of(URI.create(location)), "*.parquet")) {
            for (Path file : files) {
                if (Files.readAttributes(file, BasicFileAttributes.class).isRegularFile()) {
                    count++;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return count;
    }

    private static StorageDescriptor storage(String location) {
        return HivePeer.parquetStorage(COLUMNS, location);
    }

    @Override
    public void close() {
        socket.close();
    }
}
