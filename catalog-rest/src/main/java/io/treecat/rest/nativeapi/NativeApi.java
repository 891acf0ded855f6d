package io.treecat.rest.nativeapi;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.treecat.core.service.CatalogService;
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
        return List.of(
                new ReadResource(catalog, mapper),
                new TransactionResource(catalog, mapper),
                new WriteResource(catalog, mapper),
                new BodySizeLimits(limits));
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
