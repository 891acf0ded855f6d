package io.treecat.conformance.hms;

import static io.treecat.conformance.hms.Differential.done;

import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The calls about the service (fb303's, which Hive's interface extends, and {@code set_ugi}) against Hive 4.0.1 and
 * TreeCat. A server's name, version, start time and counters are its own: those answers are compared by type and by
 * whether they are empty, and shown; everything else as it is. fb303 {@code shutdown} is not sent: it must not stop
 * either server, and the run shares them.
 */
@ExtendWith(SharedHmsPeers.class)
@ComparesCalls({
    "getName",
    "getVersion",
    "getStatus",
    "getStatusDetails",
    "getCounters",
    "getCounter",
    "setOption",
    "getOption",
    "getOptions",
    "getCpuProfile",
    "aliveSince",
    "reinitialize",
    "set_ugi"
})
class ServiceCallsDifferentialIT {
    private static Differential differential;
    private static HmsValues values;

    @BeforeAll
    static void setUp(HmsPeers peers) {
        differential = peers.differential();
        values = peers.values();
    }

    /** A server's own value (its name, version, counters, options): only what kind of value it is. */
    private static String kind(Object value) {
        return value == null
                ? "null"
                : value instanceof java.util.Map<?, ?>
                        ? "Map"
                        : value.getClass().getSimpleName();
    }

    @Test
    void serviceCalls() {
        differential.compare(
                "getName", "the server's name", (client, peer) -> client.getName(), ServiceCallsDifferentialIT::kind);
        differential.compare(
                "getVersion",
                "the server's version",
                (client, peer) -> client.getVersion(),
                ServiceCallsDifferentialIT::kind);
        differential.compare("getStatus", "alive", (client, peer) -> client.getStatus(), values::of);
        differential.compare(
                "getStatusDetails",
                "details",
                (client, peer) -> client.getStatusDetails(),
                ServiceCallsDifferentialIT::kind);
        differential.compare(
                "getCounters", "counters", (client, peer) -> client.getCounters(), ServiceCallsDifferentialIT::kind);
        differential.compare(
                "getCounter",
                "a counter nobody keeps",
                (client, peer) -> client.getCounter("differential.none"),
                values::of);
        differential.compare(
                "setOption",
                "an option",
                done((client, peer) -> client.setOption("differential.option", "1")),
                values::of);
        differential.compare(
                "getOption",
                "an option nobody set",
                (client, peer) -> client.getOption("differential.none"),
                values::of);
        differential.compare(
                "getOptions", "options", (client, peer) -> client.getOptions(), ServiceCallsDifferentialIT::kind);
        differential.compare("getCpuProfile", "one second", (client, peer) -> client.getCpuProfile(1), values::of);
        differential.compare("aliveSince", "start time", (client, peer) -> client.aliveSince() > 0, values::of);
        differential.compare("reinitialize", "no-op", done((client, peer) -> client.reinitialize()), values::of);
        differential.compare(
                "set_ugi",
                "a user and two groups",
                (client, peer) -> client.set_ugi("differential", List.of("g1", "g2")),
                values::of);
        differential.compare(
                "set_ugi", "no groups", (client, peer) -> client.set_ugi("differential", List.of()), values::of);
        differential.assertAgreed("serviceCalls");
    }
}
