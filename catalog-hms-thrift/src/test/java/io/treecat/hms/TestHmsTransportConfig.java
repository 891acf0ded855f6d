package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class TestHmsTransportConfig {
    @Test
    void defaultsAreHivesWhereHiveHasOne() {
        HmsTransportConfig defaults = HmsTransportConfig.DEFAULTS;
        assertThat(defaults.framed()).isFalse();
        assertThat(defaults.maxMessageBytes()).isEqualTo(100 * 1024 * 1024);
        assertThat(defaults.maxFrameBytes()).isEqualTo(org.apache.thrift.TConfiguration.DEFAULT_MAX_FRAME_SIZE);
        assertThat(defaults.maxDepth()).isEqualTo(org.apache.thrift.TConfiguration.DEFAULT_RECURSION_DEPTH);
        assertThat(defaults.maxConnectionsPerClient()).isLessThan(HmsServerConfig.DEFAULT_MAX_THREADS);
        assertThat(HmsServerConfig.of("127.0.0.1", 0, "warehouse", "file:/w").transport())
                .isEqualTo(defaults);
    }

    @Test
    void boundsAreChecked() {
        assertThatThrownBy(() -> HmsTransportConfig.DEFAULTS.withSizes(0, 1, 1, 1, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Invalid maxMessageBytes: 0");
        assertThatThrownBy(() -> HmsTransportConfig.DEFAULTS.withSizes(1, 1, 1, -1, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Invalid maxContainerElements: -1");
        assertThatThrownBy(() -> HmsTransportConfig.DEFAULTS.withConnections(Duration.ofSeconds(-1), 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Invalid clientIdleTimeout: PT-1S");
        assertThatThrownBy(() -> HmsTransportConfig.DEFAULTS.withConnections(Duration.ZERO, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Invalid maxConnectionsPerClient: 0");
        assertThat(HmsTransportConfig.DEFAULTS.withConnections(Duration.ZERO, 1).clientIdleTimeout())
                .isZero();
    }
}
