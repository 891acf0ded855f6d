package io.treecat.lakehouse.iceberg;

import static io.treecat.rest.iceberg.IcebergCatalog.METADATA_LOCATION;
import static io.treecat.rest.iceberg.IcebergCatalog.OBJ_TYPE;
import static io.treecat.rest.iceberg.IcebergCatalog.PROPERTIES;
import static io.treecat.rest.iceberg.IcebergCatalog.TABLE;
import static io.treecat.rest.iceberg.IcebergCatalog.VIEW;
import static io.treecat.rest.iceberg.IcebergCatalog.isType;
import static io.treecat.rest.iceberg.IcebergCatalog.kindName;
import static java.util.Objects.requireNonNull;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.txn.Transaction;
import io.treecat.core.version.WriteOp;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.iceberg.MetadataUpdate;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.apache.iceberg.rest.requests.CreateViewRequest;
import org.apache.iceberg.rest.requests.UpdateTableRequest;
import org.apache.iceberg.view.SQLViewRepresentation;
import org.apache.iceberg.view.ViewMetadata;
import org.apache.iceberg.view.ViewMetadataParser;
import org.apache.iceberg.view.ViewProperties;
import org.apache.iceberg.view.ViewRepresentation;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;

/**
 * Iceberg views on the tree: {@code /<catalog>/<ns…>/<view>} (obj_type=view: format_version,
 * metadata_location, uuid, current_version_id, location, properties). The view's metadata is
 * Iceberg's view-metadata JSON file, written through the catalog's {@code FileIO} at
 * {@code <view location>/metadata/<NNNNN>-<uuid>.metadata.json}; the tree holds its location.
 *
 * <p>A view shares its level with tables and namespaces, so a name is held by at most one of them:
 * a create of either kind over the other is 409, and a load of the other kind is 404 for the kind
 * asked for. Every change is one TreeCat read-write transaction that reads the view object through
 * the transaction ({@link IcebergCatalog#inTransaction}), so two concurrent replaces of one view
 * cannot both commit: the loser gets 409 {@code CommitFailedException} and its client retries.
 */
public final class IcebergViews {
  static final String CURRENT_VERSION_ID = "current_version_id";

  private final IcebergCatalog catalog;

  public IcebergViews(IcebergCatalog catalog) {
    this.catalog = requireNonNull(catalog, "catalog is null");
  }

  private static BsonDocument viewValue(ViewMetadata metadata) {
    return new BsonDocument(OBJ_TYPE, new BsonString(VIEW))
        .append("format_version", new BsonInt32(metadata.formatVersion()))
        .append(METADATA_LOCATION, new BsonString(metadata.metadataFileLocation()))
        .append("uuid", new BsonString(metadata.uuid()))
        .append(CURRENT_VERSION_ID, new BsonInt32(metadata.currentVersionId()))
        .append("location", new BsonString(metadata.location()))
        .append(PROPERTIES, IcebergCatalog.properties(metadata.properties()));
  }

  private static String metadataLocation(CatalogObject object) {
    return object.value().getString(METADATA_LOCATION).getValue();
  }

  private static NoSuchViewException noSuchView(TableIdentifier identifier) {
    return new NoSuchViewException("View does not exist: %s", identifier);
  }

  // ---- reads

  public IcebergCatalog.Page list(String prefix, Namespace namespace, String pageToken, Integer pageSize) {
    return catalog.list(prefix, namespace, VIEW, pageToken, pageSize);
  }

  public ViewMetadata load(String prefix, TableIdentifier identifier) {
    Optional<CatalogObject> object = catalog.readAt(prefix, identifier);
    if (!isType(object, VIEW)) {
      throw noSuchView(identifier);
    }
    return ViewMetadataParser.read(catalog.io(), metadataLocation(object.get()));
  }

  public boolean exists(String prefix, TableIdentifier identifier) {
    return isType(catalog.readAt(prefix, identifier), VIEW);
  }

  // ---- changes

