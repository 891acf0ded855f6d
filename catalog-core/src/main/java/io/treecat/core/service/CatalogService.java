package io.treecat.core.service;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.exec.Continuation;
import io.treecat.core.query.exec.QueryCursor;
import io.treecat.core.query.exec.QueryExecutor;
import io.treecat.core.query.exec.QueryOptions;
import io.treecat.core.query.exec.QueryPage;
import io.treecat.core.query.exec.ScanListener;
import io.treecat.core.query.parser.QueryParser;
import io.treecat.core.query.plan.QueryPlan;
import io.treecat.core.query.plan.QueryPlanner;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import io.treecat.core.storage.rocksdb.RocksStoreOptions;
import io.treecat.core.version.CommitResult;
import io.treecat.core.version.NamedSnapshot;
import io.treecat.core.version.VersionedTree;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The one entry point adapters call: reads at a version, path queries, commits, snapshots and
 * clones over one versioned tree. Thread safe.
 */
public final class CatalogService implements AutoCloseable {
  private final VersionedTree tree;
  private final QueryExecutor executor;

  public CatalogService(VersionedTree tree) {
    this.tree = requireNonNull(tree, "tree is null");
    this.executor = new QueryExecutor(tree);
  }

  /** Opens (or creates) a catalog stored with RocksDB in {@code directory}. */
  public static CatalogService open(Path directory) {
    return open(directory, RocksStoreOptions.defaults());
  }

  public static CatalogService open(Path directory, RocksStoreOptions options) {
    return new CatalogService(VersionedTree.open(RocksKvStore.open(directory, options)));
  }

  public VersionedTree tree() {
    return tree;
  }

  public long lastVid() {
    return tree.lastVid();
  }

  /** The vid a read point stands for, checked to be readable. */
  public long resolve(ReadPoint point) {
    requireNonNull(point, "read point is null");
    if (point instanceof ReadPoint.AtVid atVid) {
      return tree.checkReadable(atVid.vid());
    }
    if (point instanceof ReadPoint.AtSnapshot snapshot) {
      return tree.snapshotVid(snapshot.name());
    }
    return tree.lastVid();
  }

  public Optional<CatalogObject> get(ObjectPath path, ReadPoint point) {
    return tree.read(path, resolve(point));
  }

  public QueryPlan plan(String query) {
    return QueryPlanner.plan(QueryParser.parse(query));
  }

  public String explain(String query) {
    return plan(query).explain();
  }

  /** Opens a streaming cursor; the caller closes it. */
  public QueryCursor openQuery(QueryRequest request, ScanListener listener) {
    QueryPlan plan = plan(request.query());
    long vid;
    Optional<Continuation> after = request.pageToken().map(Continuation::decode);
    if (after.isPresent() && request.readPoint() instanceof ReadPoint.Latest) {
      vid = tree.checkReadable(after.get().vid());
    } else {
      vid = resolve(request.readPoint());
    }
    QueryOptions options = new QueryOptions(vid, request.results(), request.projection(), after, listener);
    return executor.execute(plan, options);
  }

  public QueryCursor openQuery(QueryRequest request) {
    return openQuery(request, ScanListener.NONE);
  }

  /** One page of a query's results, with the token for the next page if there is one. */
  public QueryPage query(QueryRequest request) {
    try (QueryCursor cursor = openQuery(request)) {
      return cursor.page(request.limit());
    }
  }

  public CommitResult commit(WriteSet writes) {
    return tree.commit(writes);
  }

  public NamedSnapshot createSnapshot(String name, ReadPoint point) {
    return tree.createSnapshot(name, resolve(point));
  }

  public List<NamedSnapshot> listSnapshots() {
    return tree.listSnapshots();
  }

  public void dropSnapshot(String name) {
    tree.dropSnapshot(name);
  }

  /** Copies the subtree at {@code source} as of {@code point} to {@code target}, sharing leaves. */
  public CommitResult clone(ObjectPath source, ObjectPath target, ReadPoint point) {
    return tree.commit(WriteSet.of(new WriteOp.Clone(source, target, resolve(point))));
  }

  @Override
  public void close() {
    tree.close();
  }
}
