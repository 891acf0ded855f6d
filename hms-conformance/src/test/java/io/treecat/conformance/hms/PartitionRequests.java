package io.treecat.conformance.hms;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.thrift.TBase;

/** What the partition call ITs send and compare alike: requests in catalog {@code hive}, partitions in value order. */
final class PartitionRequests {
    private PartitionRequests() {}

    /** {@code request} in catalog {@code hive}, as Hive's own client sends every request (Hive 4.0.1 fails without one). */
    static <R extends TBase<?, ?>> R inHive(R request) {
        try {
            request.getClass().getMethod("setCatName", String.class).invoke(request, "hive");
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(request.getClass().getSimpleName() + " has no catalog name", e);
        }
        return request;
    }

    /** Partitions in value order: get_partitions_by_names answers in its store's order, TreeCat in the order asked. */
    static List<Partition> byValues(List<Partition> partitions) {
        List<Partition> sorted = new ArrayList<>(partitions);
        sorted.sort(Comparator.comparing(partition -> String.join("/", partition.getValues())));
        return sorted;
    }
}
