package io.treecat.rest.auth;

/**
 * A resource registered outside this module whose every method passes the lakehouse's check with the caller's
 * principal ({@link RequestPrincipals#current()}), as the Iceberg routes do: {@link NativeAccessFilter} lets it
 * through instead of asking for {@code ALL} on the root. (Hive's HTTP transport, served by the server module.)
 */
public interface ChecksItsOwnAccess {}
