package io.treecat.server;

import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.core.server.ServerFactory;
import io.dropwizard.core.server.SimpleServerFactory;
import io.dropwizard.jetty.ConnectorFactory;
import io.dropwizard.jetty.HttpConnectorFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which address each listener binds (docs/security.md, "Listeners and loopback"). A listener whose host is not set
 * binds loopback ({@value #LOOPBACK}) when authentication is off, so that the embedded default serves only this
 * machine; serving other addresses without authentication takes {@code auth.allow-remote-without-auth: true}, and a
 * configured non-loopback host without it stops the start with a message saying so. With authentication on, an unset
 * host binds every interface, except the admin port's, which binds loopback unless its host is set or it checks a
 * token of its own ({@code auth.admin-token-file}, with or without {@code auth.enabled}).
 */
final class ListenerBindings {
    static final String LOOPBACK = "127.0.0.1";
    /** What an unset host means where every interface is served. */
    static final String ALL_INTERFACES = "0.0.0.0";

    private static final Logger LOG = LoggerFactory.getLogger(ListenerBindings.class);

    private final boolean authEnabled;
    private final boolean allowRemoteWithoutAuth;
    private final boolean adminToken;

    ListenerBindings(boolean authEnabled, boolean allowRemoteWithoutAuth) {
        this(authEnabled, allowRemoteWithoutAuth, false);
    }

    /**
     * @param adminToken whether the admin port checks its own token ({@code auth.admin-token-file}), with or without
     *     {@code auth.enabled}: it is then bound like a listener that authenticates
     */
    ListenerBindings(boolean authEnabled, boolean allowRemoteWithoutAuth, boolean adminToken) {
        this.authEnabled = authEnabled;
        this.allowRemoteWithoutAuth = allowRemoteWithoutAuth;
        this.adminToken = adminToken;
    }

    /**
     * The host a listener binds.
     *
     * @param setting the configuration key of its host, named in errors
     * @param configured its configured host; null or blank for unset
     * @param authenticated whether the listener checks authentication itself when {@code auth.enabled} (the admin
     *     port does not)
     * @throws IllegalStateException for a non-loopback host with authentication off and no explicit permission
     */
    String host(String setting, String configured, boolean authenticated) {
        return host(setting, configured, !authEnabled || !authenticated, false);
    }

    /** The admin port's host: protected by its own token when there is one, else by nothing. */
    String adminHost(String setting, String configured) {
        return host(setting, configured, !adminToken, adminToken);
    }

    private String host(String setting, String configured, boolean unprotected, boolean ownToken) {
        boolean unset = configured == null || configured.isBlank();
        if (unset) {
            return unprotected && !allowRemoteWithoutAuth ? LOOPBACK : ALL_INTERFACES;
        }
        String host = configured.strip();
        if (!authEnabled && !ownToken && !allowRemoteWithoutAuth && !isLoopback(host)) {
            throw new IllegalStateException(setting + " is " + host + ", which serves other machines, but"
                    + " auth.enabled is false: anyone who reaches it could read and change everything. Turn"
                    + " authentication on (auth.enabled: true), bind it to loopback (" + LOOPBACK + "), or set"
                    + " auth.allow-remote-without-auth: true to serve other machines without authentication"
                    + " (docs/security.md)");
        }
        if (unprotected && !isLoopback(host)) {
            LOG.warn(
                    "{} is {}: this listener serves other machines WITHOUT authentication (docs/security.md)",
                    setting,
                    host);
        }
        return host;
    }

    /** Sets the bind host of every HTTP connector of Dropwizard's server (application and admin). */
    void applyTo(ServerFactory server) {
        if (server instanceof DefaultServerFactory factory) {
            apply("server.applicationConnectors", factory.getApplicationConnectors(), Listener.APPLICATION);
            apply("server.adminConnectors", factory.getAdminConnectors(), Listener.ADMIN);
        } else if (server instanceof SimpleServerFactory factory) {
            // One connector serves the application and the admin servlets: protected when both are.
            apply("server.connector", List.of(factory.getConnector()), Listener.BOTH);
        }
    }

    private enum Listener {
        APPLICATION,
        ADMIN,
        BOTH
    }

    private void apply(String setting, List<ConnectorFactory> connectors, Listener listener) {
        for (int i = 0; i < connectors.size(); i++) {
            if (connectors.get(i) instanceof HttpConnectorFactory http) {
                String name = connectors.size() == 1 && setting.equals("server.connector")
                        ? setting + ".bindHost"
                        : setting + "[" + i + "].bindHost";
                String configured = http.getBindHost();
                http.setBindHost(
                        switch (listener) {
                            case APPLICATION -> host(name, configured, true);
                            case ADMIN -> adminHost(name, configured);
                            case BOTH -> host(name, configured, adminToken);
                        });
            }
        }
    }

    /** Whether {@code host} names only this machine; a name is resolved, and every address it has must be loopback. */
    static boolean isLoopback(String host) {
        try {
            InetAddress[] addresses = InetAddress.getAllByName(host);
            for (InetAddress address : addresses) {
                if (!address.isLoopbackAddress()) {
                    return false;
                }
            }
            return addresses.length > 0;
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
