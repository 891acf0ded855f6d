package io.treecat.server;

import io.dropwizard.core.setup.Environment;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.AbstractConnector;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.component.LifeCycle;

/**
 * {@code http.read-timeout} on the application listener: Jetty's {@code HttpConfiguration} idle
 * timeout, which Jetty applies to a connection while it handles a request on it (its blocking reads
 * of the body and writes of the answer), apart from the listener's own idle timeout for connections
 * between requests ({@code server.applicationConnectors[].idleTimeout}). A body that stops arriving
 * for this long fails its read with Jetty's {@code TimeoutException}, which the body filter answers
 * with 408 (catalog-rest's {@code BodyReadFailures}), and frees the request's thread.
 */
final class RequestReadTimeout {
    private RequestReadTimeout() {}

    /** How often a stopping server shortens its connections' idle timeouts again (see {@link #keepShort}). */
    private static final long SHUTDOWN_SWEEP_MILLIS = 250;

    static void install(Environment environment, Duration timeout) {
        environment.lifecycle().addEventListener(new LifeCycle.Listener() {
            private ScheduledExecutorService sweeper;

            @Override
            public void lifeCycleStarting(LifeCycle event) {
                if (event instanceof Server server) {
                    apply(server, timeout);
                }
            }

            @Override
            public void lifeCycleStopping(LifeCycle event) {
                if (event instanceof Server server) {
                    sweeper = Executors.newSingleThreadScheduledExecutor(runnable -> {
                        Thread thread = new Thread(runnable, "treecat-shutdown-idle-sweeper");
                        thread.setDaemon(true);
                        return thread;
                    });
                    sweeper.scheduleWithFixedDelay(
                            () -> keepShort(server), 0, SHUTDOWN_SWEEP_MILLIS, TimeUnit.MILLISECONDS);
                }
            }

            @Override
            public void lifeCycleStopped(LifeCycle event) {
                if (event instanceof Server && sweeper != null) {
                    sweeper.shutdownNow();
                }
            }
        });
    }

    /**
     * While the server stops: every open connection's idle timeout back to the connector's shutdown idle timeout (1 s).
     * Jetty's graceful stop shortens them once, when it starts, and then waits for every connection to close. But a
     * request in flight at that moment restores, when it completes, the idle timeout it found when it began (Jetty's
     * {@code HttpChannel} does, because {@link #apply} gives requests their own), and a keep-alive connection whose
     * answer was under way stays open: the stop then waited the listener's whole idle timeout (30 s), up to {@code
     * server.shutdownGracePeriod}, for a client that sent nothing (seen in the test suite: a Jetty dump showed one
     * idle connection at {@code to=10027/30000}).
     */
    private static void keepShort(Server server) {
        try {
            for (Connector connector : server.getConnectors()) {
                if (connector instanceof AbstractConnector jetty) {
                    long shutdownIdle = jetty.getShutdownIdleTimeout();
                    for (EndPoint endPoint : jetty.getConnectedEndPoints()) {
                        if (endPoint.getIdleTimeout() > shutdownIdle) {
                            endPoint.setIdleTimeout(shutdownIdle);
                        }
                    }
                }
            }
        } catch (RuntimeException e) {
            // A connection closing under the sweep: the next sweep sees the rest.
        }
    }

    private static void apply(Server server, Duration timeout) {
        for (Connector connector : server.getConnectors()) {
            if (JsonErrorHandler.APPLICATION_CONNECTOR.equals(connector.getName())) {
                // Dropwizard wraps the HTTP connection factory in a metrics one, which holds it as a bean.
                for (HttpConnectionFactory http : connector.getContainedBeans(HttpConnectionFactory.class)) {
                    http.getHttpConfiguration().setIdleTimeout(timeout.toMillis());
                }
            }
        }
    }
}
