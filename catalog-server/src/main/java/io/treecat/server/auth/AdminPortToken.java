package io.treecat.server.auth;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collections;
import java.util.List;
import java.util.Set;

/**
 * The admin port's own token ({@code auth.admin-token-file}, docs/security.md "The admin port"): a filter on the admin
 * context that lets through only requests carrying {@code Authorization: Bearer <token>}, but for the Kubernetes
 * probes' {@code GET /ping} and {@code GET /healthcheck}, which say whether the server is up and ready (its newest vid,
 * its listeners' ports) and nothing else. The rest (metrics, thread dumps, tasks such as {@code gc-run} and {@code
 * log-level}) is the operator's. Separate from the bearer tokens of the application port: those name principals, which
 * the grants check; this one is a shared secret of the operators and their Prometheus, checked whether or not {@code
 * auth.enabled}.
 */
public final class AdminPortToken implements Filter {
    private static final String SETTING = "auth.admin-token-file";
    private static final int MIN_LENGTH = 32;
    private static final int MAX_LENGTH = 4096;
    /** What the probes call: no token, so that a kubelet's httpGet needs no secret in the pod spec. */
    private static final Set<String> OPEN_PATHS = Set.of("/ping", "/healthcheck");

    private static final String CHALLENGE = "Bearer realm=\"treecat-admin\"";
    private static final String MISSING =
            "{\"code\":401,\"message\":\"The admin port needs its token (auth.admin-token-file): Authorization: Bearer"
                    + " <token>\"}";
    private static final String WRONG = "{\"code\":401,\"message\":\"The admin port's token is not this one\"}";

    private final byte[] expectedDigest;

    private AdminPortToken(byte[] expectedDigest) {
        this.expectedDigest = expectedDigest;
    }

    /**
     * Reads the token: at least {@value #MIN_LENGTH} visible ASCII characters (e.g. {@code openssl rand -base64 32}),
     * surrounding whitespace ignored. Errors name the setting, never the file's content.
     */
    public static AdminPortToken load(Path file) {
        TokenSigningKey.checkMode(file, false, SETTING);
        String token;
        try {
            token = Files.readString(file, StandardCharsets.US_ASCII).strip();
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException(
                    "Cannot read " + SETTING + ": " + e.getClass().getSimpleName());
        }
        if (token.length() < MIN_LENGTH || token.length() > MAX_LENGTH) {
            throw new IllegalStateException(SETTING + " must hold a token of " + MIN_LENGTH + " to " + MAX_LENGTH
                    + " characters (e.g. the output of 'openssl rand -base64 32'), it holds " + token.length());
        }
        for (int i = 0; i < token.length(); i++) {
            char c = token.charAt(i);
            if (c < 0x21 || c > 0x7e) {
                throw new IllegalStateException(SETTING + " must hold visible ASCII characters only (no spaces),"
                        + " found another at position " + i);
            }
        }
        return new AdminPortToken(sha256(token));
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest http = (HttpServletRequest) request;
        if (isProbe(http)) {
            chain.doFilter(request, response);
            return;
        }
        List<String> authorizations = Collections.list(http.getHeaders("Authorization"));
        String authorization = authorizations.size() == 1 ? authorizations.get(0) : null;
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            refuse((HttpServletResponse) response, MISSING);
            return;
        }
        // Digests of equal length compared in constant time: the answer's timing says nothing of the token.
        if (!MessageDigest.isEqual(
                expectedDigest, sha256(authorization.substring(7).strip()))) {
            refuse((HttpServletResponse) response, WRONG);
            return;
        }
        chain.doFilter(request, response);
    }

    private static boolean isProbe(HttpServletRequest request) {
        String method = request.getMethod();
        if (!"GET".equals(method) && !"HEAD".equals(method)) {
            return false;
        }
        // The servlet path and path info are decoded and normalized by Jetty: /ping/../metrics is /metrics here.
        String path = request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
        return OPEN_PATHS.contains(path);
    }

    private static void refuse(HttpServletResponse response, String body) throws IOException {
        response.setStatus(HttpServletResponse.SC_UNAUTHORIZED);
        response.setHeader("WWW-Authenticate", CHALLENGE);
        response.setContentType("application/json");
        response.getOutputStream().write(body.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] sha256(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("The JDK has no SHA-256", e);
        }
    }
}