  /** Creates a view from the client's first version; its location is the client's, else {@code <namespace location>/<view>}. */
  public ViewMetadata create(String prefix, Namespace namespace, CreateViewRequest request) {
    request.validate();
    Set<String> unsupported = request.viewVersion().representations().stream()
        .filter(representation -> !(representation instanceof SQLViewRepresentation))
        .map(ViewRepresentation::type)
        .collect(Collectors.toSet());
    if (!unsupported.isEmpty()) {
      throw new BadRequestException("Unsupported view representations: %s", unsupported);
    }
    TableIdentifier identifier = TableIdentifier.of(namespace, request.name());
    return writeAndSwap(txn -> {
      catalog.requireNamespace(txn, prefix, namespace);
      ObjectPath path = IcebergCatalog.tablePath(prefix, identifier);
      Optional<CatalogObject> existing = catalog.read(txn, path);
      if (existing.isPresent()) {
        throw alreadyExists(existing, identifier);
      }
      String location = request.location() != null && !request.location().isBlank()
          ? IcebergCatalog.stripSlash(request.location())
          : catalog.namespaceLocation(prefix, namespace, catalog.loadNamespaceIn(txn, prefix, namespace)) + "/" + request.name();
      ViewMetadata metadata = ViewMetadata.builder()
          .setProperties(request.properties())
          .setLocation(location)
          .setCurrentVersion(request.viewVersion(), request.schema())
          .build();
      return new Staged(path, null, metadata);
    });
  }

  /** Adds a view for an existing view-metadata file, which is read (and so checked) first. */
  public ViewMetadata register(String prefix, Namespace namespace, String name, String metadataLocation) {
    TableIdentifier identifier = TableIdentifier.of(namespace, name);
    ViewMetadata metadata = ViewMetadataParser.read(catalog.io(), metadataLocation);
    catalog.inTransaction(txn -> {
      catalog.requireNamespace(txn, prefix, namespace);
      ObjectPath path = IcebergCatalog.tablePath(prefix, identifier);
      Optional<CatalogObject> existing = catalog.read(txn, path);
      if (existing.isPresent()) {
        throw alreadyExists(existing, identifier);
      }
      return new IcebergCatalog.Result<>(null, List.of(new WriteOp.Add(path, ObjectKind.INNER, viewValue(metadata))));
    });
    return metadata;
  }

  /**
   * Replaces a view's metadata, as Iceberg's {@code CatalogHandlers.commit} for views does: the
   * requirements are checked against the view's current metadata (read in the transaction), the
   * updates applied to it, and a new metadata file written; a change that changes nothing writes
   * nothing. The requirements of a view commit only assert its UUID, so a replace based on an older
   * version applies to the newest one (the server-side retry of the RCK).
   */
  public ViewMetadata commit(String prefix, TableIdentifier identifier, UpdateTableRequest request) {
    return writeAndSwap(txn -> {
      ObjectPath path = IcebergCatalog.tablePath(prefix, identifier);
      Optional<CatalogObject> object = catalog.read(txn, path);
      if (!isType(object, VIEW)) {
        throw noSuchView(identifier);
      }
      ViewMetadata base = ViewMetadataParser.read(catalog.io(), metadataLocation(object.get()));
      request.requirements().forEach(requirement -> requirement.validate(base));
      ViewMetadata.Builder builder = ViewMetadata.buildFrom(base);
      for (MetadataUpdate update : request.updates()) {
        applyTo(update, builder);
      }
      ViewMetadata updated = builder.build();
      return new Staged(path, base, updated.changes().isEmpty() ? base : updated);
    });
  }

  /** A table-only update (add-snapshot, set-partition-spec, …) sent for a view is the client's mistake: 400, not a server failure. */
  private static void applyTo(MetadataUpdate update, ViewMetadata.Builder builder) {
    try {
      update.applyTo(builder);
    } catch (UnsupportedOperationException e) {
      throw new BadRequestException(e, "Cannot apply update %s to a view", update.getClass().getSimpleName());
    }
  }

  /** Removes the view object; its metadata files stay, as with Iceberg's catalogs (views own no data). */
  public void drop(String prefix, TableIdentifier identifier) {
    catalog.inTransaction(txn -> {
      ObjectPath path = IcebergCatalog.tablePath(prefix, identifier);
      if (!isType(catalog.read(txn, path), VIEW)) {
        throw noSuchView(identifier);
      }
      return new IcebergCatalog.Result<>(null, List.of(new WriteOp.Remove(path)));
    });
  }

