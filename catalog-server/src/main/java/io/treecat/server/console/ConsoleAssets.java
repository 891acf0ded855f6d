package io.treecat.server.console;

import io.dropwizard.core.setup.Environment;
import io.dropwizard.servlets.assets.AssetServlet;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.Serial;
import java.nio.charset.StandardCharsets;

/**
 * The web console's files, under {@code /ui/} on the application port: HTML, CSS and ES modules from this jar, no
 * build step and nothing fetched at run time. They hold no data and are served without a token; every page reads the
 * lake through the native JSON API and Iceberg REST with the signed-in user's token, so the console can do nothing a
 * script with that token could not. Dropwizard's {@link AssetServlet} serves them (content types, ETags, no path
 * escapes the resource folder); this adds the headers a page of a catalog's operators needs: it runs only its own
 * scripts, talks only to this server, and is never framed.
 */
public final class ConsoleAssets extends AssetServlet {
    @Serial
    private static final long serialVersionUID = 1L;

    /** Where the console is, on the application port. */
    public static final String PATH = "/ui";

    private static final String RESOURCES = "/io/treecat/server/console";

    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; "
            + "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

    private ConsoleAssets() {
        super(RESOURCES, PATH, "index.html", StandardCharsets.UTF_8);
    }

    /** Serves the console under {@link #PATH}. */
    public static void register(Environment environment) {
        environment.servlets().addServlet("console", new ConsoleAssets()).addMapping(PATH + "/*");
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response)
            throws ServletException, IOException {
        // "/ui" itself: the pages' relative module paths need the trailing slash.
        if (request.getPathInfo() == null) {
            response.sendRedirect(PATH + "/");
            return;
        }
        response.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
        response.setHeader("X-Content-Type-Options", "nosniff");
        response.setHeader("Referrer-Policy", "no-referrer");
        // Revalidated on every load (AssetServlet answers 304 by ETag): an upgraded server serves its own pages.
        response.setHeader("Cache-Control", "no-cache");
        super.doGet(request, response);
    }
}
