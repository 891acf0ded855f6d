package io.treecat.conformance.hms;

import java.lang.reflect.Method;
import java.util.Collections;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;

/**
 * The names of the metastore's Thrift calls: every method of Hive 4.1's {@code ThriftHiveMetastore.Iface} (fb303's
 * {@code FacebookService} calls included, which it extends), and the two calls Hive 4 removed from its IDL that
 * TreeCat still answers for Hive 2.3/3.1 clients ({@code get_table}, {@code get_table_objects_by_name}).
 */
final class ThriftCalls {
    /** Removed from Hive 4's IDL, served by TreeCat for older clients. */
    static final Set<String> LEGACY = Set.of("get_table", "get_table_objects_by_name");

    private static final SortedSet<String> IFACE = ifaceCalls();
    private static final Pattern DESCRIBED_CALL = Pattern.compile("^([A-Za-z_][A-Za-z0-9_]*):");

    private ThriftCalls() {}

    /** Hive 4.1's calls, fb303's included, sorted. */
    static SortedSet<String> iface() {
        return IFACE;
    }

    /** A call of Hive 4.1's interface, or a legacy one. */
    static boolean isCall(String name) {
        return IFACE.contains(name) || LEGACY.contains(name);
    }

    /** The call a comparison's description names by its prefix ({@code "get_database: default"}), if it names one. */
    static Optional<String> callOf(String description) {
        Matcher matcher = DESCRIBED_CALL.matcher(description);
        return matcher.find() && isCall(matcher.group(1)) ? Optional.of(matcher.group(1)) : Optional.empty();
    }

    private static SortedSet<String> ifaceCalls() {
        SortedSet<String> names = new TreeSet<>();
        for (Method method : ThriftHiveMetastore.Iface.class.getMethods()) {
            names.add(method.getName());
        }
        return Collections.unmodifiableSortedSet(names);
    }
}
