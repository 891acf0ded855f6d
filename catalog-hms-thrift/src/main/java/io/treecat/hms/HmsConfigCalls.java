package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.catalog.Catalogs;
import io.treecat.lakehouse.model.CatalogEntry;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.hive.metastore.api.ConfigValSecurityException;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.thrift.TException;

/**
 * The metastore's configuration as Hive clients read it, and the per-connection settings they may change.
 *
 * <ul>
 *   <li>{@code get_config_value(name, default)}: Hive answers only keys starting with {@code hive},
 *       {@code hdfs}, {@code mapred} or {@code metastore} ({@link ConfigValSecurityException} for any other,
 *       which keeps the store's password out of reach). TreeCat answers the keys of {@link Setting} (each under
 *       its {@code metastore.*} and its {@code hive.*} name) with its own value, and any other allowed key with
 *       the caller's default, as Hive answers a key it does not know. A null name answers the default.</li>
 *   <li>{@code getMetaConf}/{@code setMetaConf}: the settings Hive lets a connection change for itself
 *       ({@link Setting#perConnection}); another key is a {@code MetaException}. A value set is seen by that
 *       connection's {@code getMetaConf} only (under the key as spelled), never by {@code get_config_value}
 *       (the server's configuration), and is forgotten when the connection closes ({@link HmsSessions}). TreeCat
 *       keeps them and answers them back; it acts on one, the column type check on alter
 *       ({@link HmsColumnTypeChanges}). The others change nothing it does: it has no direct SQL, no expression
 *       proxy and no partition-name whitelist.</li>
 *   <li>{@code flushCache}: TreeCat keeps no metadata cache in front of the tree (every call reads its own
 *       snapshot), so there is nothing to flush; the call succeeds, which is the true answer.</li>
 * </ul>
 */
final class HmsConfigCalls {
    /** The keys Hive's {@code get_config_value} answers at all: anything else might be a secret. */
    private static final Pattern READABLE = Pattern.compile("(hive|hdfs|mapred|metastore).*");
    /** A time with a unit suffix, as Hive's time settings take them ({@code 600s}, {@code 5min}). */
    private static final Pattern TIME = Pattern.compile("([0-9]+)([a-zA-Z]+)");

    /** The metastore settings TreeCat answers, with Hive 4's defaults where TreeCat has no value of its own. */
    enum Setting {
        TRY_DIRECT_SQL("metastore.try.direct.sql", "hive.metastore.try.direct.sql", "true", true),
        TRY_DIRECT_SQL_DDL("metastore.try.direct.sql.ddl", "hive.metastore.try.direct.sql.ddl", "true", true),
        CLIENT_SOCKET_TIMEOUT("metastore.client.socket.timeout", "hive.metastore.client.socket.timeout", "600s", true),
        PARTITION_NAME_WHITELIST_PATTERN(
                "metastore.partition.name.whitelist.pattern",
                "hive.metastore.partition.name.whitelist.pattern",
                "",
                true),
        PARTITION_ORDER_EXPR(
                "metastore.partition.order.expr", "hive.metastore.partition.order.expr", "\"PART_NAME\" asc", true),
        CAPABILITY_CHECK("metastore.client.capability.check", "hive.metastore.client.capability.check", "true", true),
        DISALLOW_INCOMPATIBLE_COL_TYPE_CHANGES(
                "metastore.disallow.incompatible.col.type.changes",
                "hive.metastore.disallow.incompatible.col.type.changes",
                "true",
                true),
        EXPRESSION_PROXY(
                "metastore.expression.proxy",
                "hive.metastore.expression.proxy",
                "org.apache.hadoop.hive.ql.optimizer.ppr.PartitionExpressionForMetastore",
                true),
        /** The {@code hive} catalog's location (where its databases go). */
        WAREHOUSE("metastore.warehouse.dir", "hive.metastore.warehouse.dir", null, false),
        DEFAULT_PARTITION_NAME(
                "metastore.default.partition.name",
                "hive.exec.default.partition.name",
                HivePartitionNames.DEFAULT_PARTITION,
                false),
        BATCH_RETRIEVE_MAX("metastore.batch.retrieve.max", "hive.metastore.batch.retrieve.max", "300", false),
        BATCH_RETRIEVE_TABLE_PARTITION_MAX(
                "metastore.batch.retrieve.table.partition.max",
                "hive.metastore.batch.retrieve.table.partition.max",
                "1000",
                false),
        /** How long an HMS lock lives without a heartbeat ({@code hms.lock-timeout}). */
        TXN_TIMEOUT("metastore.txn.timeout", "hive.txn.timeout", null, false);

        private final String metastoreName;
        private final String hiveName;
        private final String hiveDefault;
        private final boolean perConnection;

        Setting(String metastoreName, String hiveName, String hiveDefault, boolean perConnection) {
            this.metastoreName = metastoreName;
            this.hiveName = hiveName;
            this.hiveDefault = hiveDefault;
            this.perConnection = perConnection;
        }

