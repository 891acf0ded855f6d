package io.treecat.e2e.trino;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Hands a {@link TrinoEnvironment} to test constructors and methods. The first request starts it and keeps it in the
 * root context's store, so every test class of the run shares it; JUnit closes it when the run ends. A start that
 * fails is remembered too: the other classes fail at once with the same cause instead of waiting for Trino again.
 */
final class TrinoEnvironmentExtension implements ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(TrinoEnvironmentExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == TrinoEnvironment.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Started started = extensionContext
                .getRoot()
                .getStore(NAMESPACE)
                .getOrComputeIfAbsent(Started.class, key -> Started.start(), Started.class);
        if (started.failure() != null) {
            throw new ParameterResolutionException(
                    "TreeCat and Trino did not start: " + started.failure().getMessage(), started.failure());
        }
        return started.environment();
    }

    /** The outcome of the one start: an environment, or why there is none. */
    private record Started(TrinoEnvironment environment, Exception failure) implements AutoCloseable {
        static Started start() {
            try {
                return new Started(TrinoEnvironment.start(), null);
            } catch (Exception e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                return new Started(null, e);
            }
        }

        @Override
        public void close() {
            if (environment != null) {
                environment.close();
            }
        }
    }
}
