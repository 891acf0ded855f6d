package io.treecat.lakehouse.iceberg;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.exec.QueryPage;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.QueryRequest;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.txn.Transaction;
import io.treecat.core.txn.TransactionMode;
import io.treecat.lakehouse.storage.LocalFileIO;
import io.treecat.core.version.ChildKinds;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.MetadataUpdate;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.UpdateRequirement;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.rest.requests.CreateTableRequest;
import org.apache.iceberg.rest.requests.UpdateTableRequest;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Iceberg catalog operations on the tree (DESIGN §6): {@code /<catalog>} (obj_type=catalog),
 * {@code /<catalog>/<ns>[/<ns>…]} (obj_type=namespace, its properties), {@code /<catalog>/<ns…>/<table>}
 * (obj_type=table: format_version, metadata_location, uuid, current_snapshot_id, location,
 * properties). Table metadata itself lives in metadata JSON files written through {@link FileIO}.
 *
 * <p>Every change is one TreeCat read-write transaction that reads what it depends on through the
 * transaction, so a concurrent writer of the same objects makes one of the two fail validation
 * (COMMIT_CONFLICT), which reaches the client as 409 {@link CommitFailedException} and is retried
 * by the client. A table and a namespace share one level of the tree, so they cannot have the same
 * name in one parent.
 */
public final class IcebergTables {
  private static final Logger LOG = LoggerFactory.getLogger(IcebergCatalog.class);

  static final String OBJ_TYPE = "obj_type";
  static final String CATALOG = "catalog";
  static final String NAMESPACE = "namespace";
  static final String TABLE = "table";
  static final String VIEW = "view";
  static final String PROPERTIES = "properties";
  static final String METADATA_LOCATION = "metadata_location";

  private final Supplier<CatalogService> catalog;
  private final String warehouse;
  private final FileIO io;
  private final FileIndex files;
  private final CommitRebaser rebaser;
  private final MetadataFileCache metadataFiles;
  private final TableCommitLocks commitLocks = new TableCommitLocks();

  /**
   * @param warehouse where default locations go, with a scheme ({@code file:/…})
   */
  public IcebergCatalog(Supplier<CatalogService> catalog, String warehouse, FileIO io) {
    this(catalog, warehouse, io, false);
  }

  /**
   * @param rebaseAppends whether lost appends are rebased on tables without a {@code treecat.rebase-appends} property
   */
  public IcebergCatalog(Supplier<CatalogService> catalog, String warehouse, FileIO io, boolean rebaseAppends) {
    this.catalog = requireNonNull(catalog, "catalog is null");
    this.warehouse = stripSlash(requireNonNull(warehouse, "warehouse is null"));
    this.io = requireNonNull(io, "io is null");
    this.files = new FileIndex(catalog, io);
    this.rebaser = new CommitRebaser(io, rebaseAppends);
    this.metadataFiles = new MetadataFileCache(io);
  }

  /** The service of the current catalog; for the view operations ({@link IcebergViews}), which share this class's helpers. */
  CatalogService service() {
    return catalog.get();
  }

  FileIO io() {
    return io;
  }

  // ---- paths and values

  static ObjectPath namespacePath(String prefix, Namespace namespace) {
    List<String> ids = new ArrayList<>();
    ids.add(prefix);
    ids.addAll(List.of(namespace.levels()));
    return new ObjectPath(ids);
  }

  static ObjectPath tablePath(String prefix, TableIdentifier identifier) {
    return namespacePath(prefix, identifier.namespace()).child(identifier.name());
  }

  static boolean isType(Optional<CatalogObject> object, String type) {
    return object.isPresent() && object.get().value().isString(OBJ_TYPE) && object.get().value().getString(OBJ_TYPE).getValue().equals(type);
  }

  static BsonDocument properties(Map<String, String> properties) {
    BsonDocument document = new BsonDocument();
    properties.forEach((key, value) -> document.put(key, new BsonString(value)));
    return document;
  }

