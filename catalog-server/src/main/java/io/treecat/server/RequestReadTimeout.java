package io.treecat.server;

import io.dropwizard.core.setup.Environment;
import java.time.Duration;
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

    static void install(Environment environment, Duration timeout) {
        environment.lifecycle().addEventListener(new LifeCycle.Listener() {
            @Override
            public void lifeCycleStarting(LifeCycle event) {
                if (event instanceof Server server) {
                    apply(server, timeout);
                }
            }
        });
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
