package io.treecat.core.query.exec;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.IdOrder;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.plan.IdRange;
import io.treecat.core.query.plan.PlanStep;
import io.treecat.core.query.plan.QueryPlan;
import io.treecat.core.query.tree.EvaluationTarget;
import io.treecat.core.query.tree.Predicates;
import io.treecat.core.query.tree.Step;
import io.treecat.core.version.ChildCursor;
import io.treecat.core.version.ChildKinds;
import io.treecat.core.version.ChildScan;
import io.treecat.core.version.VersionedTree;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.bson.BsonDocument;

/**
 * Runs a plan as the paper's chain of correlated batch scans (§4.4): step i scans the children of
 * each object step i-1 produced, in batches, using the step's id ranges as iterator bounds and its
 * predicate as a filter. Only the scans of the last step touch leaves, and only values that a
 * predicate or the result needs are ever decoded.
 */
public final class QueryExecutor {
    /** Contexts handed from one step to the next at a time. */
    static final int BATCH_SIZE = 256;

    private final VersionedTree tree;

    public QueryExecutor(VersionedTree tree) {
        this.tree = requireNonNull(tree, "tree is null");
    }

    public QueryCursor execute(QueryPlan plan, QueryOptions options) {
        requireNonNull(plan, "plan is null");
        requireNonNull(options, "options is null");
        tree.checkReadable(options.vid());
        List<PlanStep> steps = plan.steps();
        ObjectPath resume = options.after().map(Continuation::lastPath).orElse(null);
        if (resume != null && resume.depth() != steps.size()) {
            throw new CatalogException(
                            ErrorCode.INVALID_CONTINUATION,
                            "The continuation token belongs to a query of another depth")
                    .with("tokenDepth", resume.depth())
                    .with("queryDepth", steps.size());
        }
        StepScan scan = null;
        for (int i = 0; i < steps.size(); i++) {
            boolean last = i == steps.size() - 1;
            scan = new StepScan(steps.get(i), scan, last ? options.results() : ChildKinds.INNER, options, resume, last);
        }
        return new ChainCursor(scan, options);
    }

    private final class ChainCursor implements QueryCursor {
        private final StepScan last;
        private final QueryOptions options;
        private final Projection projection;
        private CatalogObject current;

        ChainCursor(StepScan last, QueryOptions options) {
            this.last = last;
            this.options = options;
            this.projection = options.projection().isEmpty() ? null : Projection.of(options.projection());
        }

        @Override
        public boolean advance() {
            if (!last.advance()) {
                current = null;
                return false;
            }
            ChildCursor cursor = last.cursor;
            BsonDocument value = projection == null ? cursor.value() : projection.apply(cursor.value());
            current = new CatalogObject(
                    last.context.childOfStoredId(cursor.id()), cursor.kind(), value, cursor.version());
            return true;
        }

        @Override
        public CatalogObject current() {
            if (current == null) {
                throw new IllegalStateException("no current row");
            }
            return current;
        }

        @Override
        public long vid() {
            return options.vid();
        }

        @Override
        public void close() {
            for (StepScan scan = last; scan != null; scan = scan.upstream) {
                scan.close();
            }
        }
    }

    /** One step of the chain: the children of its upstream's results that satisfy its predicate. */
    private final class StepScan implements EvaluationTarget {
        private final PlanStep step;
        private final StepScan upstream;
        private final ChildKinds kinds;
        private final QueryOptions options;
        private final boolean last;
        private final List<byte[][]> ranges;
        private final List<ObjectPath> contexts = new ArrayList<>(BATCH_SIZE);
        private int nextContext;
        private boolean started;
        private ObjectPath resumeContext;
        private byte[] resumeLower;
        ObjectPath context;
        ChildCursor cursor;
        /** Reads the children of every context of this step through one set of store iterators. */
        private ChildScan scan;

        StepScan(
                PlanStep step,
                StepScan upstream,
                ChildKinds kinds,
                QueryOptions options,
                ObjectPath resume,
                boolean last) {
            this.step = step;
            this.upstream = upstream;
            this.kinds = kinds;
            this.options = options;
            this.last = last;
            this.ranges = toByteRanges(step);
            if (resume != null) {
                int depth = step.depth();
                this.resumeContext = resume.prefix(depth - 1);
                String resumeId = resume.ids().get(depth - 1);
                // Inner steps restart at the resume path's ancestor itself; the last step just after the row.
                this.resumeLower = last ? IdRange.after(resumeId) : IdOrder.encode(resumeId);
            }
        }

        /** Moves {@link #cursor} to the next matching child; false when the step is exhausted. */
        boolean advance() {
            while (true) {
                if (cursor != null) {
                    while (cursor.advance()) {
                        if (matches()) {
                            return true;
                        }
                    }
                    cursor.close();
                    cursor = null;
                }
                ObjectPath next = nextContext();
                if (next == null) {
                    return false;
                }
                open(next);
            }
        }

        private boolean matches() {
            Step predicate = step.step();
            if (predicate instanceof Step.Filter filter) {
                return Predicates.test(filter.expr(), this);
            }
            return true;
        }

        @Override
        public String id() {
            return cursor.id();
        }

        @Override
        public BsonDocument value() {
            return cursor.value();
        }

        private ObjectPath nextContext() {
            if (upstream == null) {
                if (started) {
                    return null;
                }
                started = true;
                return ObjectPath.ROOT;
            }
            if (nextContext == contexts.size()) {
                contexts.clear();
                nextContext = 0;
                while (contexts.size() < BATCH_SIZE && upstream.advance()) {
                    contexts.add(upstream.context.childOfStoredId(upstream.cursor.id()));
                }
                if (contexts.isEmpty()) {
                    return null;
                }
            }
            return contexts.get(nextContext++);
        }

        private void open(ObjectPath parent) {
            // Rows are sent with their paths as text: made for the parent once, each child's is then one concatenation.
            context = parent.withText();
            List<byte[][]> bounds = ranges;
            if (resumeContext != null) {
                // Contexts arrive in path order, so only the first one can be the resume point's ancestor.
                if (parent.equals(resumeContext)) {
                    bounds = clampLower(ranges, resumeLower);
                }
                resumeContext = null;
            }
            long vid = options.listener().onScan(parent, step, kinds, last, options.vid());
            if (scan == null) {
                scan = tree.childScan(kinds);
            }
            cursor = scan.children(parent, vid, bounds);
        }

        void close() {
            if (cursor != null) {
                cursor.close();
                cursor = null;
            }
            if (scan != null) {
                scan.close();
                scan = null;
            }
        }
    }

    private static List<byte[][]> toByteRanges(PlanStep step) {
        List<byte[][]> ranges = new ArrayList<>();
        for (IdRange range : step.idRanges().ranges()) {
            ranges.add(new byte[][] {range.lowerInclusive(), range.upperExclusive()});
        }
        return ranges;
    }

    /** The smallest id encoding above {@code id}'s own: the lower bound that skips exactly {@code id}. */
    private static List<byte[][]> clampLower(List<byte[][]> ranges, byte[] lower) {
        List<byte[][]> clamped = new ArrayList<>(ranges.size());
        for (byte[][] range : ranges) {
            byte[] from = range[0] == null || Arrays.compareUnsigned(range[0], lower) < 0 ? lower : range[0];
            if (range[1] == null || Arrays.compareUnsigned(from, range[1]) < 0) {
                clamped.add(new byte[][] {from, range[1]});
            }
        }
        return clamped;
    }
}
