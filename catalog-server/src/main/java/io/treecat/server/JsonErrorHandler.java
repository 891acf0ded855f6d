package io.treecat.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.core.setup.Environment;
import io.treecat.rest.iceberg.IcebergRest;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.apache.iceberg.rest.responses.ErrorResponseParser;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpChannel;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.component.LifeCycle;

/**
 * Jetty's error pages as JSON, for what Jetty answers before Jersey sees a request: an ambiguous
 * path ({@code %2E%2E}, {@code %2e}, an empty segment, {@code ..;}), bad percent-encoding or
 * control characters, a URI or headers over the limits (414, 431), a malformed header
 * (Content-Length, Host), a method Dropwizard's filter refuses (405). Iceberg's clients fail on an
 * HTML body (Spark 3.5 with the 1.10 runtime does on a 400), so every such answer under the Iceberg
 * root ({@link IcebergRest#ROOT}) is Iceberg's ErrorResponse {@code {"error":{"message","type","code"}}}
 * with {@code type} the Iceberg exception its status stands for, and every other path on the
 * application port gets the native API's shape {@code {"error":{"message","type","code","context"}}},
 * {@code type} the status's name. The message says what Jetty found wrong and where (method and
 * path, shortened).
 *
 * <p>Two ways in, both covered: failures found while parsing a request go through
 * {@link #badMessageError}, which Jetty asks of the server's one {@code ErrorHandler} bean and which
 * is not told the request, so a {@link HttpChannel.Listener} on each connector hands it the
 * request's URI (Jetty calls the listener, then this handler, on the same thread); failures after
 * parsing ({@code sendError}) go through {@link #generateAcceptableResponse}.
 *
 * <p>The admin connector keeps Jetty's own pages (its servlets are HTML menus and plain text):
 * its context gets a plain {@code ErrorHandler}, and its parse failures are answered by the
 * superclass.
 */
final class JsonErrorHandler extends ErrorHandler {
    /** The connector Dropwizard names for the application port. */
    static final String APPLICATION_CONNECTOR = "application";
    /** Longest path quoted back in a message: a 414 must not echo its whole URI. */
    private static final int MAX_QUOTED_PATH = 200;

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The request whose parsing failed on this thread, between the listener's call and {@link #badMessageError}. */
    private final ThreadLocal<Failed> failed = new ThreadLocal<>();

    private record Failed(String method, String path, boolean application) {}

    /**
     * Installs the handler on the server (replacing Dropwizard's bean), on the application context,
     * and its listener on every connector, before the server starts.
     */
    static void install(Environment environment) {
        JsonErrorHandler handler = new JsonErrorHandler();
        environment.getApplicationContext().setErrorHandler(handler);
        ErrorHandler admin = new ErrorHandler();
        admin.setShowStacks(false);
        environment.getAdminContext().setErrorHandler(admin);
        environment.lifecycle().addEventListener(new LifeCycle.Listener() {
            @Override
            public void lifeCycleStarting(LifeCycle event) {
                if (event instanceof Server server) {
                    handler.attach(server);
                }
            }
        });
    }

    private void attach(Server server) {
        // Jetty answers parse failures with server.getBean(ErrorHandler.class): the first bean of that
        // type, which is Dropwizard's unless removed.
        server.getBeans(ErrorHandler.class).forEach(server::removeBean);
        server.setErrorHandler(this);
        HttpChannel.Listener listener = new HttpChannel.Listener() {
            @Override
            public void onRequestFailure(Request request, Throwable failure) {
                remember(request);
            }
        };
        for (Connector connector : server.getConnectors()) {
            connector.addBean(listener);
        }
    }

    private void remember(Request request) {
        Connector connector = request.getHttpChannel() == null
                ? null
                : request.getHttpChannel().getConnector();
        boolean application = connector == null || APPLICATION_CONNECTOR.equals(connector.getName());
        HttpURI uri = request.getHttpURI();
        if (uri == null && request.getMetaData() != null) {
            // An ambiguous path fails Request.setMetaData after it kept the metadata but before it kept the URI.
            uri = request.getMetaData().getURI();
        }
        // A request line Jetty could not read (bad percent-encoding, too long) leaves the path at "/":
        // better no path in the message than a wrong one.
        String path = uri == null || "/".equals(uri.getPath()) ? null : uri.getPath();
        failed.set(new Failed(request.getMethod(), path, application));
    }

    @Override
    public boolean errorPageForMethod(String method) {
        // Jetty writes no body for methods other than GET, POST and HEAD; a client still needs to know why.
        return true;
    }

    @Override
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
        Failed request = failed.get();
        failed.remove();
        if (request != null && !request.application()) {
            return super.badMessageError(status, reason, fields);
        }
        String method = request == null ? null : request.method();
        String path = request == null ? null : request.path();
        fields.put(HttpHeader.CONTENT_TYPE, "application/json");
        return ByteBuffer.wrap(body(status, reason, method, path));
    }

    @Override
    protected void generateAcceptableResponse(
            Request baseRequest, HttpServletRequest request, HttpServletResponse response, int code, String message)
            throws IOException {
        Object original = request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI);
        String path = original instanceof String uri ? uri : request.getRequestURI();
        // A failure that escaped Jersey's mappers is a bug: its message may hold internals, so it says only the status.
        byte[] body = body(code, code >= 500 ? null : message, request.getMethod(), path);
        baseRequest.setHandled(true);
        response.setContentType("application/json");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    /** The JSON body for a failure of {@code method path} (either may be unknown: null). */
    static byte[] body(int status, String reason, String method, String path) {
        String what = reason == null || reason.isBlank() ? HttpStatus.getMessage(status) : reason;
        String message = path == null ? what : what + ": " + (method == null ? "" : method + " ") + quoted(path);
        if (path != null && isIceberg(path)) {
            ErrorResponse error = ErrorResponse.builder()
                    .responseCode(status)
                    .withType(icebergType(status))
                    .withMessage(message)
                    .build();
            return ErrorResponseParser.toJson(error).getBytes(StandardCharsets.UTF_8);
        }
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("message", message);
        // With no path (Jetty rejected the request line or an ambiguous path before keeping it), the
        // body must suit both APIs: Iceberg's type, which engines turn into their exception, plus the
        // native API's context, which Iceberg's parser ignores.
        error.put(
                "type",
                path == null
                        ? icebergType(status)
                        : HttpStatus.getMessage(status).toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]+", "_"));
        error.put("code", status);
        error.put("context", Map.of());
        try {
            return JSON.writeValueAsBytes(Map.of("error", error));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Cannot write an error body", e);
        }
    }

    static boolean isIceberg(String path) {
        return path.equals(IcebergRest.ROOT) || path.startsWith(IcebergRest.ROOT + "/");
    }

    /** The Iceberg exception a status stands for, as IcebergErrors names them. */
    static String icebergType(int status) {
        return switch (status) {
            case 404 -> "NotFoundException";
            case 405 -> "MethodNotAllowedException";
            case 406 -> "NotAcceptableException";
            case 413, 414, 431 -> "RequestTooLargeException";
            case 415 -> "UnsupportedMediaTypeException";
            case 503 -> "ServiceUnavailableException";
            default -> status >= 500 ? "ServiceFailureException" : "BadRequestException";
        };
    }

    private static String quoted(String path) {
        return path.length() <= MAX_QUOTED_PATH ? path : path.substring(0, MAX_QUOTED_PATH) + "…";
    }
}
