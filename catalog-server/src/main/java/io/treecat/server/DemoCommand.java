package io.treecat.server;

import io.treecat.core.error.CatalogException;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.exec.QueryPage;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.QueryRequest;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.txn.Transaction;
import io.treecat.core.txn.TransactionMode;
import io.treecat.core.version.CommitResult;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.io.PrintStream;
import java.nio.file.Path;
import org.bson.BsonDocument;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;

/**
 * A real run of the core on disk: loads the paper's sample catalog into RocksDB (once), runs the
 * paper's example queries with their plans, shows precision locking decide two transactions, then a
 * snapshot and time travel.
 */
final class DemoCommand {
    private static final JsonWriterSettings JSON =
            JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();

    private final Path dataDirectory;
    private final PrintStream out;

    DemoCommand(Path dataDirectory, PrintStream out) {
        this.dataDirectory = dataDirectory;
        this.out = out;
    }

    void run() {
        try (CatalogService catalog = CatalogService.open(dataDirectory)) {
            out.printf(
                    "TreeCat demo on RocksDB at %s (newest version: %d)%n",
                    dataDirectory.toAbsolutePath(), catalog.lastVid());
            if (catalog.get(ObjectPath.of("retail"), ReadPoint.LATEST).isEmpty()) {
                CommitResult loaded = catalog.commit(SampleCatalog.writes());
                out.printf(
                        "Loaded the sample retail catalog: %d objects at version %d%n",
                        loaded.changes().size(), loaded.vid());
            }

            query(
                    catalog,
                    "Validate the table (paper §3.2)",
                    "/[obj_id='retail']/[obj_id='sales' and obj_type='table']");
            query(
                    catalog,
                    "Files to scan for region = 'US' AND date > '2025-01-01' AND price > 5 (paper §3.2)",
                    "/[obj_id='retail']/[obj_id='sales' and\n  obj_type='table']/[part_val='US']\n  /[part_val > '2025-01-01']/[stats.price.min > 5]");
            query(
                    catalog,
                    "Everything under the sales table, two levels down (paper §4.4)",
                    "/[obj_id='retail']/[obj_id='sales']/*/*");

            transactions(catalog);

            String snapshot = "demo-" + catalog.lastVid();
            if (catalog.tree().findSnapshot(snapshot).isEmpty()) {
                catalog.createSnapshot(snapshot, ReadPoint.LATEST);
            }
            CommitResult merged = catalog.commit(WriteSet.of(new WriteOp.Merge(
                    ObjectPath.of("retail", "sales"), BsonDocument.parse("{stats: {commits: {op: '+', val: 1}}}"))));
            out.printf(
                    "%nSnapshot '%s' names version %d; a merge then committed version %d.%n",
                    snapshot, catalog.tree().snapshotVid(snapshot), merged.vid());
            CatalogObject now = catalog.get(ObjectPath.of("retail", "sales"), ReadPoint.LATEST)
                    .orElseThrow();
            CatalogObject then = catalog.get(ObjectPath.of("retail", "sales"), ReadPoint.snapshot(snapshot))
                    .orElseThrow();
            out.printf("  /retail/sales now:          %s%n", now.value().toJson(JSON));
            out.printf("  /retail/sales at snapshot:  %s%n", then.value().toJson(JSON));
        }
    }

    /** The paper's §5.1 point: a writer conflicts with a reader only if it changes what the reader saw. */
    private void transactions(CatalogService catalog) {
        String partition = "/retail/sales/region=US/date=2025-01-02";
        String files =
                "/[obj_id='retail']/[obj_id='sales']/[obj_id='region=US']/[obj_id='date=2025-01-02']/[stats.price.min > 8]";
        out.printf(
                "%n== Transactions (%s): a reader of %s%n",
                catalog.transactions().protocol(), files);
        for (int minimum : new int[] {1, 50}) {
            Transaction reader = catalog.begin(TransactionMode.READ_WRITE, ReadPoint.LATEST);
            int seen = catalog.query(reader.id(), QueryRequest.of(files)).rows().size();
            ObjectPath added = ObjectPath.parse(partition).child("demo-" + catalog.lastVid() + ".parquet");
            catalog.commit(WriteSet.of(new WriteOp.Add(
                    added,
                    ObjectKind.LEAF,
                    BsonDocument.parse("{obj_type: 'file', stats: {price: {min: " + minimum + ", max: 60}}}"))));
            out.printf(
                    "  reader saw %d files; meanwhile a writer added %s with price.min = %d%n",
                    seen, added.id(), minimum);
            try {
                CommitResult committed = catalog.commit(
                        reader.id(),
                        WriteSet.of(new WriteOp.Merge(
                                ObjectPath.of("retail", "sales"),
                                BsonDocument.parse("{stats: {plans: {op: '+', val: 1}}}"))));
                out.printf(
                        "  reader committed at version %d: the new file does not match its predicate%n",
                        committed.vid());
            } catch (CatalogException e) {
                out.printf("  reader aborted: %s%n", e.getMessage());
            }
        }
    }

    private void query(CatalogService catalog, String title, String query) {
        out.printf(
                "%n== %s%n%s%n-- plan%n%s%n-- results%n",
                title, query, catalog.explain(query).strip());
        QueryPage page = catalog.query(QueryRequest.of(query).withLimit(20));
        for (CatalogObject row : page.rows()) {
            out.printf(
                    "  %-5s %s  %s%n",
                    row.kind() == ObjectKind.LEAF ? "leaf" : "inner",
                    row.path(),
                    row.value().toJson(JSON));
        }
        out.printf(
                "  (%d rows at version %d%s)%n",
                page.rows().size(), page.vid(), page.continuation().isPresent() ? ", more pages follow" : "");
    }
}
