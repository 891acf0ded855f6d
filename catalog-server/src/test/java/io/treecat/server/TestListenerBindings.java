package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.dropwizard.testing.ConfigOverride;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which address each listener binds (docs/security.md, "Listeners and loopback"): loopback when auth is off unless
 * explicitly allowed, a start refused for a remote host with auth off, and an auth-on server serving HMS Thrift with or
 * without {@code hms.allow-unauthenticated} (SASL PLAIN authenticates its clients; TestAuthorization).
 */
class TestListenerBindings {
    @TempDir
    Path directory;

    private static final String MESSAGE_TAIL = "set auth.allow-remote-without-auth: true to serve other machines"
            + " without authentication (docs/security.md)";

    @Test
    void anUnsetHostIsLoopbackWithAuthOffAndEveryInterfaceWithAuthOn() {
        assertThat(new ListenerBindings(false, false).host("grpc.host", null, true))
                .isEqualTo("127.0.0.1");
        assertThat(new ListenerBindings(false, false).host("grpc.host", " ", true))
                .isEqualTo("127.0.0.1");
        assertThat(new ListenerBindings(true, false).host("grpc.host", null, true))
                .isEqualTo("0.0.0.0");
        assertThat(new ListenerBindings(false, true).host("grpc.host", null, true))
                .isEqualTo("0.0.0.0");
        // The admin port has no authentication of its own: loopback unless its host is set, whatever auth says.
        assertThat(new ListenerBindings(true, false).host("server.adminConnectors[0].bindHost", null, false))
                .isEqualTo("127.0.0.1");
    }

    @Test
    void anAdminPortWithItsOwnTokenIsBoundLikeAnAuthenticatedListenerWhateverAuthSays() {
        String admin = "server.adminConnectors[0].bindHost";
        // No token: loopback unless set; a set remote host with auth off needs the explicit setting.
        assertThat(new ListenerBindings(true, false, false).adminHost(admin, null))
                .isEqualTo("127.0.0.1");
        assertThatThrownBy(() -> new ListenerBindings(false, false, false).adminHost(admin, "0.0.0.0"))
                .hasMessageStartingWith(admin + " is 0.0.0.0, which serves other machines, but auth.enabled is false");
        // Its own token (auth.admin-token-file): every interface when unset, a remote host allowed with auth off.
        for (boolean authEnabled : new boolean[] {false, true}) {
            ListenerBindings bindings = new ListenerBindings(authEnabled, false, true);
            assertThat(bindings.adminHost(admin, null)).isEqualTo("0.0.0.0");
            assertThat(bindings.adminHost(admin, "0.0.0.0")).isEqualTo("0.0.0.0");
            // The application's listeners keep their own rule.
            if (!authEnabled) {
                assertThat(bindings.host("grpc.host", null, true)).isEqualTo("127.0.0.1");
            }
        }
    }

    @Test
    void aRemoteHostWithAuthOffNeedsTheExplicitSetting() {
        assertThatThrownBy(() -> new ListenerBindings(false, false).host("hms.host", "0.0.0.0", true))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("hms.host is 0.0.0.0, which serves other machines, but auth.enabled is false")
                .hasMessageEndingWith(MESSAGE_TAIL);
        assertThat(new ListenerBindings(false, true).host("hms.host", "0.0.0.0", true))
                .isEqualTo("0.0.0.0");
        assertThat(new ListenerBindings(true, false).host("hms.host", "0.0.0.0", true))
                .isEqualTo("0.0.0.0");
        for (String loopback : new String[] {"127.0.0.1", "localhost", "::1", "127.0.0.2"}) {
            assertThat(new ListenerBindings(false, false).host("grpc.host", loopback, true))
                    .isEqualTo(loopback);
        }
    }

    @Test
    void theEmbeddedDefaultWithAuthOffServesLoopbackOnly() throws Exception {
        Optional<InetAddress> external = externalAddress();
        try (TreeCatTestServer server = new TreeCatTestServer(
                directory,
                Map.of(
                        "server.applicationConnectors[0].bindHost", "",
                        "server.adminConnectors[0].bindHost", "",
                        "grpc.host", "",
                        "hms.host", ""))) {
            int[] ports = {server.port(), server.adminPort(), server.grpcPort(), server.hmsPort()};
            for (int port : ports) {
                assertThat(reachable(InetAddress.getLoopbackAddress(), port))
                        .as("port %d on loopback", port)
                        .isTrue();
            }
            assumeThat(external).as("a non-loopback address on this machine").isPresent();
            for (int port : ports) {
                assertThat(reachable(external.get(), port))
                        .as("port %d on %s", port, external.get())
                        .isFalse();
            }
        }
    }

    @Test
    void aServerAskedToServeOtherMachinesWithoutAuthDoesNotStart() {
        assertThatThrownBy(() -> new TreeCatTestServer(directory, Map.of("grpc.host", "0.0.0.0")).close())
                .hasStackTraceContaining("grpc.host is 0.0.0.0, which serves other machines, but auth.enabled is false")
                .hasStackTraceContaining(MESSAGE_TAIL);
        assertThatThrownBy(() -> new TreeCatTestServer(
                                directory, Map.of("server.applicationConnectors[0].bindHost", "0.0.0.0"))
                        .close())
                .hasStackTraceContaining("server.applicationConnectors[0].bindHost is 0.0.0.0");
    }

    @Test
    void anAuthOnServerServesHmsWithOrWithoutUnauthenticatedClients() throws Exception {
        // SASL PLAIN authenticates Hive's clients: an auth-on server no longer needs hms.allow-unauthenticated.
        try (TreeCatTestServer server = new TreeCatTestServer(
                directory,
                Map.of("hms.allow-unauthenticated", "false"),
                ConfigOverride.config("auth.enabled", "true"))) {
            assertThat(reachable(InetAddress.getLoopbackAddress(), server.hmsPort()))
                    .isTrue();
        }
        try (TreeCatTestServer server = new TreeCatTestServer(
                directory,
                Map.of("hms.allow-unauthenticated", "true"),
                ConfigOverride.config("auth.enabled", "true"))) {
            assertThat(reachable(InetAddress.getLoopbackAddress(), server.hmsPort()))
                    .isTrue();
        }
    }

    private static boolean reachable(InetAddress address, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(address, port), 2000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** An address of this machine that is not loopback, to knock on from outside the loopback interface. */
    private static Optional<InetAddress> externalAddress() throws IOException {
        for (NetworkInterface network : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!network.isUp() || network.isLoopback()) {
                continue;
            }
            for (InetAddress address : Collections.list(network.getInetAddresses())) {
                if (address instanceof java.net.Inet4Address && !address.isLoopbackAddress()) {
                    return Optional.of(address);
                }
            }
        }
        return Optional.empty();
    }
}
