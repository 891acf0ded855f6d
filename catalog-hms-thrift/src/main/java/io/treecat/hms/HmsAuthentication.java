package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.lakehouse.auth.Principal;
import java.util.Optional;

/**
 * How the Thrift listener tells who a client is (docs/security.md, "Hive Metastore clients").
 *
 * <p>A client that opens with a SASL PLAIN handshake ({@code metastore.client.auth.mode=PLAIN}) is checked by {@code
 * plain}: its calls run as the principal the credentials prove, and wrong credentials close the connection. A client
 * that sends Thrift calls without a handshake is served as {@link Principal#ANONYMOUS} if {@code
 * allowUnauthenticated}, else answered with an error naming the client setting, and closed.
 *
 * @param allowUnauthenticated whether clients without SASL are served (as anonymous)
 * @param plain checks a PLAIN user (a built-in principal's client id) and password (its secret)
 */
public record HmsAuthentication(boolean allowUnauthenticated, PlainCheck plain) {
    /** Checks a client id and secret: the principal they prove, or empty, in about the same time either way. */
    @FunctionalInterface
    public interface PlainCheck {
        Optional<Principal> authenticate(String user, String password);
    }

    public HmsAuthentication {
        requireNonNull(plain, "plain is null");
    }

    /** Every client served as anonymous, and no credentials accepted: tests and tools that run no authentication. */
    public static HmsAuthentication none() {
        return new HmsAuthentication(true, (user, password) -> Optional.empty());
    }
}
