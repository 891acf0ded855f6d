package io.treecat.hms;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCategory;
import io.treecat.core.error.ErrorCode;
import io.treecat.lakehouse.model.LakeKeys;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.hadoop.hive.metastore.api.AlreadyExistsException;
import org.apache.hadoop.hive.metastore.api.InvalidObjectException;
import org.apache.hadoop.hive.metastore.api.InvalidOperationException;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one error table of the HMS adapter (DESIGN §9). A failure becomes the Thrift exception its
 * code (for the lake codes Hive has its own answer to) or else its category names, if the called
 * method declares it, else a {@link MetaException}: an exception a method does not declare would
 * reach the client as an opaque {@code TApplicationException}.
 */
final class HmsErrors {
    private static final Logger LOG = LoggerFactory.getLogger(HmsErrors.class);

    /** Category → the HMS exception for it (when the method declares it) and a constructor. */
    private static final Map<ErrorCategory, Function<String, TException>> BY_CATEGORY = Map.of(
            ErrorCategory.RESOURCE_EXHAUSTED,
            message -> new MetaException("Server busy, retry later: " + message),
            ErrorCategory.NOT_FOUND,
            NoSuchObjectException::new,
            ErrorCategory.ALREADY_EXISTS,
            AlreadyExistsException::new,
            ErrorCategory.CONFLICT,
            message -> new MetaException("Commit conflict, retry: " + message),
            ErrorCategory.INVALID_ARGUMENT,
            InvalidObjectException::new,
            ErrorCategory.UNKNOWN_OUTCOME,
            message -> new MetaException("Commit state unknown: " + message),
            ErrorCategory.INTERNAL,
            message -> new MetaException("Internal error: " + message),
            ErrorCategory.UNAVAILABLE,
            message -> new MetaException("Storage unavailable, retry later: " + message),
            // Hive's own authorizers answer a missing privilege with a MetaException (HiveAccessControlException
            // reaches the client as one).
            ErrorCategory.PERMISSION_DENIED,
            MetaException::new);

    /** Codes whose Hive answer is not their category's. */
    private static final Map<ErrorCode, Function<CatalogException, TException>> BY_CODE = Map.of(
            // Hive's message for a stale compare-and-swap: the one failure Iceberg's HiveCatalog retries.
            ErrorCode.METADATA_LOCATION_MISMATCH,
                    e -> HmsIcebergCommits.modified(
                            LakeKeys.METADATA_LOCATION,
                            String.valueOf(e.context().get("actual")),
                            String.valueOf(e.context().get("expected"))),
            ErrorCode.NAMESPACE_NOT_EMPTY, e -> new InvalidOperationException(e.getMessage()),
            ErrorCode.NOT_A_CATALOG, e -> new MetaException(e.getMessage()),
            // Hive's metastore answers a location it has no FileSystem for with a MetaException naming the scheme.
            ErrorCode.UNSUPPORTED_LOCATION_SCHEME, e -> new MetaException(e.getMessage()),
            // The privilege and the object, which Hive's client shows only if the message carries them.
            ErrorCode.PERMISSION_DENIED, e -> new MetaException(e.getMessage() + " " + e.context()));

    private static final Map<String, List<Class<?>>> DECLARED = new ConcurrentHashMap<>();

    private HmsErrors() {}

    /** What the method named {@code method} of the Thrift interface may throw. */
    static List<Class<?>> declared(String method) {
        return DECLARED.computeIfAbsent(method, name -> {
            for (Method m : ThriftHiveMetastore.Iface.class.getMethods()) {
                if (m.getName().equals(name)) {
                    return List.of(m.getExceptionTypes());
                }
            }
            return List.of();
        });
    }

    /** The exception {@code method} answers for {@code failure}. */
    static TException map(String method, Throwable failure) {
        TException mapped;
        if (failure instanceof TException thrift) {
            mapped = thrift;
        } else if (failure instanceof CatalogException catalog && BY_CODE.containsKey(catalog.code())) {
            mapped = BY_CODE.get(catalog.code()).apply(catalog);
        } else if (failure instanceof CatalogException catalog) {
            mapped = BY_CATEGORY.get(catalog.category()).apply(catalog.getMessage());
        } else if (failure instanceof IllegalArgumentException invalid) {
            mapped = BY_CATEGORY.get(ErrorCategory.INVALID_ARGUMENT).apply(invalid.getMessage());
        } else {
            LOG.warn("HMS call {} failed", method, failure);
            mapped = BY_CATEGORY.get(ErrorCategory.INTERNAL).apply(String.valueOf(failure));
        }
        // Thrift's own answer to a malformed call passes as it is: the processor sends it with its message.
        return declares(method, mapped) || mapped instanceof TApplicationException
                ? mapped
                : new MetaException(mapped.getMessage());
    }

    private static boolean declares(String method, TException exception) {
        List<Class<?>> declared = declared(method);
        // TException itself is declared by every method; only the specific HMS exceptions are fields of the result.
        return declared.stream().filter(type -> type != TException.class).anyMatch(type -> type.isInstance(exception))
                || (exception instanceof MetaException && declared.isEmpty());
    }
}
