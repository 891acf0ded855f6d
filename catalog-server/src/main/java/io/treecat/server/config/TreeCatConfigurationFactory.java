package io.treecat.server.config;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.configuration.ConfigurationException;
import io.dropwizard.configuration.ConfigurationSourceProvider;
import io.dropwizard.configuration.YamlConfigurationFactory;
import jakarta.validation.Validator;
import java.io.IOException;

/**
 * Dropwizard's YAML factory, except that a command given no file reads the embedded default
 * ({@link TreeCatConfigurationSource#EMBEDDED}) rather than bare code defaults, so environment
 * overrides apply to {@code treecat server} with no arguments too.
 */
public final class TreeCatConfigurationFactory extends YamlConfigurationFactory<TreeCatConfiguration> {
    private final ConfigurationSourceProvider source;

    public TreeCatConfigurationFactory(
            Class<TreeCatConfiguration> type,
            Validator validator,
            ObjectMapper mapper,
            String propertyPrefix,
            ConfigurationSourceProvider source) {
        super(type, validator, mapper, propertyPrefix);
        this.source = requireNonNull(source, "source is null");
    }

    @Override
    public TreeCatConfiguration build() throws IOException, ConfigurationException {
        return build(source, TreeCatConfigurationSource.EMBEDDED);
    }
}
