package io.treecat.server;

import static java.util.Objects.requireNonNull;

import io.dropwizard.lifecycle.ServerLifecycleListener;
import java.util.List;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/** Watches Jetty's connectors of one name ({@code application} or {@code admin}) for the listener health check. */
final class JettyListener implements ServerLifecycleListener {
    private final String connectorName;
    private volatile List<ServerConnector> connectors = List.of();

    JettyListener(String connectorName) {
        this.connectorName = requireNonNull(connectorName, "connectorName is null");
    }

    @Override
    public void serverStarted(Server server) {
        connectors = List.of(server.getConnectors()).stream()
                .filter(ServerConnector.class::isInstance)
                .map(ServerConnector.class::cast)
                .filter(connector -> connectorName.equals(connector.getName()))
                .toList();
    }

    boolean isServing() {
        List<ServerConnector> current = connectors;
        return !current.isEmpty()
                && current.stream().allMatch(connector -> connector.isRunning() && connector.isOpen());
    }

    int port() {
        List<ServerConnector> current = connectors;
        return current.isEmpty() ? -1 : current.get(0).getLocalPort();
    }
}
