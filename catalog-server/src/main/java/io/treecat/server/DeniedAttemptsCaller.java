package io.treecat.server;

import io.dropwizard.core.setup.Environment;
import io.treecat.lakehouse.auth.DeniedAttempts;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.util.EnumSet;

/**
 * Binds each HTTP request's API and client address for the denied-attempts log ({@link DeniedAttempts}) while the
 * request runs on its thread: the lakehouse's authorizer, which refuses, knows neither. A servlet filter rather than a
 * Jersey one, since Jersey injects no servlet request into the instances the server registers. The address is the
 * connection's peer (a proxy's, behind one); no header the client sends is trusted for it.
 */
final class DeniedAttemptsCaller implements Filter {
    private DeniedAttemptsCaller() {}

    static void install(Environment environment) {
        environment
                .servlets()
                .addFilter("denied-attempts-caller", new DeniedAttemptsCaller())
                .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*");
    }

    /** The API a request path belongs to, as the denied-attempts log names it. */
    static String api(String path) {
        if (path == null) {
            return "http";
        }
        if (path.equals("/v1") || path.startsWith("/v1/")) {
            return "iceberg-rest";
        }
        if (path.startsWith("/treecat/")) {
            return "native-json";
        }
        if (path.equals("/metastore") || path.startsWith("/metastore/")) {
            return "hms-http";
        }
        return "http";
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        String path = request instanceof HttpServletRequest http ? http.getRequestURI() : null;
        DeniedAttempts.bind(api(path), request.getRemoteAddr());
        try {
            chain.doFilter(request, response);
        } finally {
            DeniedAttempts.unbind();
        }
    }
}
