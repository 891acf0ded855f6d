package io.treecat.server.admin;

import static java.util.Objects.requireNonNull;

import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.exporter.common.TextFormat;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.Writer;

/**
 * Every metric of the registry in Prometheus text format (0.0.4), on the admin port at {@code
 * /metrics/prometheus}. The registry is this server's own, never the client library's global one.
 */
public final class PrometheusServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    private final transient CollectorRegistry registry;

    public PrometheusServlet(CollectorRegistry registry) {
        this.registry = requireNonNull(registry, "registry is null");
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setStatus(HttpServletResponse.SC_OK);
        response.setContentType(TextFormat.CONTENT_TYPE_004);
        try (Writer writer = response.getWriter()) {
            TextFormat.write004(writer, registry.metricFamilySamples());
        }
    }
}
