package io.treecat.server.config;

import io.dropwizard.configuration.ConfigurationSourceProvider;
import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.FileConfigurationSourceProvider;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;

/**
 * Where configuration text comes from: a file, or with the {@code classpath:} prefix a resource of
 * the distribution ({@value #EMBEDDED} is the embedded default). Wrapped by {@link #withEnvironment()},
 * every {@code ${NAME:-default}} in either is replaced from the environment.
 */
public final class TreeCatConfigurationSource implements ConfigurationSourceProvider {
    /** The configuration {@code treecat server} runs with when given no file. */
    public static final String EMBEDDED = "classpath:treecat-default.yml";

    private static final String CLASSPATH = "classpath:";

    private final FileConfigurationSourceProvider files = new FileConfigurationSourceProvider();

    /** The source the application uses: files and resources with environment variables substituted (unset ones without a default stay as written). */
    public static ConfigurationSourceProvider withEnvironment() {
        return new SubstitutingSourceProvider(
                new TreeCatConfigurationSource(), new EnvironmentVariableSubstitutor(false));
    }

    @Override
    public InputStream open(String path) throws IOException {
        if (path.startsWith(CLASSPATH)) {
            InputStream resource = TreeCatConfigurationSource.class
                    .getClassLoader()
                    .getResourceAsStream(path.substring(CLASSPATH.length()));
            if (resource == null) {
                throw new FileNotFoundException("No resource " + path);
            }
            return resource;
        }
        return files.open(path);
    }
}
