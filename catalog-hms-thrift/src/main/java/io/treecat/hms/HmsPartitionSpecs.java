package io.treecat.hms;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.PartitionListComposingSpec;
import org.apache.hadoop.hive.metastore.api.PartitionSpec;
import org.apache.hadoop.hive.metastore.api.PartitionSpecWithSharedSD;
import org.apache.hadoop.hive.metastore.api.PartitionWithoutSD;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;

/**
 * Hive's {@link PartitionSpec}s, the compact form of a list of partitions, both ways: what {@code get_partitions_pspec}
 * and {@code get_part_specs_by_filter} answer ({@link #specs}), and the partitions {@code add_partitions_pspec} is given
 * ({@link #partitions}).
 *
 * <p>A spec is either a {@link PartitionListComposingSpec} (the partitions as they are) or a
 * {@link PartitionSpecWithSharedSD}: one storage descriptor whose location is the root, and per partition its values,
 * times, parameters and a path relative to that root.
 */
final class HmsPartitionSpecs {
    /** The table parameter with which Hive answers shared-descriptor specs; without it one list spec. */
    static final String GROUPING_ENABLED = "hive.hcatalog.partition.spec.grouping.enabled";

    private HmsPartitionSpecs() {}

    /**
     * The answer of {@code get_partitions_pspec} and {@code get_part_specs_by_filter}, as Hive 4 gives it: one
     * {@link PartitionListComposingSpec} of every partition, rooted at the table's location and named as asked
     * ({@code tableName}), unless the table has {@value #GROUPING_ENABLED}{@code =true}; then {@link #grouped}.
     */
    static List<PartitionSpec> specs(Table table, String tableName, List<Partition> partitions) {
        if ("true".equalsIgnoreCase(parameter(table, GROUPING_ENABLED))) {
            return grouped(table, partitions);
        }
        PartitionSpec spec = new PartitionSpec();
        spec.setPartitionList(new PartitionListComposingSpec(new ArrayList<>(partitions)));
        spec.setCatName(HmsNames.HIVE_CATALOG);
        spec.setDbName(table.getDbName());
        spec.setTableName(tableName);
        spec.setRootPath(location(table));
        return List.of(spec);
    }

    private static String parameter(Table table, String key) {
        return table.getParameters() == null ? null : table.getParameters().get(key);
    }

    private static String location(Table table) {
        return table.getSd() == null ? null : table.getSd().getLocation();
    }

    /**
     * Hive's grouping ({@code MetaStoreServerUtils.getPartitionspecsGroupedByStorageDescriptor}): partitions whose
     * location starts with the table's location (a plain string prefix, as Hive tests it) and whose descriptors agree
     * on input and output format, columns and serde share one descriptor rooted at the table's location, each with the
     * rest of its location as relative path ({@code /ds=1/hr=2}); one spec per such group, in the order the groups
     * first appear. A partition elsewhere, with skewed columns, or with another bucket count than the first partition,
     * goes unchanged into one {@link PartitionListComposingSpec} after them (without a root path).
     */
    static List<PartitionSpec> grouped(Table table, List<Partition> partitions) {
        String tablePath = location(table);
        Map<GroupKey, List<Partition>> groups = new LinkedHashMap<>();
        for (Partition partition : partitions) {
            groups.computeIfAbsent(GroupKey.of(partition, partitions.get(0), tablePath), key -> new ArrayList<>())
                    .add(partition);
        }
        List<PartitionSpec> specs = new ArrayList<>();
        List<Partition> elsewhere = new ArrayList<>();
        for (Map.Entry<GroupKey, List<Partition>> group : groups.entrySet()) {
            GroupKey key = group.getKey();
            if (key.base() != null && !key.base().equals(tablePath)) {
                elsewhere.addAll(group.getValue());
                continue;
            }
            List<PartitionWithoutSD> members = new ArrayList<>();
            for (Partition partition : group.getValue()) {
                PartitionWithoutSD member = new PartitionWithoutSD();
                member.setValues(partition.getValues());
                member.setCreateTime(partition.getCreateTime());
                member.setLastAccessTime(partition.getLastAccessTime());
                String location =
                        partition.getSd() == null ? null : partition.getSd().getLocation();
                member.setRelativePath(
                        location == null || tablePath == null ? null : location.substring(tablePath.length()));
                member.setParameters(partition.getParameters());
                members.add(member);
            }
            StorageDescriptor first = group.getValue().get(0).getSd();
            StorageDescriptor shared = first == null ? new StorageDescriptor() : first.deepCopy();
            if (first != null) {
                shared.setLocation(key.base());
            }
            PartitionSpec spec = new PartitionSpec();
            spec.setSharedSDPartitionSpec(new PartitionSpecWithSharedSD(members, shared));
            spec.setRootPath(shared.getLocation());
            spec.setCatName(HmsNames.HIVE_CATALOG);
            spec.setDbName(table.getDbName());
            spec.setTableName(table.getTableName());
            specs.add(spec);
        }
        if (!elsewhere.isEmpty()) {
            PartitionSpec spec = new PartitionSpec();
            spec.setPartitionList(new PartitionListComposingSpec(elsewhere));
            spec.setCatName(HmsNames.HIVE_CATALOG);
            spec.setDbName(table.getDbName());
            spec.setTableName(table.getTableName());
            specs.add(spec);
        }
        return specs;
    }

