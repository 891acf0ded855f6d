package io.treecat.server.console;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.servlets.assets.AssetServlet;
import io.treecat.lakehouse.auth.OidcIssuer;
import io.treecat.server.config.ConsoleConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.Serial;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;

/**
 * The web console's files, under {@code /ui/} on the application port: HTML, CSS and ES modules from this jar, no
 * build step and nothing fetched at run time. They hold no data and are served without a token; every page reads the
 * lake through the native JSON API and Iceberg REST with the signed-in user's token, so the console can do nothing a
 * script with that token could not. Dropwizard's {@link AssetServlet} serves them (content types, ETags, no path
 * escapes the resource folder); this adds the headers a page of a catalog's operators needs: it runs only its own
 * scripts, talks only to this server (and to the sign-in issuer, if one is configured), and is never framed. One
 * file is made here, {@code config.json}: how users sign in.
 */
public final class ConsoleAssets extends AssetServlet {
    @Serial
    private static final long serialVersionUID = 1L;

    /** Where the console is, on the application port. */
    public static final String PATH = "/ui";

    private static final String RESOURCES = "/io/treecat/server/console";
    private static final String SETTINGS = "/config.json";

    private final String contentSecurityPolicy;
    private final byte[] settings;

    private ConsoleAssets(String contentSecurityPolicy, byte[] settings) {
        super(RESOURCES, PATH, "index.html", StandardCharsets.UTF_8);
        this.contentSecurityPolicy = contentSecurityPolicy;
        this.settings = settings;
    }

    /**
     * Serves the console under {@link #PATH}.
     *
     * @param signIn the external issuer users sign in at, with the console's settings for it; empty for built-in
     *     principals only
     */
    public static void register(Environment environment, Optional<SignIn> signIn) {
        ObjectMapper json = environment.getObjectMapper();
        ObjectNode settings = json.createObjectNode();
        Set<String> connect = new LinkedHashSet<>();
        connect.add("'self'");
        if (signIn.isPresent()) {
            OidcIssuer issuer = signIn.get().issuer();
            ConsoleConfig.Oidc console = signIn.get().console();
            ObjectNode oidc = settings.putObject("oidc");
            oidc.put("name", issuer.name());
            oidc.put("issuer", issuer.issuer());
            oidc.put("discovery", issuer.discovery().toString());
            oidc.put("clientId", console.clientId());
            oidc.put("scope", console.scope());
            if (console.audience() != null && !console.audience().isBlank()) {
                oidc.put("audience", console.audience());
            }
            // The page fetches the issuer's discovery document and its token endpoint itself.
            connect.add(origin(URI.create(issuer.issuer())));
            connect.add(origin(issuer.discovery()));
        } else {
            settings.putNull("oidc");
        }
        String policy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src "
                + String.join(" ", connect)
                + "; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
        byte[] bytes;
        try {
            bytes = json.writeValueAsBytes(settings);
        } catch (IOException e) {
            throw new IllegalStateException("The console's settings cannot be written", e);
        }
        environment
                .servlets()
                .addServlet("console", new ConsoleAssets(policy, bytes))
                .addMapping(PATH + "/*");
    }

    /** An {@code auth.oidc} issuer and {@code console.oidc}'s settings for signing in at it. */
    public record SignIn(OidcIssuer issuer, ConsoleConfig.Oidc console) {}

    private static String origin(URI uri) {
        return uri.getScheme() + "://" + uri.getRawAuthority();
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response)
            throws ServletException, IOException {
        // "/ui" itself: the pages' relative module paths need the trailing slash.
        if (request.getPathInfo() == null) {
            response.sendRedirect(PATH + "/");
            return;
        }
        response.setHeader("Content-Security-Policy", contentSecurityPolicy);
        response.setHeader("X-Content-Type-Options", "nosniff");
        response.setHeader("Referrer-Policy", "no-referrer");
        // Revalidated on every load (AssetServlet answers 304 by ETag): an upgraded server serves its own pages.
        response.setHeader("Cache-Control", "no-cache");
        if (SETTINGS.equals(request.getPathInfo())) {
            response.setContentType("application/json");
            response.getOutputStream().write(settings);
            return;
        }
        super.doGet(request, response);
    }
}
