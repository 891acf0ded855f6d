package io.treecat.lakehouse.storage;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.function.Supplier;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.exceptions.RuntimeIOException;

/**
 * Turns a failure of a catalog's object store into {@code OBJECT_STORE_UNAVAILABLE} (503 on REST, gRPC
 * {@code UNAVAILABLE}, a {@code MetaException} on Thrift), with the store's own error and never a credential. A file
 * that is not there stays Iceberg's {@link NotFoundException}, and every other failure passes unchanged, so a bug is
 * never dressed up as an outage.
 */
public final class StoreFailures {
    /** The longest store error a message carries: enough for the SDK's "(Service: S3, Status Code: …)" tail. */
    private static final int MAX_DETAIL_CHARS = 400;

    private StoreFailures() {}

    /**
     * Runs {@code work}, which reads or writes {@code warehouse}'s files, translating a store failure. Call it around
     * the whole of a lake operation: the transaction it runs has then been abandoned (its written files deleted), and
     * nothing was committed.
     */
    public static <T> T translate(Warehouse warehouse, Supplier<T> work) {
        try {
            return work.get();
        } catch (RuntimeException e) {
            throw translate(warehouse, e);
        }
    }

    /** {@code failure} as {@code OBJECT_STORE_UNAVAILABLE} when it is a store failure, else as it is. */
    public static RuntimeException translate(Warehouse warehouse, RuntimeException failure) {
        // A local warehouse's I/O errors name the server's own paths: they stay internal errors, as before.
        if (!(warehouse.io() instanceof StoreFileIO store)
                || failure instanceof CatalogException
                || failure instanceof NotFoundException
                || !isStoreFailure(failure)) {
            return failure;
        }
        String detail = describe(store, failure);
        return new CatalogException(
                        ErrorCode.OBJECT_STORE_UNAVAILABLE, "The catalog's object store failed: " + detail, failure)
                .with("catalog", warehouse.catalog());
    }

    /** The store's own words about {@code failure}, scrubbed of {@code store}'s credentials and shortened. */
    static String describe(StoreFileIO store, Throwable failure) {
        String detail = store.scrub(withoutSdkAdvice(detail(failure)));
        if (detail.length() > MAX_DETAIL_CHARS) {
            detail = detail.substring(0, MAX_DETAIL_CHARS) + "…";
        }
        return detail;
    }

    /**
     * The Azure SDK puts three lines of debugging advice (how to log the string to sign) before the store's status on
     * every 403, which the length cap would leave as the whole message: they are dropped, the status kept.
     */
    private static String withoutSdkAdvice(String message) {
        if (!message.contains(AZURE_ADVICE_MARKER)) {
            return message;
        }
        return message.lines()
                .filter(line -> !line.contains(AZURE_ADVICE_MARKER))
                .collect(java.util.stream.Collectors.joining(" "))
                .strip();
    }

    /** Named by each line of the Azure SDK's advice on a failed signature check. */
    private static final String AZURE_ADVICE_MARKER = "Azure-Storage-Log-String-To-Sign";

    /**
     * Whether {@code failure} came from a store: an I/O error, or an exception of a cloud SDK (AWS, Google Cloud,
     * Azure), anywhere in its causes. Told by package name, so the lakehouse needs none of the SDKs.
     */
    static boolean isStoreFailure(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof IOException
                    || cause instanceof UncheckedIOException
                    || cause instanceof RuntimeIOException
                    || fromSdk(cause)) {
                return true;
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return false;
    }

    /** The store's own words: the first SDK exception's message in the causes, else the innermost message. */
    private static String detail(Throwable failure) {
        String innermost = null;
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (fromSdk(cause) && cause.getMessage() != null) {
                return cause.getMessage();
            }
            if (cause.getMessage() != null) {
                innermost = cause.getMessage();
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return innermost == null ? failure.getClass().getSimpleName() : innermost;
    }

    private static boolean fromSdk(Throwable cause) {
        String name = cause.getClass().getName();
        return name.startsWith("software.amazon.awssdk.")
                || name.startsWith("com.google.cloud.")
                || name.startsWith("com.azure.");
    }
}