    /**
     * What partitions share a descriptor on: the root ({@code base}: the table's location, or the partition's own
     * location when it is not grouped with the table) and the descriptor's formats, columns and serde.
     */
    private record GroupKey(
            String base, String inputFormat, String outputFormat, List<FieldSchema> columns, SerDeInfo serde) {
        static GroupKey of(Partition partition, Partition first, String tablePath) {
            StorageDescriptor sd = partition.getSd();
            if (sd == null) {
                return new GroupKey(null, null, null, null, null);
            }
            String location = sd.getLocation();
            boolean skewed = sd.getSkewedInfo() != null
                    && sd.getSkewedInfo().getSkewedColNames() != null
                    && !sd.getSkewedInfo().getSkewedColNames().isEmpty();
            boolean otherBuckets =
                    first.getSd() == null || sd.getNumBuckets() != first.getSd().getNumBuckets();
            boolean inTable =
                    !skewed && !otherBuckets && location != null && tablePath != null && location.startsWith(tablePath);
            return new GroupKey(
                    inTable ? tablePath : location,
                    sd.getInputFormat(),
                    sd.getOutputFormat(),
                    sd.getCols(),
                    sd.getSerdeInfo());
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof GroupKey that
                    && Objects.equals(base, that.base)
                    && Objects.equals(inputFormat, that.inputFormat)
                    && Objects.equals(outputFormat, that.outputFormat)
                    && Objects.equals(columns, that.columns)
                    && Objects.equals(serde, that.serde);
        }

        @Override
        public int hashCode() {
            return Objects.hash(base, inputFormat, outputFormat, columns, serde);
        }
    }

    /**
     * The partitions a list of specs describes, in order, as Hive's {@code PartitionSpecProxy} reads them: a list spec's
     * partitions as they are, a shared-descriptor spec's as a copy of the descriptor each, with the descriptor's
     * location followed by the partition's relative path, and the spec's catalog, database and table names. Refuses,
     * with Hive's messages, a spec with neither form, a shared spec without a descriptor, a list spec without a list,
     * and a listed partition that is null or has no values or a null value.
     */
    static List<Partition> partitions(List<PartitionSpec> specs) throws MetaException {
        List<Partition> partitions = new ArrayList<>();
        for (PartitionSpec spec : specs) {
            if (spec == null) {
                throw new MetaException("A partition spec cannot be null.");
            }
            if (spec.isSetSharedSDPartitionSpec()) {
                shared(spec, partitions);
            } else if (spec.isSetPartitionList()) {
                listed(spec, partitions);
            } else {
                throw new MetaException(
                        "A partition spec needs a partition list or a shared storage descriptor: " + spec);
            }
        }
        return partitions;
    }

    private static void shared(PartitionSpec spec, List<Partition> partitions) throws MetaException {
        PartitionSpecWithSharedSD shared = spec.getSharedSDPartitionSpec();
        if (shared.getSd() == null) {
            throw new MetaException("The shared storage descriptor must be set.");
        }
        String root = shared.getSd().getLocation();
        if (root == null || root.isEmpty()) {
            // Hive would resolve "null<relative path>" against its working directory.
            throw new MetaException("The shared storage descriptor of a partition spec has no location: " + spec);
        }
        for (PartitionWithoutSD member :
                shared.getPartitions() == null ? List.<PartitionWithoutSD>of() : shared.getPartitions()) {
            if (member == null) {
                throw new MetaException("Partition cannot be null.");
            }
            StorageDescriptor sd = shared.getSd().deepCopy();
            // As Hive: the descriptor's location and the relative path, joined as strings (a missing one reads "null").
            sd.setLocation(root + member.getRelativePath());
            Partition partition = new Partition();
            if (member.isSetValues()) {
                partition.setValues(new ArrayList<>(member.getValues()));
            }
            partition.setDbName(spec.getDbName());
            partition.setTableName(spec.getTableName());
            partition.setCatName(spec.getCatName());
            partition.setCreateTime(member.getCreateTime());
            partition.setLastAccessTime(member.getLastAccessTime());
            partition.setSd(sd);
            if (member.isSetParameters()) {
                partition.setParameters(new LinkedHashMap<>(member.getParameters()));
            }
            partitions.add(partition);
        }
    }

    private static void listed(PartitionSpec spec, List<Partition> partitions) throws MetaException {
        PartitionListComposingSpec list = spec.getPartitionList();
        if (list.getPartitions() == null) {
            throw new MetaException("The partition list cannot be null.");
        }
        for (Partition partition : list.getPartitions()) {
            if (partition == null) {
                throw new MetaException("Partition cannot be null.");
            }
            if (partition.getValues() == null || partition.getValues().isEmpty()) {
                throw new MetaException("The partition value list cannot be null or empty.");
            }
            if (partition.getValues().contains(null)) {
                throw new MetaException("Partition value cannot be null.");
            }
            partitions.add(partition.deepCopy());
        }
    }
}
