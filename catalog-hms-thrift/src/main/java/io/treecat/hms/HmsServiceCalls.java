package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import com.facebook.fb303.fb_status;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The calls about the service itself: fb303's {@code FacebookService} (which Hive's interface
 * extends) and the session's {@code set_ugi}. Spark sends fb303 {@code shutdown} when it closes a
 * client, which must not stop the server.
 */
final class HmsServiceCalls {
    private static final Logger LOG = LoggerFactory.getLogger(HmsServiceCalls.class);

    private final String catalog;
    private final long aliveSince = System.currentTimeMillis() / 1000;

    HmsServiceCalls(String catalog) {
        this.catalog = requireNonNull(catalog, "catalog is null");
    }

    public String getName() {
        return "treecat";
    }

    public String getVersion() {
        return "4.1.0";
    }

    public fb_status getStatus() {
        return fb_status.ALIVE;
    }

    public String getStatusDetails() {
        return "TreeCat HMS: serving catalog '" + catalog + "'";
    }

    public Map<String, Long> getCounters() {
        return Map.of();
    }

    public long getCounter(String key) {
        return 0;
    }

    public void setOption(String key, String value) {}

    public String getOption(String key) {
        return "";
    }

    public Map<String, String> getOptions() {
        return Map.of();
    }

    public String getCpuProfile(int profileDurationInSec) {
        return "";
    }

    public long aliveSince() {
        return aliveSince;
    }

    public void reinitialize() {}

    public void shutdown() {
        LOG.debug("Ignoring fb303 shutdown from a client");
    }

    public List<String> set_ugi(String user, List<String> groups) {
        return groups == null ? List.of() : groups;
    }
}