  static Map<String, String> properties(CatalogObject object) {
    Map<String, String> properties = new LinkedHashMap<>();
    BsonValue value = object.value().get(PROPERTIES);
    if (value != null && value.isDocument()) {
      value.asDocument().forEach((key, v) -> properties.put(key, v.isString() ? v.asString().getValue() : v.toString()));
    }
    return properties;
  }

  private static BsonDocument namespaceValue(Map<String, String> properties) {
    return new BsonDocument(OBJ_TYPE, new BsonString(NAMESPACE)).append(PROPERTIES, properties(properties));
  }

  /**
   * The table object's value after a commit: the stored value ({@code previous}, empty for a new
   * table) with the keys this catalog owns replaced. Keys it does not own stay, so a table the Hive
   * Metastore interface created keeps its {@code hms_table} struct and {@code table_type}
   * (catalog-hms-thrift's HmsTables) through REST commits.
   */
  private static BsonDocument tableValue(TableMetadata metadata, Optional<CatalogObject> previous) {
    BsonDocument value = new BsonDocument();
    previous.ifPresent(object -> value.putAll(object.value())); // stored values are immutable RawBsonDocuments
    value.putAll(tableValue(metadata));
    return value;
  }

  private static BsonDocument tableValue(TableMetadata metadata) {
    Snapshot current = metadata.currentSnapshot();
    return new BsonDocument(OBJ_TYPE, new BsonString(TABLE))
        .append("format_version", new BsonInt32(metadata.formatVersion()))
        .append(METADATA_LOCATION, new BsonString(metadata.metadataFileLocation()))
        .append("uuid", new BsonString(metadata.uuid()))
        .append("current_snapshot_id", current == null ? BsonNull.VALUE : new BsonInt64(current.snapshotId()))
        .append("location", new BsonString(metadata.location()))
        .append(PROPERTIES, properties(metadata.properties()));
  }

  static String stripSlash(String location) {
    String result = location;
    while (result.endsWith("/") && result.length() > 1) {
      result = result.substring(0, result.length() - 1);
    }
    return result;
  }

  /** The default location of a namespace: its {@code location} property, else under the warehouse. */
  String namespaceLocation(String prefix, Namespace namespace, Map<String, String> properties) {
    String location = properties.get("location");
    if (location != null && !location.isBlank()) {
      return stripSlash(location);
    }
    return warehouse + "/" + prefix + (namespace.isEmpty() ? "" : "/" + String.join("/", namespace.levels()));
  }

  // ---- transactions

  /** Runs {@code body} in one read-write transaction; it returns the writes to commit (none: abort). */
  <T> T inTransaction(Function<Transaction, Result<T>> body) {
    CatalogService service = catalog.get();
    Transaction txn = service.begin(TransactionMode.READ_WRITE, ReadPoint.LATEST);
    boolean committed = false;
    try {
      Result<T> result = body.apply(txn);
      if (!result.writes().isEmpty()) {
        service.commit(txn.id(), new WriteSet(result.writes()));
        committed = true;
      }
      return result.value();
    } catch (CatalogException e) {
      throw switch (e.code()) {
        case COMMIT_CONFLICT, LOCK_TIMEOUT -> new CommitFailedException(e, "Commit conflict, retry: %s", e.getMessage());
        case COMMIT_STATE_UNKNOWN -> new CommitStateUnknownException(e);
        default -> e;
      };
    } finally {
      // Anything but a successful commit ends the session now rather than at its idle timeout.
      if (!committed) {
        abortQuietly(service, txn);
      }
    }
  }

  private static void abortQuietly(CatalogService service, Transaction txn) {
    try {
      service.abort(txn.id());
    } catch (RuntimeException e) {
      LOG.debug("Abort of {} failed", txn.id(), e);
    }
  }

  record Result<T>(T value, List<WriteOp> writes) {}

  Optional<CatalogObject> read(Transaction txn, ObjectPath path) {
    return catalog.get().get(txn.id(), path);
  }

