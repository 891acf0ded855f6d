package io.treecat.hms;

import java.util.Map;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.Table;

/**
 * How a commit of Iceberg's HiveCatalog (an {@code alter_table*} that moves {@code metadata_location})
 * fails so that Iceberg retries it. Iceberg's {@code HiveTableOperations} turns exactly one message
 * into a retryable {@code CommitFailedException}, Hive's "The table has been modified. The parameter
 * value for key 'metadata_location' is …"; any other failure of the alter makes the commit's state
 * unknown to it, and the writer gives up.
 *
 * <p>Two cases end in that message besides a stale expected parameter (the swap Iceberg sends with
 * {@code engine.hive.lock-enabled=false}):
 *
 * <ul>
 *   <li>The TreeCat transaction of the alter fails validation because another writer changed the
 *       table after it was read. Nothing was applied (a TreeCat commit is atomic), and the table
 *       has indeed been modified, so the answer is Hive's, with the value read afresh.
 *   <li>With HMS locks, Iceberg sends no expected parameter, and a writer that takes no HMS lock
 *       (the Iceberg REST side, another engine) may have moved the pointer meanwhile. Iceberg puts
 *       the pointer it started from in {@code previous_metadata_location}; a move that does not
 *       start from the current pointer would lose that commit, so it is refused the same way.
 * </ul>
 */
final class HmsIcebergCommits {
  static final String METADATA_LOCATION = HmsTables.METADATA_LOCATION;
  static final String PREVIOUS_METADATA_LOCATION = "previous_metadata_location";
  /** The prefix {@link HmsErrors} gives a CONFLICT (a transaction that failed validation). */
  private static final String CONFLICT_PREFIX = "Commit conflict, retry: ";

  private HmsIcebergCommits() {}

  /** Hive's own message for a stale compare-and-swap. */
  static MetaException modified(String key, String actual, String expected) {
    return new MetaException(String.format(
        "The table has been modified. The parameter value for key '%s' is '%s'. The expected was value was '%s'", key, actual, expected));
  }

  /** Refuses a move of an Iceberg table's pointer that does not start from the current pointer. */
  static void checkPointerMove(Table old, Table altered) throws MetaException {
    if (!HmsTables.isIceberg(old) || altered.getParameters() == null) {
      return;
    }
    String current = parameter(old, METADATA_LOCATION);
    String next = altered.getParameters().get(METADATA_LOCATION);
    String from = altered.getParameters().get(PREVIOUS_METADATA_LOCATION);
    if (next != null && from != null && !next.equals(current) && !from.equals(current)) {
      throw modified(METADATA_LOCATION, current, from);
    }
  }

  /**
   * The key an alter's conflict is reported on, or null when a conflict is an ordinary one: the
   * expected parameter if any, else {@code metadata_location} when the alter moves it.
   */
  static String swappedKey(Table altered, String expectedKey) {
    if (expectedKey != null) {
      return expectedKey;
    }
    Map<String, String> parameters = altered == null ? null : altered.getParameters();
    return parameters != null && parameters.get(METADATA_LOCATION) != null && parameters.get(PREVIOUS_METADATA_LOCATION) != null
        ? METADATA_LOCATION : null;
  }

  static boolean isConflict(MetaException e) {
    return e.getMessage() != null && e.getMessage().startsWith(CONFLICT_PREFIX);
  }

  private static String parameter(Table table, String key) {
    return table.getParameters() == null ? null : table.getParameters().get(key);
  }
}
