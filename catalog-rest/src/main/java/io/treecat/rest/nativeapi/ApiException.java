package io.treecat.rest.nativeapi;

import static java.util.Objects.requireNonNull;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A failure of the HTTP request itself rather than of the catalog: a body that is not JSON, a
 * missing field, a body over the size limit. Core's {@code CatalogException} covers everything the
 * catalog decides; this covers what only the wire can get wrong. Like core, the message is fixed and
 * details go in the context.
 */
public final class ApiException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The {@code type} of a request that is malformed: bad JSON, a missing or mistyped field. */
    public static final String INVALID_REQUEST = "INVALID_REQUEST";
    /** The {@code type} of a request whose body is over the configured limit. */
    public static final String REQUEST_TOO_LARGE = "REQUEST_TOO_LARGE";

    private final int status;
    private final String type;
    private final Map<String, Object> context = new LinkedHashMap<>();

    public ApiException(int status, String type, String message) {
        super(message);
        this.status = status;
        this.type = requireNonNull(type, "type is null");
    }

    public static ApiException invalidRequest(String message) {
        return new ApiException(400, INVALID_REQUEST, message);
    }

    public static ApiException tooLarge(long limitBytes) {
        return new ApiException(413, REQUEST_TOO_LARGE, "Request body is larger than the limit")
                .with("limitBytes", limitBytes);
    }

    public ApiException with(String key, Object value) {
        context.put(requireNonNull(key, "key is null"), String.valueOf(value));
        return this;
    }

    public int status() {
        return status;
    }

    public String type() {
        return type;
    }

    public Map<String, Object> context() {
        return Collections.unmodifiableMap(context);
    }
}