  void requireNamespace(Transaction txn, String prefix, Namespace namespace) {
    if (!namespace.isEmpty() && !isType(read(txn, namespacePath(prefix, namespace)), NAMESPACE)) {
      throw new NoSuchNamespaceException("Namespace does not exist: %s", namespace);
    }
  }

  /** The catalog object, added to the writes if this is its first use. */
  private void ensureCatalog(Transaction txn, String prefix, List<WriteOp> writes) {
    ObjectPath path = ObjectPath.of(prefix);
    Optional<CatalogObject> object = read(txn, path);
    if (object.isEmpty()) {
      writes.add(new WriteOp.Add(path, ObjectKind.INNER, new BsonDocument(OBJ_TYPE, new BsonString(CATALOG))
          .append("location", new BsonString(warehouse + "/" + prefix))));
    } else if (!isType(object, CATALOG)) {
      throw new IllegalArgumentException("Not an Iceberg catalog: " + prefix);
    }
  }

  // ---- namespaces

  public Map<String, String> createNamespace(String prefix, Namespace namespace, Map<String, String> properties) {
    if (namespace.isEmpty()) {
      throw new IllegalArgumentException("Invalid namespace: empty");
    }
    inTransaction(txn -> {
      List<WriteOp> writes = new ArrayList<>();
      ensureCatalog(txn, prefix, writes);
      Namespace parent = Namespace.of(java.util.Arrays.copyOf(namespace.levels(), namespace.length() - 1));
      requireNamespace(txn, prefix, parent);
      ObjectPath path = namespacePath(prefix, namespace);
      Optional<CatalogObject> existing = read(txn, path);
      if (existing.isPresent()) {
        throw new AlreadyExistsException(isType(existing, NAMESPACE) ? "Namespace already exists: %s" : "A table or view already has this name: %s", namespace);
      }
      writes.add(new WriteOp.Add(path, ObjectKind.INNER, namespaceValue(properties)));
      return new Result<>(null, writes);
    });
    String location = namespaceLocation(prefix, namespace, properties);
    if (location.startsWith("file:")) {
      LocalFileIO.createDirectories(location);
    }
    return properties;
  }

  /**
   * The namespace's properties, with its default {@code location} when none was set, as Iceberg's HiveCatalog
   * answers with the database's location. Trino needs it: without a namespace location it creates a table eagerly (a create without
   * {@code stage-create}), then refuses the table because its location already holds the metadata file.
   */
  public Map<String, String> loadNamespace(String prefix, Namespace namespace) {
    CatalogPrefix at = CatalogPrefix.parse(prefix);
    Optional<CatalogObject> object = catalog.get().get(namespacePath(at.catalog(), namespace), at.point());
    if (!isType(object, NAMESPACE)) {
      throw new NoSuchNamespaceException("Namespace does not exist: %s", namespace);
    }
    Map<String, String> properties = properties(object.get());
    properties.putIfAbsent("location", namespaceLocation(at.catalog(), namespace, properties));
    return properties;
  }

  /** One page of the namespaces or tables directly under {@code parent}, and the next page's token. */
  public Page list(String prefix, Namespace parent, String type, String pageToken, Integer pageSize) {
    CatalogService service = catalog.get();
    CatalogPrefix at = CatalogPrefix.parse(prefix);
    ReadPoint point = at.pinned(service);
    ObjectPath parentPath = namespacePath(at.catalog(), parent);
    if (parent.isEmpty()) {
      if (service.get(parentPath, point).isEmpty()) {
        return new Page(List.of(), null);
      }
    } else if (!isType(service.get(parentPath, point), NAMESPACE)) {
      throw new NoSuchNamespaceException("Namespace does not exist: %s", parent);
    }
    StringBuilder query = new StringBuilder(PathQueries.steps(parentPath));
    query.append("/[obj_type='").append(type).append("']");
    QueryRequest request = QueryRequest.of(query.toString()).at(point).withResults(ChildKinds.INNER);
    if (pageSize != null) {
      if (pageSize < 1) {
        throw new IllegalArgumentException("Invalid pageSize: " + pageSize);
      }
      request = request.withLimit(Math.min(pageSize, QueryRequest.MAX_LIMIT));
    }
    if (pageToken != null && !pageToken.isEmpty()) {
      request = request.withPageToken(pageToken);
    }
    List<String> names = new ArrayList<>();
    while (true) {
      QueryPage page = service.query(request);
      page.rows().forEach(row -> names.add(row.id()));
      if (pageSize != null || page.continuation().isEmpty()) {
        return new Page(names, page.continuation().orElse(null));
      }
      request = request.withPageToken(page.continuation().get());
    }
  }