        String metastoreName() {
            return metastoreName;
        }

        String hiveName() {
            return hiveName;
        }

        /** Whether a connection may change it for itself ({@code setMetaConf}), as Hive's metaConfVars. */
        boolean perConnection() {
            return perConnection;
        }

        static Optional<Setting> named(String key) {
            for (Setting setting : values()) {
                if (setting.metastoreName.equals(key) || setting.hiveName.equals(key)) {
                    return Optional.of(setting);
                }
            }
            return Optional.empty();
        }
    }

    private final HmsCalls calls;
    private final HmsSessions sessions;
    private final Duration lockTimeout;

    HmsConfigCalls(HmsCalls calls, HmsSessions sessions, Duration lockTimeout) {
        this.calls = requireNonNull(calls, "calls is null");
        this.sessions = requireNonNull(sessions, "sessions is null");
        this.lockTimeout = requireNonNull(lockTimeout, "lockTimeout is null");
    }

    public String get_config_value(String name, String defaultValue) throws TException {
        if (name == null) {
            return defaultValue;
        }
        if (!READABLE.matcher(name).matches()) {
            throw new ConfigValSecurityException(
                    "For security reasons, the config key " + name + " cannot be accessed");
        }
        Optional<Setting> setting = Setting.named(name);
        return setting.isPresent() ? serverValue(setting.get()) : defaultValue;
    }

    /** What the server is configured with: TreeCat's own value, or Hive's default of a setting TreeCat has none for. */
    private String serverValue(Setting setting) throws TException {
        return switch (setting) {
            case WAREHOUSE -> warehouse();
            case TXN_TIMEOUT -> lockTimeout.toSeconds() + "s";
            default -> setting.hiveDefault;
        };
    }

    private String warehouse() throws TException {
        Optional<CatalogEntry> catalog =
                calls.read(Action.LOAD_CATALOG, calls.catalogPath(), txn -> Catalogs.find(txn, calls.catalog()));
        return catalog.map(CatalogEntry::location).orElse(calls.warehouse().location());
    }

    public String getMetaConf(String key) throws TException {
        Setting setting = perConnection(key);
        String set = sessions.current().setting(key);
        return set != null ? set : serverValue(setting);
    }

    public void setMetaConf(String key, String value) throws TException {
        Setting setting = perConnection(key);
        if (value == null) {
            throw new MetaException("Invalid configuration value null for key " + key);
        }
        if (setting == Setting.CLIENT_SOCKET_TIMEOUT) {
            long millis = millis(key, value);
            if (millis <= 0) {
                // Hive's answer when it resets a connection's deadline to a non-positive time.
                throw new MetaException("The reset timeout value should be larger than 0: " + millis);
            }
        }
        sessions.current().set(key, value);
    }

    public void flushCache() {
        // No metadata cache in front of the tree: nothing to flush (see the class comment).
    }

    private static Setting perConnection(String key) throws MetaException {
        return Setting.named(key)
                .filter(Setting::perConnection)
                .orElseThrow(() -> new MetaException("Invalid configuration key " + key));
    }

    /** A time setting's value in milliseconds, read as Hive reads them: a number of seconds, or a number and a unit. */
    private static long millis(String key, String value) throws MetaException {
        try {
            if (!value.isEmpty() && Character.isDigit(value.charAt(value.length() - 1))) {
                return TimeUnit.SECONDS.toMillis(Long.parseLong(value));
            }
            Matcher matcher = TIME.matcher(value);
            if (!matcher.matches()) {
                throw new IllegalArgumentException("Invalid time unit " + value);
            }
            return unit(matcher.group(2)).toMillis(Long.parseLong(matcher.group(1)));
        } catch (IllegalArgumentException e) {
            throw new MetaException(
                    "Invalid configuration value " + value + " for key " + key + " by " + e.getMessage());
        }
    }

    private static TimeUnit unit(String suffix) {
        String unit = suffix.toLowerCase(Locale.ROOT);
        if (unit.equals("s") || unit.startsWith("sec")) {
            return TimeUnit.SECONDS;
        } else if (unit.equals("ms") || unit.startsWith("msec")) {
            return TimeUnit.MILLISECONDS;
        } else if (unit.equals("m") || unit.startsWith("min")) {
            return TimeUnit.MINUTES;
        } else if (unit.equals("us") || unit.startsWith("usec")) {
            return TimeUnit.MICROSECONDS;
        } else if (unit.equals("ns") || unit.startsWith("nsec")) {
            return TimeUnit.NANOSECONDS;
        } else if (unit.equals("h") || unit.startsWith("hour")) {
            return TimeUnit.HOURS;
        } else if (unit.equals("d") || unit.startsWith("day")) {
            return TimeUnit.DAYS;
        }
        throw new IllegalArgumentException("Invalid time unit " + unit);
    }
}
