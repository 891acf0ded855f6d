package io.treecat.rest.iceberg;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import io.treecat.core.json.JsonLimits;
import io.treecat.core.service.CatalogService;
import io.treecat.lakehouse.Lakehouse;
import io.treecat.lakehouse.iceberg.IcebergNamespaces;
import io.treecat.lakehouse.iceberg.IcebergTables;
import io.treecat.lakehouse.iceberg.IcebergViews;
import io.treecat.lakehouse.iceberg.ScanPlanner;
import io.treecat.lakehouse.idempotency.IdempotencyRecords;
import io.treecat.lakehouse.storage.CredentialVending;
import io.treecat.lakehouse.storage.CredentialVendor;
import io.treecat.lakehouse.storage.RequestSigner;
import io.treecat.rest.nativeapi.StrictJson;
import jakarta.ws.rs.ext.ExceptionMapper;
import java.time.Clock;
import java.util.List;
import java.util.function.Supplier;
import org.apache.iceberg.rest.RESTSerializers;

/**
 * Everything the Iceberg REST catalog registers with Jersey. Its routes are at the root
 * ({@code /v1/config}, {@code /v1/{prefix}/namespaces…}) as Iceberg clients expect of a catalog
 * {@code uri}, beside the native mirror's {@code /treecat/v1}.
 */
public final class IcebergRest {
    /** The root of every Iceberg route, relative to the application's root. */
    public static final String ROOT = "/v1";
    /** The catalog (REST prefix, top-level tree object) of a client that names no {@code warehouse}. */
    public static final String DEFAULT_CATALOG = "warehouse";

    private IcebergRest() {}

    /**
     * @param lake the lakehouse every route's operation runs on (its runner, and each catalog's warehouse)
     * @param defaultCatalog the catalog (REST prefix) a client gets when it names no warehouse
     * @param otherPaths the mapper that answers failures outside {@code /v1} (the native API's)
     */
    public static List<Object> components(
            Lakehouse lake, String defaultCatalog, ExceptionMapper<Throwable> otherPaths) {
        return components(lake, defaultCatalog, otherPaths, MetricsReportListener.NONE, Options.DEFAULTS);
    }

    /**
     * How the catalog commits.
     *
     * @param rebaseAppends whether appends that lost a race are rebased on the server for tables that
     *     do not set {@code treecat.rebase-appends} themselves (the lakehouse's {@code CommitRebaser})
     * @param json what a request body may hold (depth, string, name and number lengths)
     * @param signer signs the object-store requests of remote-signing clients with a catalog's own credentials
     * @param vendor asks the store's token service (STS) for the credentials vended to clients
     * @param gzip how the server compresses answers, for the table bodies the routes compress themselves
     */
    public record Options(
            boolean rebaseAppends,
            JsonLimits json,
            Runnable purgeQueued,
            RequestSigner signer,
            CredentialVendor vendor,
            int maxQueuedCommitsPerTable,
            ResponseGzip gzip) {
        public static final Options DEFAULTS = new Options(false, JsonLimits.DEFAULTS);

        public Options {
            requireNonNull(json, "json is null");
            requireNonNull(purgeQueued, "purgeQueued is null");
            requireNonNull(signer, "signer is null");
            requireNonNull(vendor, "vendor is null");
            requireNonNull(gzip, "gzip is null");
        }

        /** With the server's default compression (Dropwizard's). */
        public Options(
                boolean rebaseAppends,
                JsonLimits json,
                Runnable purgeQueued,
                RequestSigner signer,
                CredentialVendor vendor,
                int maxQueuedCommitsPerTable) {
            this(rebaseAppends, json, purgeQueued, signer, vendor, maxQueuedCommitsPerTable, ResponseGzip.DEFAULTS);
        }

        /** With the default bound on a table's queued commits. */
        public Options(
                boolean rebaseAppends,
                JsonLimits json,
                Runnable purgeQueued,
                RequestSigner signer,
                CredentialVendor vendor) {
            this(rebaseAppends, json, purgeQueued, signer, vendor, IcebergTables.DEFAULT_MAX_QUEUED_COMMITS_PER_TABLE);
        }

        /** Vending no credentials. */
        public Options(boolean rebaseAppends, JsonLimits json, Runnable purgeQueued, RequestSigner signer) {
            this(rebaseAppends, json, purgeQueued, signer, CredentialVendor.NONE);
        }

        /** Signing no object-store request (a server without a store SDK, and tests that need none). */
        public Options(boolean rebaseAppends, JsonLimits json, Runnable purgeQueued) {
            this(rebaseAppends, json, purgeQueued, RequestSigner.NONE);
        }

        public Options(boolean rebaseAppends) {
            this(rebaseAppends, JsonLimits.DEFAULTS);
        }

        /** With nobody to wake when a drop queues a purge: the purger finds it at its next pass. */
        public Options(boolean rebaseAppends, JsonLimits json) {
            this(rebaseAppends, json, () -> {});
        }
    }

