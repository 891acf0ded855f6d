package io.treecat.server;

import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;

/**
 * The paper's example retail database (its Figure 3): a relational sales table partitioned by
 * region and date with data files carrying column statistics, a customer table, and an ML model
 * with tagged versions.
 */
final class SampleCatalog {
    static final String[] REGIONS = {"EU", "US"};
    static final int DAYS = 10;
    static final int FILES_PER_PARTITION = 3;

    private SampleCatalog() {}

    static WriteSet writes() {
        List<WriteOp> ops = new ArrayList<>();
        ops.add(inner(ObjectPath.of("retail"), "{obj_type: 'database', owner: 'analytics'}"));
        ObjectPath sales = ObjectPath.of("retail", "sales");
        ops.add(
                inner(
                        sales,
                        "{obj_type: 'table', format: 'parquet', columns: ['region', 'date', 'price'], partition_keys: ['region', 'date']}"));
        LocalDate first = LocalDate.parse("2024-12-28");
        int fileNumber = 0;
        for (String region : REGIONS) {
            ObjectPath regionPath = sales.child("region=" + region);
            ops.add(inner(regionPath, "{obj_type: 'partition', part_key: 'region', part_val: '" + region + "'}"));
            for (int day = 0; day < DAYS; day++) {
                String date = first.plusDays(day).toString();
                ObjectPath datePath = regionPath.child("date=" + date);
                ops.add(inner(datePath, "{obj_type: 'partition', part_key: 'date', part_val: '" + date + "'}"));
                for (int file = 0; file < FILES_PER_PARTITION; file++) {
                    fileNumber++;
                    int min = (fileNumber * 7) % 11;
                    int max = min + 3 + (fileNumber % 5);
                    String name = String.format("part-%05d.parquet", fileNumber);
                    ops.add(new WriteOp.Add(
                            datePath.child(name),
                            ObjectKind.LEAF,
                            BsonDocument.parse("{obj_type: 'file', location: 'file:./warehouse/retail/sales/region="
                                    + region + "/date=" + date + "/" + name + "', record_count: " + (1000 + fileNumber)
                                    + ", stats: {price: {min: " + min + ", max: " + max + "}}}")));
                }
            }
        }
        ops.add(inner(
                ObjectPath.of("retail", "customer"),
                "{obj_type: 'table', format: 'parquet', columns: ['id', 'name']}"));
        ops.add(new WriteOp.Add(
                ObjectPath.of("retail", "customer", "part-00001.parquet"),
                ObjectKind.LEAF,
                BsonDocument.parse("{obj_type: 'file', record_count: 5000}")));
        ObjectPath model = ObjectPath.of("retail", "churn_model");
        ops.add(inner(model, "{obj_type: 'ml_model', framework: 'xgboost'}"));
        ops.add(new WriteOp.Add(
                model.child("v1"),
                ObjectKind.LEAF,
                BsonDocument.parse("{obj_type: 'model_version', tag: 'v1', auc: 0.81}")));
        ops.add(new WriteOp.Add(
                model.child("v2"),
                ObjectKind.LEAF,
                BsonDocument.parse("{obj_type: 'model_version', tag: 'v2', auc: 0.86}")));
        return new WriteSet(ops);
    }

    private static WriteOp inner(ObjectPath path, String json) {
        return new WriteOp.Add(path, ObjectKind.INNER, BsonDocument.parse(json));
    }
}
