package io.treecat.rest.nativeapi;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.zip.ZipException;

/**
 * What a failure to read a request body means for the client. The container reports a body that
 * stopped arriving, a malformed chunked framing, a body that ended early and a {@code Content-Encoding:
 * gzip} body that does not inflate as an {@link IOException} from the body's stream; each is the
 * client's (or its network's) doing, never the server's, so each is a 4xx with a fixed message
 * rather than a 500. The server's own I/O (storage, metadata files) never reads a request body.
 */
final class BodyReadFailures {
    /** The {@code type} of a request whose body stopped arriving. */
    static final String REQUEST_TIMEOUT = "REQUEST_TIMEOUT";

    private BodyReadFailures() {}

    static ApiException translate(IOException failure, Duration readTimeout) {
        if (causedBy(failure, TimeoutException.class)) {
            return new ApiException(408, REQUEST_TIMEOUT, "The request body stopped arriving")
                    .with("limit", "http.read-timeout")
                    .with("timeoutMillis", readTimeout.toMillis());
        }
        if (causedBy(failure, ZipException.class)) {
            return ApiException.invalidRequest("The request body is not valid gzip")
                    .with("contentEncoding", "gzip");
        }
        // Jetty's bad chunk size, a connection closed mid-body: the body the client declared never came whole.
        return ApiException.invalidRequest("The request body is malformed or ended early");
    }

    private static boolean causedBy(Throwable failure, Class<? extends Throwable> type) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (type.isInstance(cause)) {
                return true;
            }
            if (cause.getCause() == cause) {
                return false;
            }
        }
        return false;
    }
}