  public record Page(List<String> names, String nextPageToken) {}

  public void dropNamespace(String prefix, Namespace namespace) {
    inTransaction(txn -> {
      ObjectPath path = namespacePath(prefix, namespace);
      if (namespace.isEmpty() || !isType(read(txn, path), NAMESPACE)) {
        throw new NoSuchNamespaceException("Namespace does not exist: %s", namespace);
      }
      String query = PathQueries.steps(path) + "/*";
      QueryPage children = catalog.get().query(txn.id(), QueryRequest.of(query).withLimit(1));
      if (!children.rows().isEmpty()) {
        throw new NamespaceNotEmptyException("Namespace is not empty: %s", namespace);
      }
      return new Result<>(null, List.of(new WriteOp.Remove(path)));
    });
  }

  /** Removes, then sets; answers the keys updated, removed and missing. */
  public List<List<String>> updateNamespaceProperties(String prefix, Namespace namespace, List<String> removals, Map<String, String> updates) {
    Set<String> both = new HashSet<>(removals);
    both.retainAll(updates.keySet());
    if (!both.isEmpty()) {
      throw new IllegalArgumentException("Cannot both set and remove properties: " + both);
    }
    return inTransaction(txn -> {
      ObjectPath path = namespacePath(prefix, namespace);
      Optional<CatalogObject> object = read(txn, path);
      if (!isType(object, NAMESPACE)) {
        throw new NoSuchNamespaceException("Namespace does not exist: %s", namespace);
      }
      Map<String, String> properties = properties(object.get());
      List<String> removed = new ArrayList<>();
      List<String> missing = new ArrayList<>();
      for (String key : removals) {
        (properties.remove(key) != null ? removed : missing).add(key);
      }
      properties.putAll(updates);
      BsonDocument value = new BsonDocument();
      value.putAll(object.get().value());
      value.put(PROPERTIES, properties(properties));
      return new Result<>(List.of(new ArrayList<>(updates.keySet()), removed, missing), List.of(new WriteOp.Update(path, ObjectKind.INNER, value)));
    });
  }

  // ---- tables

  public TableMetadata loadTable(String prefix, TableIdentifier identifier) {
    Optional<CatalogObject> object = readAt(prefix, identifier);
    if (!isType(object, TABLE)) {
      throw new NoSuchTableException("Table does not exist: %s", identifier);
    }
    return metadataFiles.read(object.get().value().getString(METADATA_LOCATION).getValue());
  }

  /** The location of a table's current metadata file, without reading it (for ETags). */
  public String metadataLocation(String prefix, TableIdentifier identifier) {
    Optional<CatalogObject> object = readAt(prefix, identifier);
    if (!isType(object, TABLE)) {
      throw new NoSuchTableException("Table does not exist: %s", identifier);
    }
    return object.get().value().getString(METADATA_LOCATION).getValue();
  }

  /** Whether a metadata file is still there: a 304 must not hide a file that vanished (the load fails, as Iceberg's would). */
  public boolean metadataFileExists(String metadataLocation) {
    return io.newInputFile(metadataLocation).exists();
  }

  public TableMetadata readMetadata(String metadataLocation) {
    return metadataFiles.read(metadataLocation);
  }

