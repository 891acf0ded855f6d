package io.treecat.spark;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.MetadataUpdate;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.SnapshotRefType;
import org.apache.iceberg.Table;
import org.apache.iceberg.UpdateRequirement;
import org.apache.iceberg.catalog.ImmutableTableCommit;
import org.apache.iceberg.catalog.TableCommit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.functions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Several Iceberg writes (appends, overwrites, deletes) to tables of one TreeCat catalog, committed as ONE
 * TreeCat multi-table transaction: either every table changes or none does.
 *
 * <pre>{@code
 * MultiTableWrite.in(spark, "lake")
 *     .append("sales.orders", newOrders)
 *     .overwrite("sales.daily", dailyTotals, "day = DATE '2025-01-02'")
 *     .delete("sales.staging", "day = DATE '2025-01-02'")
 *     .commit();
 * }</pre>
 *
 * <p>From PySpark, through the JVM: {@code w = spark._jvm.io.treecat.spark.MultiTableWrite.in_(spark._jsparkSession,
 * "lake")}, {@code w.append("sales.orders", df._jdf)}, …, {@code w.commit()}.
 *
 * <p>How: {@link #commit()} creates a branch of each table at its current {@code main} snapshot, runs each write
 * with Spark against its table's branch (Iceberg's {@code branch_<name>} identifiers; each is an ordinary
 * Iceberg write that commits to the branch only, so readers of {@code main} see nothing), then, after the
 * optional {@link #audit} step, moves every table's {@code main} to its branch's head and drops the branches
 * in one {@code POST /v1/{prefix}/transactions/commit}, each table's change guarded by "main is still the
 * snapshot the branch started from". TreeCat applies all of them in one transaction or none.
 *
 * <p>Tables the writes read are declared with {@link #reads}: the commit requires them unchanged too.
 *
 * <p>A conflict (another writer moved some table's {@code main} meanwhile) drops the branches and runs every
 * write again on fresh branches, up to {@link #maxAttempts} times in all; then it fails as a whole with
 * {@link CommitFailedException} and no table changed. A driver that dies before the commit leaves no table
 * changed: only its branches ({@code treecat_write_*}) remain, which {@code ALTER TABLE … DROP BRANCH} removes.
 */
public final class MultiTableWrite {
    private static final Logger LOG = LoggerFactory.getLogger(MultiTableWrite.class);

    /** The prefix of the branches a write stages on. */
    public static final String BRANCH_PREFIX = "treecat_write_";

    private static final String MAIN = SnapshotRef.MAIN_BRANCH;

    /** One write, run against a table's branch. */
    private interface Step {
        void run(SparkSession spark, String branchTable) throws Exception;
    }

    private record Write(String table, String description, Step step) {}

    /** What the {@link #audit} step sees: each table and the branch its writes were staged on. */
    @FunctionalInterface
    public interface Audit {
        /** Checks the staged writes (read {@code <catalog>.<table>.branch_<branch>}); throwing aborts the write. */
        void check(Map<String, String> branchesByTable) throws Exception;
    }

    private final SparkSession spark;
    private final String catalogName;
    private final TreeCatCatalog catalog;
    private final List<Write> writes = new ArrayList<>();
    /** Tables the writes read and must find unchanged at the commit (besides the tables written). */
    private final List<String> reads = new ArrayList<>();

    private int maxAttempts = 3;
    private Audit audit = staged -> {};

    private MultiTableWrite(SparkSession spark, String catalogName, TreeCatCatalog catalog) {
        this.spark = spark;
        this.catalogName = catalogName;
        this.catalog = catalog;
    }

    /** A multi-table write to tables of the session's TreeCat catalog {@code catalogName}. */
    public static MultiTableWrite in(SparkSession spark, String catalogName) {
        requireNonNull(spark, "spark is null");
        requireNonNull(catalogName, "catalogName is null");
        CatalogPlugin plugin = spark.sessionState().catalogManager().catalog(catalogName);
        if (!(plugin instanceof TreeCatCatalog treecat)) {
            throw new IllegalArgumentException(String.format(
                    "Catalog %s is a %s, not a TreeCatCatalog: a multi-table write commits through TreeCat",
                    catalogName, plugin.getClass().getName()));
        }
        if (treecat.version().readOnly()) {
            throw new IllegalStateException(String.format(
                    "Catalog %s reads a past version (%s): unpin it to write", catalogName, treecat.version()));
        }
        return new MultiTableWrite(spark, catalogName, treecat);
    }

    /** Python's name for {@link #in}, which is a keyword there. */
    public static MultiTableWrite in_(SparkSession spark, String catalogName) {
        return in(spark, catalogName);
    }

    /** Appends the rows of {@code data} to {@code table} ({@code namespace.table} in the catalog). */
    public MultiTableWrite append(String table, Dataset<Row> data) {
        requireNonNull(data, "data is null");
        return add(
                table,
                "append",
                (session, branchTable) -> data.writeTo(branchTable).append());
    }

    /** Replaces the rows of {@code table} that match {@code condition} (Spark SQL) with the rows of {@code data}. */
    public MultiTableWrite overwrite(String table, Dataset<Row> data, String condition) {
        requireNonNull(data, "data is null");
        requireNonNull(condition, "condition is null");
        return add(
                table,
                "overwrite where " + condition,
                (session, branchTable) -> data.writeTo(branchTable).overwrite(functions.expr(condition)));
    }

    /** Replaces the partitions of {@code table} that {@code data} has rows in (Spark's dynamic overwrite). */
    public MultiTableWrite overwritePartitions(String table, Dataset<Row> data) {
        requireNonNull(data, "data is null");
        return add(
                table,
                "overwrite partitions",
                (session, branchTable) -> data.writeTo(branchTable).overwritePartitions());
    }

    /** Deletes the rows of {@code table} that match {@code condition} (Spark SQL). */
    public MultiTableWrite delete(String table, String condition) {
        requireNonNull(condition, "condition is null");
        return add(
                table,
                "delete where " + condition,
                (session, branchTable) -> session.sql("DELETE FROM " + branchTable + " WHERE " + condition));
    }

    /**
     * Declares that the writes read {@code table} ({@code namespace.table}): the commit then also requires its
     * {@code main} to be the snapshot it was when the attempt started, so a write computed from data another
     * writer changed meanwhile conflicts and runs again (serializable, as the tables written are already).
     */
    public MultiTableWrite reads(String table) {
        checkName(table);
        reads.add(table);
        return this;
    }

    /** How many times {@link #commit} runs the writes when other writers conflict (at least 1; 3 by default). */
    public MultiTableWrite maxAttempts(int attempts) {
        if (attempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1: " + attempts);
        }
        this.maxAttempts = attempts;
        return this;
    }

    /** A check of the staged writes before they are committed (write-audit-publish); throwing aborts. */
    public MultiTableWrite audit(Audit check) {
        this.audit = requireNonNull(check, "check is null");
        return this;
    }

    private MultiTableWrite add(String table, String description, Step step) {
        checkName(table);
        writes.add(new Write(table, description, step));
        return this;
    }

    private void checkName(String table) {
        requireNonNull(table, "table is null");
        if (table.isBlank() || !table.contains(".") || table.startsWith(".") || table.endsWith(".")) {
            throw new IllegalArgumentException("A table of a multi-table write is named <namespace>.<table> in catalog "
                    + catalogName + ": " + table);
        }
    }

    /**
     * Runs the writes and commits them as one transaction; answers the tables' new {@code main} snapshot ids.
     *
     * @throws CommitFailedException when other writers conflicted on every attempt; no table changed
     */
    public Map<String, Long> commit() throws Exception {
        if (writes.isEmpty()) {
            throw new IllegalStateException("A multi-table write names at least one write");
        }
        for (int attempt = 1; ; attempt++) {
            Map<String, Staged> staged = new LinkedHashMap<>();
            boolean committed = false;
            try {
                Map<String, Read> read = new LinkedHashMap<>();
                for (String table : reads) {
                    read.putIfAbsent(table, read(table));
                }
                String branch = BRANCH_PREFIX
                        + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
                for (Write write : writes) {
                    if (!staged.containsKey(write.table())) {
                        staged.put(write.table(), stage(write.table(), branch));
                    }
                    write.step().run(spark, catalogName + "." + write.table() + ".branch_" + branch);
                }
                Map<String, String> branches = new LinkedHashMap<>();
                staged.forEach((table, stage) -> branches.put(table, stage.branch()));
                audit.check(branches);
                staged.keySet().forEach(read::remove);
                Map<String, Long> heads = publish(staged, read.values());
                committed = true;
                return heads;
            } catch (CommitFailedException e) {
                if (attempt >= maxAttempts) {
                    throw new CommitFailedException(
                            e,
                            "Multi-table write to %s failed after %d attempt(s), no table changed: %s",
                            String.join(", ", staged.keySet()),
                            attempt,
                            e.getMessage());
                }
                LOG.info(
                        "Multi-table write conflicted (attempt {} of {}), running it again: {}",
                        attempt,
                        maxAttempts,
                        e.getMessage());
            } finally {
                if (!committed) {
                    dropBranches(staged);
                }
            }
        }
    }

    /** A table and the branch its writes go to, made at the {@code main} snapshot it must still have at commit. */
    private record Staged(TableIdentifier identifier, String uuid, Long base, String branch) {}

    private Staged stage(String table, String branch) {
        RESTCatalog rest = catalog.restCatalog();
        TableIdentifier identifier = TableIdentifier.parse(table);
        Table loaded = rest.loadTable(identifier);
        if (loaded.currentSnapshot() == null) {
            throw new IllegalStateException(String.format(
                    "Table %s.%s has no snapshot yet: a multi-table write stages on a branch of it; write it once first",
                    catalogName, table));
        }
        long base = loaded.currentSnapshot().snapshotId();
        loaded.manageSnapshots().createBranch(branch, base).commit();
        // Spark's catalog may hold the table from before the branch: load it again for the writes.
        catalog.invalidateTable(sparkIdentifier(identifier));
        String uuid = loaded.uuid().toString();
        return new Staged(identifier, uuid, base, branch);
    }

    /** A table the writes read, and its {@code main} snapshot when the attempt started. */
    private record Read(TableIdentifier identifier, String uuid, Long main) {}

    private Read read(String table) {
        TableIdentifier identifier = TableIdentifier.parse(table);
        Table loaded = catalog.restCatalog().loadTable(identifier);
        // The writes' DataFrames load it through Spark's catalog: make that load the state recorded here.
        catalog.invalidateTable(sparkIdentifier(identifier));
        Long main = loaded.currentSnapshot() == null
                ? null
                : loaded.currentSnapshot().snapshotId();
        return new Read(identifier, loaded.uuid().toString(), main);
    }

    private Map<String, Long> publish(Map<String, Staged> staged, Collection<Read> read) {
        RESTCatalog rest = catalog.restCatalog();
        List<TableCommit> commits = new ArrayList<>();
        for (Read table : read) {
            // Only requirements: the table read must still be what the writes read.
            commits.add(ImmutableTableCommit.builder()
                    .identifier(table.identifier())
                    .addRequirements(
                            new UpdateRequirement.AssertTableUUID(table.uuid()),
                            new UpdateRequirement.AssertRefSnapshotID(MAIN, table.main()))
                    .build());
        }
        Map<String, Long> heads = new LinkedHashMap<>();
        for (Map.Entry<String, Staged> entry : staged.entrySet()) {
            Staged stage = entry.getValue();
            Table table = rest.loadTable(stage.identifier());
            SnapshotRef head = table.refs().get(stage.branch());
            if (head == null) {
                throw new IllegalStateException(
                        "The branch " + stage.branch() + " of " + entry.getKey() + " vanished before the commit");
            }
            heads.put(entry.getKey(), head.snapshotId());
            commits.add(ImmutableTableCommit.builder()
                    .identifier(stage.identifier())
                    .addRequirements(
                            new UpdateRequirement.AssertTableUUID(stage.uuid()),
                            new UpdateRequirement.AssertRefSnapshotID(MAIN, stage.base()))
                    .addUpdates(
                            new MetadataUpdate.SetSnapshotRef(
                                    MAIN, head.snapshotId(), SnapshotRefType.BRANCH, null, null, null),
                            new MetadataUpdate.RemoveSnapshotRef(stage.branch()))
                    .build());
        }
        rest.commitTransaction(commits);
        staged.values().forEach(stage -> catalog.invalidateTable(sparkIdentifier(stage.identifier())));
        return heads;
    }

    private static Identifier sparkIdentifier(TableIdentifier identifier) {
        return Identifier.of(identifier.namespace().levels(), identifier.name());
    }

    /** Drops the branches of a write that did not commit; a branch left behind changes no reader of main. */
    private void dropBranches(Map<String, Staged> staged) {
        for (Staged stage : staged.values()) {
            try {
                Table table = catalog.restCatalog().loadTable(stage.identifier());
                if (table.refs().containsKey(stage.branch())) {
                    table.manageSnapshots().removeBranch(stage.branch()).commit();
                }
            } catch (RuntimeException e) {
                LOG.warn("Could not drop branch {} of {}: {}", stage.branch(), stage.identifier(), e.toString());
            }
        }
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("MultiTableWrite(").append(catalogName);
        for (Write write : writes) {
            text.append(", ").append(write.table()).append(": ").append(write.description());
        }
        return text.append(')').toString();
    }
}