    /**
     * @param reports receives the metrics reports clients post, for the server's registry
     */
    public static List<Object> components(
            Lakehouse lake,
            String defaultCatalog,
            ExceptionMapper<Throwable> otherPaths,
            MetricsReportListener reports,
            Options options) {
        IcebergNamespaces namespaces = new IcebergNamespaces(lake);
        IcebergTables tables = new IcebergTables(
                lake, options.rebaseAppends(), options.purgeQueued(), options.maxQueuedCommitsPerTable());
        ScanPlanner planner = new ScanPlanner(lake, ScanPlanner.DEFAULT_PARTITIONS_PER_TASK);
        IcebergBodies bodies = new IcebergBodies(mapper(options.json()), options.json());
        IcebergViews views = new IcebergViews(lake);
        Clock clock = Clock.systemUTC();
        IcebergIdempotency idempotency = new IcebergIdempotency(
                new IdempotencyKeys(
                        clock,
                        IcebergIdempotency.LIFETIME,
                        IcebergIdempotency.DEFAULT_MAX_ENTRIES,
                        IcebergIdempotency.DEFAULT_MAX_ANSWER_BYTES),
                new IdempotencyRecords(
                        lake.runner(), clock, IcebergIdempotency.LIFETIME, IcebergIdempotency.MAX_RECORDS),
                new IdempotentReplays(tables, views, bodies));
        IcebergSigningResource signing = new IcebergSigningResource(lake, tables, bodies, options.signer());
        IcebergCredentialsResource credentials = new IcebergCredentialsResource(
                lake, tables, bodies, signing, new CredentialVending(options.vendor(), clock));
        return List.of(
                new IcebergResource(
                        namespaces, tables, planner, bodies, defaultCatalog, reports, credentials, options.gzip()),
                signing,
                credentials,
                new IcebergViewResource(namespaces, views, bodies),
                idempotency.feature(),
                new ReadOnlyPrefixFilter(),
                new IcebergErrors(otherPaths));
    }

    /**
     * The experimental events route ({@link IcebergEventsResource}), registered beside {@link
     * #components} only when the server enables it.
     */
    public static Object events(Supplier<CatalogService> catalog) {
        return new IcebergEventsResource(catalog);
    }

    /** Whether a request path (relative to the application root, with or without its leading '/') is an Iceberg route. */
    static boolean owns(String path) {
        String relative = path.startsWith("/") ? path.substring(1) : path;
        return relative.equals("v1") || relative.startsWith("v1/");
    }

    /**
     * Configured as Iceberg's own client mapper is (field access, kebab-case names, unknown fields
     * ignored), with Iceberg's serializers for requests and responses; it reads within {@code limits}
     * and strictly ({@link StrictJson}): the requests Jackson binds itself (namespace creates and
     * property updates, table creates, renames) take no value of the wrong JSON type.
     */
    static ObjectMapper mapper(JsonLimits limits) {
        ObjectMapper mapper = StrictJson.builder(limits)
                .visibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.ANY)
                .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
                .propertyNamingStrategy(new PropertyNamingStrategies.KebabCaseStrategy())
                .build();
        RESTSerializers.registerAll(mapper);
        return mapper;
    }
}