  /** The metadata a create would commit, without writing anything: for a staged create, and as the first step of a create. */
  public TableMetadata newTable(String prefix, Namespace namespace, CreateTableRequest request) {
    request.validate();
    Map<String, String> nsProperties = namespace.isEmpty() ? Map.of() : loadNamespace(prefix, namespace);
    String location = request.location() != null && !request.location().isBlank()
        ? stripSlash(request.location())
        : namespaceLocation(prefix, namespace, nsProperties) + "/" + request.name();
    PartitionSpec spec = request.spec() == null ? PartitionSpec.unpartitioned() : request.spec();
    SortOrder order = request.writeOrder() == null ? SortOrder.unsorted() : request.writeOrder();
    return TableMetadata.newTableMetadata(request.schema(), spec, order, location, request.properties());
  }

  public TableMetadata createTable(String prefix, Namespace namespace, CreateTableRequest request) {
    TableMetadata metadata = newTable(prefix, namespace, request);
    TableIdentifier identifier = TableIdentifier.of(namespace, request.name());
    return writeAndSwap(List.of(identifier), txn -> {
      requireNamespace(txn, prefix, namespace);
      Optional<CatalogObject> existing = read(txn, tablePath(prefix, identifier));
      if (existing.isPresent()) {
        throw alreadyExists(existing, identifier);
      }
      return List.of(new Staged(tablePath(prefix, identifier), null, metadata));
    }).get(0);
  }

  /**
   * Registers an existing metadata file as a table. With {@code overwrite} an existing table of that
   * name is pointed at the file instead (its file index is rebuilt from the file's manifests, as after
   * a rollback); a view or a namespace of that name is never overwritten.
   */
  public TableMetadata registerTable(String prefix, Namespace namespace, String name, String metadataLocation, boolean overwrite) {
    TableIdentifier identifier = TableIdentifier.of(namespace, name);
    TableMetadata metadata = TableMetadataParser.read(io, metadataLocation);
    inTransaction(txn -> {
      requireNamespace(txn, prefix, namespace);
      ObjectPath path = tablePath(prefix, identifier);
      Optional<CatalogObject> existing = read(txn, path);
      boolean replace = overwrite && isType(existing, TABLE);
      if (existing.isPresent() && !replace) {
        throw alreadyExists(existing, identifier);
      }
      List<WriteOp> writes = new ArrayList<>();
      writes.add(replace
          ? new WriteOp.Update(path, ObjectKind.INNER, tableValue(metadata, existing))
          : new WriteOp.Add(path, ObjectKind.INNER, tableValue(metadata)));
      // Index the current snapshot's files with the table (FileIndex), so planning is served from the tree.
      writes.addAll(files.writes(txn.id(), path, metadata));
      return new Result<>(null, writes);
    });
    return metadata;
  }

  public void dropTable(String prefix, TableIdentifier identifier, boolean purge) {
    ObjectPath path = tablePath(prefix, identifier);
    String metadataLocation = inTransaction(txn -> {
      Optional<CatalogObject> object = read(txn, path);
      if (!isType(object, TABLE)) {
        throw new NoSuchTableException("Table does not exist: %s", identifier);
      }
      return new Result<>(object.get().value().getString(METADATA_LOCATION).getValue(), List.of(new WriteOp.Remove(path)));
    });
    if (purge) {
      try {
        CatalogUtil.dropTableData(io, TableMetadataParser.read(io, metadataLocation));
      } catch (RuntimeException e) {
        LOG.warn("Dropped {} but could not purge all of its files", identifier, e);
      }
    }
  }

