package io.treecat.lakehouse.storage;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.time.Instant;

/**
 * Asks the store's token service for short-lived credentials (STS {@code AssumeRole}) on behalf of a catalog. The
 * lakehouse decides what is asked for ({@link CredentialVending}: the role, the table's session policy, the
 * duration); the server supplies the call itself, since only it ships the store's SDK.
 */
@FunctionalInterface
public interface CredentialVendor {
    /** For a server without a store SDK: nothing can be vended. */
    CredentialVendor NONE = (warehouse, request) -> {
        throw new UnsupportedOperationException("This server vends no credentials");
    };

    /**
     * Assumes {@code request}'s role for {@code warehouse}'s catalog, signed by the catalog's own identity.
     *
     * @throws UnsupportedOperationException when the warehouse is not on a store this vendor serves
     * @throws RuntimeException the token service's own failure (an SDK exception), which the caller translates
     */
    Session assumeRole(Warehouse warehouse, Request request);

    /**
     * What to ask for.
     *
     * @param roleArn the role to assume
     * @param externalId what the role's trust policy asks for, or null
     * @param sessionName names the session in the store's audit log (CloudTrail): the catalog and the table
     * @param policy the inline session policy ({@link SessionPolicies}): the credentials can do no more than it allows
     * @param duration how long the credentials last
     */
    record Request(String roleArn, String externalId, String sessionName, String policy, Duration duration) {
        public Request {
            requireNonNull(roleArn, "roleArn is null");
            requireNonNull(sessionName, "sessionName is null");
            requireNonNull(policy, "policy is null");
            requireNonNull(duration, "duration is null");
        }
    }

    /**
     * Credentials the token service issued. {@link #toString} shows neither the secret key nor the token.
     *
     * @param expiration when the token service says they expire
     */
    record Session(String accessKeyId, String secretAccessKey, String sessionToken, Instant expiration) {
        public Session {
            requireNonNull(accessKeyId, "accessKeyId is null");
            requireNonNull(secretAccessKey, "secretAccessKey is null");
            requireNonNull(sessionToken, "sessionToken is null");
            requireNonNull(expiration, "expiration is null");
        }

        @Override
        public String toString() {
            return "Session[accessKeyId=" + accessKeyId + ", expiration=" + expiration + "]";
        }
    }
}
