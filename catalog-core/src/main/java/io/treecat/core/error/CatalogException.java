package io.treecat.core.error;

import static java.util.Objects.requireNonNull;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The one exception core throws for every expected failure. It carries a stable {@link ErrorCode}
 * and structured context ({@link #with}), which adapters render next to the message: a conflict
 * names its path and predicate, a syntax error its position.
 */
public class CatalogException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ErrorCode code;
    private final Map<String, Object> context = new LinkedHashMap<>();

    public CatalogException(ErrorCode code, String message) {
        super(message);
        this.code = requireNonNull(code, "code is null");
    }

    public CatalogException(ErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = requireNonNull(code, "code is null");
    }

    public ErrorCode code() {
        return code;
    }

    public ErrorCategory category() {
        return code.category();
    }

    /** Adds a context field; returns this for chaining at the throw site. */
    public CatalogException with(String key, Object value) {
        context.put(requireNonNull(key, "key is null"), String.valueOf(value));
        return this;
    }

    public Map<String, Object> context() {
        return Collections.unmodifiableMap(context);
    }
}