  public void renameTable(String prefix, TableIdentifier source, TableIdentifier destination) {
    inTransaction(txn -> {
      ObjectPath from = tablePath(prefix, source);
      Optional<CatalogObject> object = read(txn, from);
      if (!isType(object, TABLE)) {
        throw new NoSuchTableException("Table does not exist: %s", source);
      }
      requireNamespace(txn, prefix, destination.namespace());
      ObjectPath to = tablePath(prefix, destination);
      Optional<CatalogObject> existing = read(txn, to);
      if (existing.isPresent()) {
        throw new AlreadyExistsException("Cannot rename %s to %s. %s already exists", source, destination, kindName(existing));
      }
      // The whole subtree moves: the file index (FileIndex) and its leaves, shared, not rewritten.
      // The index node is read through the transaction, so a commit that changes the index
      // between this read and the rename's commit fails the rename's validation instead of
      // being lost; the table object's read covers the table itself.
      Optional<CatalogObject> index = read(txn, FileIndex.indexPath(from));
      if (index.isEmpty()) {
        // No file index: the children are someone else's (a Hive table's partition levels, written
        // over HMS), which no node read here guards. Scanning every level makes a partition added
        // or dropped concurrently conflict with the rename instead of being lost in the move.
        scanSubtree(txn, from);
      }
      List<WriteOp> writes = new ArrayList<>();
      writes.add(new WriteOp.Clone(from, to, txn.readVid()));
      index.ifPresent(node -> writes.add(new WriteOp.Update(FileIndex.indexPath(to), ObjectKind.INNER, FileIndex.movedValue(node))));
      writes.add(new WriteOp.Remove(from));
      return new Result<>(null, writes);
    });
  }

  /** Reads every level below {@code path} in the transaction (ids and types only), so its scan ranges cover them. */
  private void scanSubtree(Transaction txn, ObjectPath path) {
    StringBuilder query = new StringBuilder(PathQueries.steps(path));
    boolean more = true;
    while (more) {
      query.append("/*");
      QueryRequest request = QueryRequest.of(query.toString()).withResults(ChildKinds.BOTH)
          .withProjection(List.of(OBJ_TYPE)).withLimit(QueryRequest.MAX_LIMIT);
      more = false;
      while (true) {
        QueryPage page = catalog.get().query(txn.id(), request);
        more |= !page.rows().isEmpty();
        if (page.continuation().isEmpty()) {
          break;
        }
        request = request.withPageToken(page.continuation().get());
      }
    }
  }

  /**
   * A table's name is taken by another object of its level: a table, a view (the message Iceberg's
   * catalogs use, which clients and the RCK check) or a namespace.
   */
  static AlreadyExistsException alreadyExists(Optional<CatalogObject> existing, TableIdentifier identifier) {
    if (isType(existing, VIEW)) {
      return new AlreadyExistsException("View with same name already exists: %s", identifier);
    }
    if (isType(existing, TABLE)) {
      return new AlreadyExistsException("Table already exists: %s", identifier);
    }
    return new AlreadyExistsException("A namespace already has this name: %s", identifier);
  }

  /** What holds a name, for messages: "View", "Table" or "Namespace". */
  static String kindName(Optional<CatalogObject> existing) {
    return isType(existing, VIEW) ? "View" : isType(existing, TABLE) ? "Table" : "Namespace";
  }

  public boolean tableExists(String prefix, TableIdentifier identifier) {
    return isType(readAt(prefix, identifier), TABLE);
  }

  /**
   * The object a table or view identifier names, read at the prefix's read point: the newest, or
   * the vid or named snapshot of a read-only prefix (metadata files are immutable, so the location
   * read there still loads that version of the table).
   */
  Optional<CatalogObject> readAt(String prefix, TableIdentifier identifier) {
    CatalogPrefix at = CatalogPrefix.parse(prefix);
    return catalog.get().get(tablePath(at.catalog(), identifier), at.point());
  }

  /** Checks a client's prefix when it configures itself: its syntax, and that its vid or snapshot exists. */
  public void checkPrefix(String prefix) {
    CatalogPrefix.parse(prefix).pinned(catalog.get());
  }

  // ---- commits

