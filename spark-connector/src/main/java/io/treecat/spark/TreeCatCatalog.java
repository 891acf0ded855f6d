package io.treecat.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.rest.RESTCatalogProperties;
import org.apache.iceberg.rest.RESTCatalogProperties.ScanPlanningMode;
import org.apache.iceberg.spark.SparkCatalog;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Iceberg's {@link SparkCatalog} on a TreeCat server, with what only TreeCat has. A subclass, not a wrapper:
 * Iceberg's SQL extensions (branches, tags, {@code WRITE ORDERED BY}, its procedures) recognise only
 * {@code SparkCatalog} and its subclasses, and every Iceberg feature keeps working unchanged.
 *
 * <p>Configured like a REST catalog, without the {@code type}:
 *
 * <pre>
 * spark.sql.catalog.lake             io.treecat.spark.TreeCatCatalog
 * spark.sql.catalog.lake.uri         http://treecat:8181
 * spark.sql.catalog.lake.warehouse   retail          (the TreeCat catalog; the server's default without it)
 * </pre>
 *
 * <p>Planning from the tree: Iceberg's client loads each table in server planning mode, and each scan is planned
 * by TreeCat ({@code POST …/plan}) or from the manifests as the {@value PlanningMode#OPTION} option says
 * ({@code auto}, the default, plans on the server when the filter restricts the partitions; {@link
 * PlanningMode}).
 *
 * <p>One version for the whole catalog: with {@code vid} (a vid, or {@code now}: the newest, taken once),
 * {@code snapshot} (a named snapshot) or {@code timestamp} (RFC 3339), every table of the catalog lists,
 * loads and plans at that one version, read-only ({@link CatalogVersion}). In SQL,
 * {@code CALL lake.system.pin_vid()} pins the session's catalog to the newest vid (or
 * {@code pin_vid(vid => 42)}), and {@code CALL lake.system.unpin()} returns it to the live catalog
 * ({@link PinProcedures}). Spark's catalogs belong to a session, so a pin changes only that session.
 */
public class TreeCatCatalog extends SparkCatalog {
    /** The server's config override naming the vid its answer was read at (catalog-rest's IcebergResource). */
    static final String CONFIG_VID = "treecat.vid";

    /** The name of the catalog as Spark knows it; set by the first {@code initialize}. */
    private volatile String sparkName;
    /** The options Spark gave, before any pin: what {@code unpin} returns to, less the version options. */
    private volatile Map<String, String> configured;
    /** The version this catalog reads, as asked: {@link CatalogVersion.Now} here is already resolved. */
    private volatile CatalogVersion version = CatalogVersion.LATEST;
    /** The vid the server answered for this catalog's prefix when it was set up ({@code treecat.vid}). */
    private volatile OptionalLong vid = OptionalLong.empty();
    /** The REST catalog built by the last {@code initialize}. */
    private volatile RESTCatalog rest;

    @Override
    protected Catalog buildIcebergCatalog(String name, CaseInsensitiveStringMap options) {
        Map<String, String> properties = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        properties.putAll(options.asCaseSensitiveMap());
        if (sparkName == null) {
            sparkName = name;
            configured = Map.copyOf(options.asCaseSensitiveMap());
        }
        checkRestCatalog(name, properties);
        CatalogVersion asked = CatalogVersion.fromOptions(name, properties);
        CatalogVersion.OPTIONS.forEach(properties::remove);

        if (asked.readOnly()) {
            String warehouse = properties.get(CatalogProperties.WAREHOUSE_LOCATION);
            if (warehouse == null || asked instanceof CatalogVersion.Now) {
                // The catalog's name (the server's default without a warehouse) and the newest vid both come from
                // the live catalog's config answer.
                try (RESTCatalog live = restCatalog(name, properties)) {
                    warehouse = live.properties().get("prefix");
                    if (asked instanceof CatalogVersion.Now) {
                        asked = new CatalogVersion.Vid(configVid(name, live));
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            properties.put(CatalogProperties.WAREHOUSE_LOCATION, asked.prefix(warehouse));
        }
        Catalog catalog = super.buildIcebergCatalog(name, new CaseInsensitiveStringMap(properties));
        RESTCatalog built = catalog instanceof RESTCatalog restCatalog ? restCatalog : null;
        this.rest = built;
        this.version = asked;
        this.vid = built != null && built.properties().containsKey(CONFIG_VID)
                ? OptionalLong.of(configVid(name, built))
                : OptionalLong.empty();
        return catalog;
    }

    private static void checkRestCatalog(String name, Map<String, String> properties) {
        String type = properties.get(CatalogUtil.ICEBERG_CATALOG_TYPE);
        String impl = properties.get(CatalogProperties.CATALOG_IMPL);
        if (impl != null && !impl.equals(TreeCatRestCatalog.class.getName())) {
            throw new IllegalArgumentException(String.format(
                    "Catalog %s: TreeCatCatalog talks to TreeCat over Iceberg REST; remove catalog-impl=%s",
                    name, impl));
        }
        if (type != null && !type.toLowerCase(Locale.ROOT).equals(CatalogUtil.ICEBERG_CATALOG_TYPE_REST)) {
            throw new IllegalArgumentException(String.format(
                    "Catalog %s: TreeCatCatalog talks to TreeCat over Iceberg REST; remove type=%s", name, type));
        }
        if (properties.get(CatalogProperties.URI) == null) {
            throw new IllegalArgumentException(String.format(
                    "Catalog %s: set spark.sql.catalog.%s.uri to the TreeCat server's REST address, e.g. http://treecat:8181",
                    name, name));
        }
        PlanningMode.fromOption(name, properties.get(PlanningMode.OPTION));
        properties.remove(CatalogUtil.ICEBERG_CATALOG_TYPE);
        properties.put(CatalogProperties.CATALOG_IMPL, TreeCatRestCatalog.class.getName());
        // Iceberg's client then loads each table as its REST table, whose scans TreeCat plans; TreeCatRestCatalog
        // decides per scan (the planning option). An explicit scan-planning-mode=client plans every scan locally.
        properties.putIfAbsent(RESTCatalogProperties.SCAN_PLANNING_MODE, ScanPlanningMode.SERVER.modeName());
    }

    private RESTCatalog restCatalog(String name, Map<String, String> properties) {
        Catalog catalog = super.buildIcebergCatalog(name, new CaseInsensitiveStringMap(properties));
        if (catalog instanceof RESTCatalog rest) {
            return rest;
        }
        throw new IllegalStateException("Catalog " + name + " did not build a REST catalog: " + catalog);
    }

    private static long configVid(String name, RESTCatalog rest) {
        String value = rest.properties().get(CONFIG_VID);
        if (value == null) {
            throw new IllegalStateException(String.format(
                    "Catalog %s: the server at %s answers no %s in its config: it is not TreeCat, or older than"
                            + " reads at one vid",
                    name, rest.properties().get(CatalogProperties.URI), CONFIG_VID));
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalStateException(
                    String.format("Catalog %s: the server's %s is not a vid: %s", name, CONFIG_VID, value), e);
        }
    }

    /**
     * Iceberg's REST catalog under this one (not the caching wrapper Spark's catalog may put around it): for
     * requests Spark's catalog API has no call for, such as a multi-table commit ({@link MultiTableWrite}).
     */
    public RESTCatalog restCatalog() {
        RESTCatalog built = rest;
        if (built == null) {
            throw new IllegalStateException("Catalog " + sparkName + " is not initialized yet");
        }
        return built;
    }

    /** The version this catalog reads now: {@link CatalogVersion#LATEST} unless pinned. */
    public CatalogVersion version() {
        return version;
    }

    /**
     * Pins this catalog to one version of the whole TreeCat catalog, or with {@link CatalogVersion#LATEST}
     * returns it to the live one; answers the vid it reads at. Rebuilds the Iceberg catalog: tables loaded
     * before keep the version they were loaded at.
     */
    public synchronized long pin(CatalogVersion pinned) {
        if (sparkName == null) {
            throw new IllegalStateException("The catalog is not initialized yet");
        }
        Map<String, String> options = new HashMap<>(configured);
        options.keySet().removeIf(key -> CatalogVersion.OPTIONS.contains(key.toLowerCase(Locale.ROOT)));
        if (pinned instanceof CatalogVersion.Now) {
            options.put(CatalogVersion.VID, "now");
        } else if (pinned instanceof CatalogVersion.Vid at) {
            options.put(CatalogVersion.VID, Long.toString(at.vid()));
        } else if (pinned instanceof CatalogVersion.Snapshot snapshot) {
            options.put(CatalogVersion.SNAPSHOT, snapshot.name());
        } else if (pinned instanceof CatalogVersion.Time time) {
            options.put(CatalogVersion.TIMESTAMP, time.time().toString());
        }
        initialize(sparkName, new CaseInsensitiveStringMap(options));
        return vid.orElseThrow(() -> new IllegalStateException(
                "Catalog " + sparkName + ": the server answered no vid (" + CONFIG_VID + ")"));
    }

    /** {@code <catalog>.system.tables}, {@code .files} and {@code .commits} ({@link SystemTables}); else Iceberg's. */
    @Override
    public Table loadTable(Identifier ident) throws NoSuchTableException {
        if (SystemTables.isSystemTable(ident.namespace(), ident.name())) {
            RESTCatalog built = restCatalog();
            String prefix = built.properties().get("prefix");
            String catalog = prefix.indexOf('@') < 0 ? prefix : prefix.substring(0, prefix.indexOf('@'));
            NativeQueryClient client = NativeQueryClient.forCatalog(built.properties());
            OptionalLong at = version.readOnly() ? vid : OptionalLong.empty();
            try {
                return SystemTables.load(SparkSession.active(), client, catalog, at, sparkName, ident.name());
            } catch (NativeQueryClient.Refused e) {
                throw new IllegalStateException(
                        "Catalog " + sparkName + ": TreeCat refused the system table " + ident.name() + ": "
                                + e.getMessage(),
                        e);
            }
        }
        return super.loadTable(ident);
    }

    @Override
    public UnboundProcedure loadProcedure(Identifier ident) {
        String[] namespace = ident.namespace();
        if (namespace.length == 1 && namespace[0].equalsIgnoreCase("system")) {
            UnboundProcedure own = PinProcedures.load(this, ident.name());
            if (own != null) {
                return own;
            }
        }
        return super.loadProcedure(ident);
    }
}
