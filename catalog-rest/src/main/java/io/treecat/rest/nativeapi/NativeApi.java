package io.treecat.rest.nativeapi;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.treecat.core.feed.ChangeFeed;
import io.treecat.core.json.JsonLimits;
import io.treecat.core.service.CatalogService;
import io.treecat.lakehouse.auth.Authorizer;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * Everything the JSON mirror registers with Jersey: its resources and body size limits, and its
 * error table. The server registers each component; nothing here knows about Dropwizard.
 */
public final class NativeApi {
    /** Where the mirror lives; the Iceberg REST catalog gets its own root. */
    public static final String ROOT = "/treecat/v1";

    private NativeApi() {}

    /**
     * @param catalog the catalog, looked up per request: the server opens it when it starts, after
     *     the resources are registered
     */
    public static List<Object> components(Supplier<CatalogService> catalog, ObjectMapper mapper, BodyLimits limits) {
        return components(catalog, mapper, limits, JsonLimits.DEFAULTS);
    }

    /**
     * @param mapper writes the responses
     * @param limits the size of request bodies (and, as every resource method's body filter, of the
     *     Iceberg routes' bodies too), the read timeout they are reported against
     * @param json what a JSON body may hold; request bodies are read strictly ({@link StrictJson})
     */
    public static List<Object> components(
            Supplier<CatalogService> catalog, ObjectMapper mapper, BodyLimits limits, JsonLimits json) {
        return components(catalog, mapper, limits, json, Authorizer.allowAll());
    }

    /**
     * @param authorizer what the reads ({@link ReadResource}) filter their rows with ({@link Authorizer#maySee})
     */
    public static List<Object> components(
            Supplier<CatalogService> catalog,
            ObjectMapper mapper,
            BodyLimits limits,
            JsonLimits json,
            Authorizer authorizer) {
        JsonBodies bodies = new JsonBodies(json);
        return List.of(
                new ReadResource(catalog, mapper, authorizer),
                new TransactionResource(catalog, mapper, bodies),
                new WriteResource(catalog, bodies),
                new HistoryResource(catalog),
                new BodySizeLimits(limits));
    }

    /**
     * The change feed's long-poll pages ({@link ChangesResource}), registered beside {@link #components}.
     *
     * @param maxWait the longest one request waits for a commit
     */
    public static Object changes(Supplier<ChangeFeed> feed, Duration maxWait) {
        return new ChangesResource(feed, maxWait);
    }

    /**
     * The mirror's error table. Jersey takes one {@code ExceptionMapper<Throwable>} per application,
     * so the server registers this one itself, or hands it to another API's mapper as the fallback
     * for paths outside that API.
     */
    public static ApiErrors errors() {
        return new ApiErrors();
    }
}
