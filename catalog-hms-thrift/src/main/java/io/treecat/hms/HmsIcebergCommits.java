package io.treecat.hms;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.lakehouse.model.LakeKeys;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.Table;

/**
 * How a commit of Iceberg's HiveCatalog (an {@code alter_table*} that moves {@code metadata_location})
 * is checked, and how it fails so that Iceberg retries it. Iceberg's {@code HiveTableOperations}
 * turns exactly one message into a retryable {@code CommitFailedException}, Hive's "The table has
 * been modified. The parameter value for key 'metadata_location' is …"; any other failure of the
 * alter makes the commit's state unknown to it, and the writer gives up.
 *
 * <p>An alter that moves an Iceberg table's pointer is a swap through the lake's one compare-and-set,
 * {@code Tables.swapMetadataLocation} (the REST commit's too), from the pointer it started from:
 * <ul>
 *   <li>the expected parameter Iceberg sends with {@code engine.hive.lock-enabled=false}
 *       ({@code expected_parameter_key=metadata_location});</li>
 *   <li>with HMS locks Iceberg sends no expected parameter, but a writer that takes no HMS lock (the
 *       Iceberg REST side, another engine) may have moved the pointer meanwhile: Iceberg names the
 *       pointer it started from in {@code previous_metadata_location}, and a move that does not
 *       start there would lose that commit.</li>
 * </ul>
 * A refused swap ({@code METADATA_LOCATION_MISMATCH}) answers Hive's message ({@link HmsErrors}). A
 * swap that keeps losing races after the runner's retries answers it too, with the pointer read
 * afresh: nothing was applied (a TreeCat commit is atomic), and the table has indeed been modified.
 */
final class HmsIcebergCommits {
    /** The {@code EnvironmentContext} keys of Hive's expected-parameter compare-and-swap (older clients). */
    static final String EXPECTED_KEY = "expected_parameter_key";

    static final String EXPECTED_VALUE = "expected_parameter_value";

    private HmsIcebergCommits() {}

    /** Hive's own message for a stale compare-and-swap. */
    static MetaException modified(String key, String actual, String expected) {
        return new MetaException(String.format(
                "The table has been modified. The parameter value for key '%s' is '%s'. The expected was value was '%s'",
                key, actual, expected));
    }

    /** The pointer a swap must find, when an alter is one ({@code expected} null: the table must have none). */
    record PointerSwap(String expected) {}

    /**
     * Checks an alter's expected parameter other than the pointer, and answers the swap the alter is,
     * if it moves the pointer or names the pointer it expects.
     */
    static Optional<PointerSwap> pointerSwap(Table old, Table altered, String expectedKey, String expectedValue)
            throws MetaException {
        String current = HmsTables.metadataLocation(old);
        if (LakeKeys.METADATA_LOCATION.equals(expectedKey)) {
            if (Objects.equals(expectedValue, current)) {
                checkStart(old, altered, current);
            }
            return Optional.of(new PointerSwap(expectedValue));
        }
        if (expectedKey != null) {
            // Hive's compare-and-swap on any other parameter, checked on what this transaction read.
            String actual = parameter(old, expectedKey);
            if (!Objects.equals(expectedValue, actual)) {
                throw modified(expectedKey, actual, expectedValue);
            }
        }
        String next = HmsTables.metadataLocation(altered);
        if (!HmsTables.isIceberg(old) || next == null || next.equals(current)) {
            return Optional.empty();
        }
        String from = parameter(altered, LakeKeys.PREVIOUS_METADATA_LOCATION);
        return Optional.of(new PointerSwap(from != null ? from : current));
    }

    /** A pointer move of an Iceberg table must start from the current pointer, also when the expected parameter matched. */
    private static void checkStart(Table old, Table altered, String current) throws MetaException {
        String next = HmsTables.metadataLocation(altered);
        String from = parameter(altered, LakeKeys.PREVIOUS_METADATA_LOCATION);
        if (HmsTables.isIceberg(old)
                && next != null
                && from != null
                && !next.equals(current)
                && !from.equals(current)) {
            throw modified(LakeKeys.METADATA_LOCATION, current, from);
        }
    }

    /**
     * The key an alter's lost race is reported on, or null when it is an ordinary one: the expected
     * parameter if any, else {@code metadata_location} when the alter moves it.
     */
    static String swappedKey(Table altered, String expectedKey) {
        if (expectedKey != null) {
            return expectedKey;
        }
        Map<String, String> parameters = altered == null ? null : altered.getParameters();
        return parameters != null
                        && parameters.get(LakeKeys.METADATA_LOCATION) != null
                        && parameters.get(LakeKeys.PREVIOUS_METADATA_LOCATION) != null
                ? LakeKeys.METADATA_LOCATION
                : null;
    }

    /** Whether a failure is a lost race the runner gave up retrying. */
    static boolean isLostRace(CatalogException e) {
        return e.code() == ErrorCode.COMMIT_CONFLICT || e.code() == ErrorCode.LOCK_TIMEOUT;
    }

    static String parameter(Table table, String key) {
        return table.getParameters() == null ? null : table.getParameters().get(key);
    }
}