  /**
   * Commits changes to one or more tables atomically, in one TreeCat transaction: each table object
   * is read in the transaction, requirements are checked against its current metadata, updates
   * applied, a new metadata file written, and the table object updated (or added, for a create).
   * Answers the new metadata of each table, in request order.
   */
  public List<TableMetadata> commit(String prefix, List<UpdateTableRequest> changes) {
    List<TableIdentifier> identifiers = changes.stream().map(UpdateTableRequest::identifier).toList();
    if (new HashSet<>(identifiers).size() != identifiers.size()) {
      throw new IllegalArgumentException("A table appears more than once in one commit: " + identifiers);
    }
    readManifestLists(changes);
    // Commits to one table queue here, and a commit that still loses a race on a table pointer
    // (another server, a create or rename) is run again: it re-reads and re-checks everything.
    try (TableCommitLocks.Held ignored = commitLocks.lock(identifiers.stream().map(id -> tablePath(prefix, id)).toList())) {
      for (int attempt = 1; ; attempt++) {
        List<CommitRebaser.Rebased> rebases = new ArrayList<>();
        try {
          List<TableMetadata> committed = writeAndSwap(identifiers, txn -> {
            rebases.clear();
            List<Staged> staged = new ArrayList<>();
            for (UpdateTableRequest change : changes) {
              staged.add(apply(txn, prefix, change, rebases));
            }
            return staged;
          });
          rebases.forEach(rebaser::committed);
          return committed;
        } catch (CommitStateUnknownException e) {
          throw e;
        } catch (RuntimeException e) {
          rebases.forEach(rebaser::discard);
          if (attempt >= MAX_COMMIT_ATTEMPTS || !isPointerConflict(e)) {
            throw e;
          }
          LOG.debug("Commit to {} lost a race (attempt {}), running it again", identifiers, attempt);
        }
      }
    }
  }

  /**
   * Reads the manifest lists of the snapshots a change adds before its table's queue: the snapshot
   * objects keep them, so the file index and a rebase, which need them while the table's other
   * commits wait, find them read. A list that cannot be read fails there, as it would without this.
   */
  private void readManifestLists(List<UpdateTableRequest> changes) {
    for (UpdateTableRequest change : changes) {
      for (MetadataUpdate update : change.updates()) {
        if (update instanceof MetadataUpdate.AddSnapshot add) {
          try {
            add.snapshot().allManifests(io);
          } catch (RuntimeException e) {
            LOG.debug("Manifest list of snapshot {} not read ahead", add.snapshot().snapshotId(), e);
          }
        }
      }
    }
  }

  /** Attempts of one commit whose TreeCat transaction fails only on a concurrent change of what it read. */
  private static final int MAX_COMMIT_ATTEMPTS = 5;

  private static boolean isPointerConflict(RuntimeException e) {
    return e instanceof CommitFailedException
        && e.getCause() instanceof CatalogException cause
        && cause.code() == ErrorCode.COMMIT_CONFLICT;
  }

  private Staged apply(Transaction txn, String prefix, UpdateTableRequest change, List<CommitRebaser.Rebased> rebases) {
    TableIdentifier identifier = requireNonNull(change.identifier(), "identifier is null");
    ObjectPath path = tablePath(prefix, identifier);
    Optional<CatalogObject> object = read(txn, path);
    boolean create = change.requirements().stream().anyMatch(UpdateRequirement.AssertTableDoesNotExist.class::isInstance);
    TableMetadata base = null;
    if (isType(object, TABLE)) {
      base = metadataFiles.read(object.get().value().getString(METADATA_LOCATION).getValue());
    } else if (object.isPresent()) {
      throw alreadyExists(object, identifier);
    } else if (!create) {
      throw new NoSuchTableException("Table does not exist: %s", identifier);
    }
    TableMetadata current = base;
    try {
      change.requirements().forEach(requirement -> requirement.validate(current));
    } catch (CommitFailedException e) {
      // A blind append that lost a race is rebased onto the table as it is now (CommitRebaser).
      Optional<CommitRebaser.Rebased> rebased = create ? Optional.empty() : rebaser.rebase(current, change);
      if (rebased.isEmpty()) {
        throw e;
      }
      rebases.add(rebased.get());
      return new Staged(path, base, rebased.get().metadata());
    }
    TableMetadata.Builder builder;
    if (create) {
      requireNamespace(txn, prefix, identifier.namespace());
      builder = change.updates().stream()
          .filter(MetadataUpdate.UpgradeFormatVersion.class::isInstance)
          .map(update -> ((MetadataUpdate.UpgradeFormatVersion) update).formatVersion())
          .findFirst()
          .map(TableMetadata::buildFromEmpty)
          .orElseGet(TableMetadata::buildFromEmpty);
      builder.setLocation(namespaceLocation(prefix, identifier.namespace(), loadNamespaceIn(txn, prefix, identifier.namespace())) + "/" + identifier.name());
    } else {
      builder = TableMetadata.buildFrom(base);
    }
    change.updates().forEach(update -> update.applyTo(builder));
    TableMetadata updated = builder.build();
    if (!create && updated.changes().isEmpty()) {
      return new Staged(path, base, base);
    }
    return new Staged(path, base, updated);
  }