  /** A remove plus an add in one transaction; the metadata files do not move. */
  public void rename(String prefix, TableIdentifier source, TableIdentifier destination) {
    catalog.inTransaction(txn -> {
      ObjectPath from = IcebergCatalog.tablePath(prefix, source);
      Optional<CatalogObject> object = catalog.read(txn, from);
      if (!isType(object, VIEW)) {
        throw noSuchView(source);
      }
      catalog.requireNamespace(txn, prefix, destination.namespace());
      ObjectPath to = IcebergCatalog.tablePath(prefix, destination);
      Optional<CatalogObject> existing = catalog.read(txn, to);
      if (existing.isPresent()) {
        throw new AlreadyExistsException("Cannot rename %s to %s. %s already exists", source, destination, kindName(existing));
      }
      return new IcebergCatalog.Result<>(null, List.of(new WriteOp.Remove(from), new WriteOp.Add(to, ObjectKind.INNER, object.get().value())));
    });
  }

  /** The messages Iceberg's own catalogs use, which clients and the RCK check. */
  private static AlreadyExistsException alreadyExists(Optional<CatalogObject> existing, TableIdentifier identifier) {
    if (isType(existing, VIEW)) {
      return new AlreadyExistsException("View already exists: %s", identifier);
    }
    if (isType(existing, TABLE)) {
      return new AlreadyExistsException("Table with same name already exists: %s", identifier);
    }
    return new AlreadyExistsException("A namespace already has this name: %s", identifier);
  }

  // ---- writing

  /** A view's base (null when created) and its metadata after the change. */
  private record Staged(ObjectPath path, ViewMetadata base, ViewMetadata updated) {
    boolean changed() {
      return base != updated;
    }
  }

  /**
   * Stages the change in a transaction, writes the new metadata file, then commits the view object
   * pointing at it. The file of a transaction that does not commit is deleted, unless the outcome is
   * unknown (then the object may reference it).
   */
  private ViewMetadata writeAndSwap(Function<Transaction, Staged> stage) {
    List<String> written = new ArrayList<>();
    try {
      return catalog.inTransaction(txn -> {
        Staged staged = stage.apply(txn);
        if (!staged.changed()) {
          return new IcebergCatalog.Result<>(staged.base(), List.of());
        }
        String location = newMetadataLocation(staged.updated(), staged.base());
        ViewMetadataParser.write(staged.updated(), catalog.io().newOutputFile(location));
        written.add(location);
        ViewMetadata committed = ViewMetadata.buildFrom(staged.updated()).setMetadataLocation(location).build();
        BsonDocument value = viewValue(committed);
        WriteOp write = staged.base() == null
            ? new WriteOp.Add(staged.path(), ObjectKind.INNER, value)
            : new WriteOp.Update(staged.path(), ObjectKind.INNER, value);
        return new IcebergCatalog.Result<>(committed, List.of(write));
      });
    } catch (CommitStateUnknownException e) {
      throw e;
    } catch (RuntimeException e) {
      written.forEach(catalog::deleteQuietly);
      throw e;
    }
  }

  /**
   * {@code <write.metadata.path or location/metadata>/<NNNNN>-<uuid>.metadata.json}, numbered one
   * past the base's file (as Iceberg's view operations name them).
   */
  private static String newMetadataLocation(ViewMetadata updated, ViewMetadata base) {
    int version = base == null ? 0 : sequence(base.metadataFileLocation()) + 1;
    String custom = updated.properties().get(ViewProperties.WRITE_METADATA_LOCATION);
    String directory = custom != null && !custom.isBlank()
        ? IcebergCatalog.stripSlash(custom)
        : IcebergCatalog.stripSlash(updated.location()) + "/metadata";
    return String.format("%s/%05d-%s.metadata.json", directory, version, UUID.randomUUID());
  }

  /** The number a metadata file's name starts with; 0 for a file named otherwise (a registered view's, say). */
  private static int sequence(String metadataLocation) {
    if (metadataLocation == null) {
      return 0;
    }
    String name = metadataLocation.substring(metadataLocation.lastIndexOf('/') + 1);
    int dash = name.indexOf('-');
    try {
      return dash > 0 ? Integer.parseInt(name.substring(0, dash)) : 0;
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
