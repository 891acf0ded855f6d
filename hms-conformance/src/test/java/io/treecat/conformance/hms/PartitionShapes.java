package io.treecat.conformance.hms;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.hive.metastore.api.GetTableRequest;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.PartitionSpec;
import org.apache.hadoop.hive.metastore.api.PartitionValuesResponse;
import org.apache.hadoop.hive.metastore.api.PartitionValuesRow;
import org.apache.hadoop.hive.metastore.api.PartitionWithoutSD;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.TException;

/**
 * What {@link PartitionCallsDifferentialIT} compares of partitions, specs and value rows: everything a client reads
 * except what differs by nature between two servers. Each server has its own warehouse, so a location is written
 * relative to the location of a table of the same server ({@code <table>/region=a/yr=1}); create times and
 * {@code transient_lastDdlTime} are the servers' clocks; names are lower-cased (Hive echoes a name as the call spelled
 * it where TreeCat answers the stored one); of a storage descriptor, the fields both keep (Hive adds an empty skew
 * description and {@code storedAsSubDirectories}).
 */
final class PartitionShapes {
    private PartitionShapes() {}

    /** The location of {@code db.table} on the server {@code client} talks to. */
    static String location(ThriftHiveMetastore.Client client, String db, String table) throws TException {
        return client.get_table_req(new GetTableRequest(db, table))
                .getTable()
                .getSd()
                .getLocation();
    }

    static String relative(String location, String root) {
        if (location == null) {
            return "null";
        }
        return root != null && location.startsWith(root) ? "<table>" + location.substring(root.length()) : location;
    }

    /** The rows as answered, in order. */
    static List<List<String>> rows(PartitionValuesResponse response) {
        List<List<String>> rows = new ArrayList<>();
        for (PartitionValuesRow row : response.getPartitionValues()) {
            rows.add(List.copyOf(row.getRow()));
        }
        return rows;
    }

    /** The rows sorted: for an answer whose order Hive leaves to its database. */
    static List<String> sortedRows(PartitionValuesResponse response) {
        return rows(response).stream().map(String::valueOf).sorted().toList();
    }

    /** Partitions, sorted, each as {@link #partition}. */
    static List<String> partitions(List<Partition> partitions, String root) {
        return partitions.stream()
                .map(partition -> partition(partition, root))
                .sorted()
                .toList();
    }

    static String partition(Partition partition, String root) {
        return lower(partition.getDbName()) + "." + lower(partition.getTableName()) + " " + partition.getValues() + " "
                + storage(partition.getSd(), root) + " " + parameters(partition.getParameters());
    }

    /** Specs, sorted (Hive builds its groups in a hash map's order), each with its partitions sorted. */
    static List<String> specs(List<PartitionSpec> specs, String root) {
        List<String> described = new ArrayList<>();
        for (PartitionSpec spec : specs) {
            StringBuilder text = new StringBuilder();
            text.append(spec.getCatName())
                    .append('.')
                    .append(spec.getDbName())
                    .append('.')
                    .append(spec.getTableName())
                    .append(" root=")
                    .append(spec.isSetRootPath() ? relative(spec.getRootPath(), root) : "unset");
            if (spec.isSetSharedSDPartitionSpec()) {
                text.append(" shared ")
                        .append(storage(spec.getSharedSDPartitionSpec().getSd(), root))
                        .append(' ');
                List<String> members = new ArrayList<>();
                for (PartitionWithoutSD member : spec.getSharedSDPartitionSpec().getPartitions()) {
                    members.add(member.getValues() + " relative=" + member.getRelativePath() + " "
                            + parameters(member.getParameters()));
                }
                text.append(members.stream().sorted().toList());
            } else if (spec.isSetPartitionList()) {
                text.append(" list ").append(partitions(spec.getPartitionList().getPartitions(), root));
            }
            described.add(text.toString());
        }
        return described.stream().sorted().toList();
    }

    private static String storage(StorageDescriptor sd, String root) {
        if (sd == null) {
            return "sd=null";
        }
        return "sd(" + relative(sd.getLocation(), root) + ", " + sd.getInputFormat() + ", " + sd.getOutputFormat()
                + ", " + (sd.getSerdeInfo() == null ? null : sd.getSerdeInfo().getSerializationLib()) + ", "
                + sd.getNumBuckets() + ", " + sd.getCols() + ")";
    }

    private static String parameters(Map<String, String> parameters) {
        Map<String, String> kept = new TreeMap<>(parameters == null ? Map.of() : parameters);
        kept.remove("transient_lastDdlTime");
        return "params=" + kept;
    }

    private static String lower(String name) {
        return name == null ? null : name.toLowerCase(Locale.ROOT);
    }
}
