package io.treecat.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.treecat.lakehouse.storage.StorageCredentials;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;

/**
 * {@code warehouse.catalogs.<name>.credentials}: where the catalog's store credentials come from. Only references: the
 * names of environment variables, or the path of a mounted secret file; a key itself has no place here.
 */
public final class CredentialsConfig {
    /** {@code default} (the SDK's chain), {@code static} (environment variables or a secret file), {@code assume-role}. */
    @NotNull
    @Pattern(regexp = "default|static|assume-role", message = "must be default, static or assume-role")
    @JsonProperty("source")
    private String source = "default";

    @JsonProperty("access-key-id-env")
    private String accessKeyIdEnv;

    @JsonProperty("secret-access-key-env")
    private String secretAccessKeyEnv;

    @JsonProperty("session-token-env")
    private String sessionTokenEnv;

    @JsonProperty("secret-file")
    private String secretFile;

    @JsonProperty("role-arn")
    private String roleArn;

    @JsonProperty("external-id")
    private String externalId;

    /** Where vended credentials are asked for; default: {@code s3.endpoint}, else AWS's regional STS. */
    @JsonProperty("sts-endpoint")
    private String stsEndpoint;

    /** How long vended credentials last (STS {@code DurationSeconds}, 900 to 43200); default 3600. */
    @JsonProperty("vended-duration-seconds")
    private Integer vendedDurationSeconds;

    /** How much earlier than STS's expiry clients are told vended credentials expire; default 0. */
    @JsonProperty("refresh-margin-seconds")
    private Integer refreshMarginSeconds;

    StorageCredentials toCredentials() {
        return new StorageCredentials(
                StorageCredentials.Source.fromConfigName(source),
                accessKeyIdEnv,
                secretAccessKeyEnv,
                sessionTokenEnv,
                secretFile,
                roleArn,
                externalId,
                stsEndpoint,
                vendedDurationSeconds,
                refreshMarginSeconds);
    }
}
