package io.treecat.server;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Keeps the loggers that print credentials at DEBUG or TRACE at INFO, whatever {@code logging.level} or
 * {@code logging.loggers} ask for: at DEBUG the HTTP clients under the object-store SDKs print every request header
 * (S3's {@code Authorization} with the access key id, {@code x-amz-security-token}), the AWS signer its canonical
 * request with the token's value, and Jetty's and gRPC's transports the callers' bearer tokens. Turning the server's
 * level down to debug something else must not put those in the log.
 */
final class SecretBearingLoggers {
    /** Each logger and the loggers under it. */
    static final List<String> CAPPED = List.of(
            // Apache HttpClient 4 (the AWS SDK's apache-client): request and response headers, and the raw bytes.
            "org.apache.http.headers",
            "org.apache.http.wire",
            // Apache HttpClient 5, should a library bring it.
            "org.apache.hc.client5.http.headers",
            "org.apache.hc.client5.http.wire",
            // The AWS SDK's SigV4 signers: the canonical request holds the signed headers' values.
            "software.amazon.awssdk.auth.signer",
            "software.amazon.awssdk.http.auth",
            // Jetty's request parsing and dispatch print the headers a client sent (Authorization: Bearer …).
            "org.eclipse.jetty.http.HttpParser",
            "org.eclipse.jetty.server.HttpChannel",
            "org.eclipse.jetty.server.HttpConnection",
            "org.eclipse.jetty.server.Request",
            // gRPC's Netty transport prints inbound and outbound header frames (the authorization metadata).
            "io.grpc.netty",
            "io.grpc.netty.shaded.io.grpc.netty");

    private SecretBearingLoggers() {}

    /** Caps the loggers; returns those that had been asked to print more than INFO. */
    static List<String> cap() {
        List<String> lowered = new ArrayList<>();
        for (String name : CAPPED) {
            Logger logger = (Logger) LoggerFactory.getLogger(name);
            if (!logger.getEffectiveLevel().isGreaterOrEqual(Level.INFO)) {
                lowered.add(name);
            }
            if (logger.getLevel() == null || !logger.getLevel().isGreaterOrEqual(Level.INFO)) {
                logger.setLevel(Level.INFO);
            }
        }
        return lowered;
    }
}
