package io.treecat.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import io.treecat.hms.HiveFilterLimits;
import io.treecat.rest.iceberg.IcebergRest;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/**
 * {@code hms.*}: the Hive Metastore Thrift listener (docs/hms-thrift.md). Its databases are the
 * first-level namespaces of the TreeCat catalog {@code default-catalog}, the one the Iceberg REST
 * catalog serves by default, so both see one set of tables.
 */
public final class HmsConfig {
    @NotEmpty
    @JsonProperty("host")
    private String host = "0.0.0.0";

    @Min(0)
    @Max(65535)
    @JsonProperty("port")
    private int port = 9083;

    @NotEmpty
    @JsonProperty("default-catalog")
    // The Iceberg REST catalog's default, so both APIs see the same databases out of the box.
    private String defaultCatalog = IcebergRest.DEFAULT_CATALOG;

    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
    @JsonProperty("lock-timeout")
    // Hive's hive.txn.timeout: an HMS lock not heartbeated for this long is released.
    private Duration lockTimeout = Duration.seconds(300);

    @Valid
    @NotNull
    @JsonProperty("filter")
    private Filter filter = new Filter();

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public String defaultCatalog() {
        return defaultCatalog;
    }

    public java.time.Duration lockTimeout() {
        return lockTimeout.toJavaDuration();
    }

    public HiveFilterLimits filterLimits() {
        return filter.toLimits();
    }

    /** {@code hms.filter.*}: how long a Hive filter may be and how deeply its and/or may alternate. */
    public static final class Filter {
        @Min(1)
        @Max(HiveFilterLimits.LENGTH_CEILING)
        @JsonProperty("max-length")
        private int maxLength = HiveFilterLimits.DEFAULTS.maxLength();

        @Min(1)
        @Max(HiveFilterLimits.DEPTH_CEILING)
        @JsonProperty("max-depth")
        private int maxDepth = HiveFilterLimits.DEFAULTS.maxDepth();

        HiveFilterLimits toLimits() {
            return new HiveFilterLimits(maxLength, maxDepth);
        }
    }
}