  Map<String, String> loadNamespaceIn(Transaction txn, String prefix, Namespace namespace) {
    return namespace.isEmpty() ? Map.of() : read(txn, namespacePath(prefix, namespace)).map(IcebergCatalog::properties).orElse(Map.of());
  }

  /** A table's base (null when created) and its metadata after the change. */
  private record Staged(ObjectPath path, TableMetadata base, TableMetadata updated) {
    boolean changed() {
      return base != updated;
    }
  }

  /**
   * Stages the changes in a transaction, writes a metadata file for each changed table, then commits
   * the swap of all table objects at once. Metadata files of a transaction that does not commit are
   * deleted (unless the outcome is unknown: then they may be referenced).
   */
  private List<TableMetadata> writeAndSwap(List<TableIdentifier> identifiers, Function<Transaction, List<Staged>> stage) {
    List<String> written = new ArrayList<>();
    try {
      return inTransaction(txn -> {
        List<TableMetadata> results = new ArrayList<>();
        List<WriteOp> writes = new ArrayList<>();
        for (Staged staged : stage.apply(txn)) {
          if (!staged.changed()) {
            results.add(staged.updated());
            continue;
          }
          int version = staged.base() == null ? 0 : staged.base().previousFiles().size() + 1;
          String location = metadataLocation(staged.updated(), version);
          TableMetadataParser.write(staged.updated(), io.newOutputFile(location));
          written.add(location);
          TableMetadata committed = TableMetadata.buildFrom(staged.updated()).discardChanges().withMetadataLocation(location).build();
          metadataFiles.written(committed);
          results.add(committed);
          BsonDocument value = tableValue(committed, staged.base() == null ? Optional.empty() : read(txn, staged.path()));
          writes.add(staged.base() == null
              ? new WriteOp.Add(staged.path(), ObjectKind.INNER, value)
              : new WriteOp.Update(staged.path(), ObjectKind.INNER, value));
          // The files the new snapshot(s) add and remove, as leaves under the table, in the same write set (FileIndex).
          writes.addAll(files.writes(txn.id(), staged.path(), committed));
        }
        return new Result<>(results, writes);
      });
    } catch (CommitStateUnknownException e) {
      throw e;
    } catch (RuntimeException e) {
      written.forEach(this::deleteQuietly);
      throw e;
    }
  }

  private String metadataLocation(TableMetadata metadata, int version) {
    String base = metadata.properties().get("write.metadata.path");
    String directory = base != null ? stripSlash(base) : stripSlash(metadata.location()) + "/metadata";
    return String.format("%s/%05d-%s.metadata.json", directory, version, UUID.randomUUID());
  }

  void deleteQuietly(String location) {
    try {
      io.deleteFile(location);
    } catch (RuntimeException e) {
      LOG.debug("Could not delete {}", location, e);
    }
  }
}
