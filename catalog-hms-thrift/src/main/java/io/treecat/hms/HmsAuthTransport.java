package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.lakehouse.auth.Principal;
import java.nio.charset.StandardCharsets;
import javax.security.sasl.SaslException;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.apache.thrift.transport.TTransportFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells who a new connection is before its first call, on the worker thread that serves it, and hands back the
 * transport its calls are read through (docs/security.md, "Hive Metastore clients").
 *
 * <p>The first byte decides. Thrift's SASL transport (what Hive's {@code TSaslClientTransport} speaks) opens with a
 * {@code START} message, status byte {@code 0x01}; a Thrift binary call opens with {@code 0x80} (the strict version),
 * and a framed one with the high byte of its frame size, {@code 0x00} under 16 MiB. So:
 *
 * <ul>
 *   <li>{@code START}: the SASL handshake, PLAIN only ({@link HmsPlainSaslServer}); then SASL's data frames, a 4-byte
 *       length before each message, which is Thrift's framed format: read by {@link HmsFramedTransport} under
 *       {@code hms.max-frame-size}, whatever {@code hms.framed-transport} says (Hive's client never frames a SASL
 *       connection again). Wrong credentials are answered {@code BAD} with a fixed message, and the connection
 *       closes.
 *   <li>anything else: a client without SASL, served as {@link Principal#ANONYMOUS} when {@link
 *       HmsAuthentication#allowUnauthenticated()}, else served nothing: {@link HmsAuthGate} answers each of its calls
 *       with an error naming the client settings.
 * </ul>
 *
 * <p>Why not libthrift's {@code TSaslServerTransport}: it finds mechanisms only through JVM-wide security providers
 * (the JDK has no PLAIN server, so one would have to be registered globally); it allocates each data frame's declared
 * size, up to 2 GiB, before the bytes arrive (the reason {@link HmsFramedTransport} replaced {@code TFramedTransport});
 * and its factory turns every failed handshake into a {@code RuntimeException} that {@code TThreadPoolServer} logs as
 * an error with a stack trace, one per wrong password. The handshake is small enough to read here, with its own
 * limits: a mechanism name of at most {@value #MAX_MECHANISM_BYTES} bytes, a PLAIN message of at most {@value
 * #MAX_RESPONSE_BYTES}.
 *
 * <p>{@code TThreadPoolServer} asks the factory twice per connection (input and output): both get the one transport,
 * kept on the {@link HmsConnection}.
 */
final class HmsAuthTransport extends TTransportFactory {
    private static final Logger LOG = LoggerFactory.getLogger(HmsAuthTransport.class);

    // Thrift's SASL negotiation status bytes (libthrift's NegotiationStatus).
    static final byte START = 0x01;
    static final byte OK = 0x02;
    static final byte BAD = 0x03;
    static final byte ERROR = 0x04;
    static final byte COMPLETE = 0x05;

    /** RFC 4422: mechanism names are at most 20 characters. */
    static final int MAX_MECHANISM_BYTES = 20;
    /** RFC 4616 asks servers to take 255 octets of each of authzid, authcid and passwd, with two NULs: 767. */
    static final int MAX_RESPONSE_BYTES = 1024;

    private final HmsTransportConfig limits;
    private final HmsAuthentication authentication;

    HmsAuthTransport(HmsTransportConfig limits, HmsAuthentication authentication) {
        this.limits = requireNonNull(limits, "limits is null");
        this.authentication = requireNonNull(authentication, "authentication is null");
    }

    @Override
    public TTransport getTransport(TTransport transport) throws TTransportException {
        HmsConnection connection = HmsConnection.of(transport);
        if (connection == null) {
            throw new TTransportException(
                    "Not an HMS connection: " + transport.getClass().getName());
        }
        TTransport served = connection.served();
        if (served == null) {
            served = negotiate(connection);
            connection.serve(served);
        }
        return served;
    }

    private TTransport negotiate(HmsConnection connection) throws TTransportException {
        int first = connection.peekByte();
        if (first < 0) {
            throw new TTransportException(TTransportException.END_OF_FILE, "Closed before its first call");
        }
        if (first == START) {
            connection.authenticated(sasl(connection));
            return new HmsFramedTransport(connection, limits.maxFrameBytes());
        }
        if (authentication.allowUnauthenticated()) {
            connection.authenticated(Principal.ANONYMOUS);
        } else {
            // HmsAuthGate answers its calls: no principal, nothing served.
            connection.refuseCalls();
        }
        return limits.framed() ? new HmsFramedTransport(connection, limits.maxFrameBytes()) : connection;
    }

    /** The PLAIN handshake: the principal proved, or the connection answered BAD/ERROR and closed. */
    private Principal sasl(HmsConnection connection) throws TTransportException {
        byte[] mechanism = receive(connection, START, START, MAX_MECHANISM_BYTES, "mechanism name");
        if (!HmsPlainSaslServer.MECHANISM.equals(new String(mechanism, StandardCharsets.US_ASCII))) {
            throw refuse(connection, BAD, "Unsupported SASL mechanism: this metastore takes PLAIN only");
        }
        // Hive's PLAIN client sends its one message as COMPLETE (it is done); other clients may say OK.
        byte[] response = receive(connection, OK, COMPLETE, MAX_RESPONSE_BYTES, "PLAIN message");
        HmsPlainSaslServer server = new HmsPlainSaslServer(authentication.plain());
        Principal principal;
        try {
            server.evaluateResponse(response);
            principal = server.principal();
        } catch (SaslException e) {
            // Fixed words only: the message never holds what the client sent.
            throw refuse(connection, BAD, e.getMessage());
        } finally {
            server.dispose();
        }
        send(connection, COMPLETE, new byte[0]);
        LOG.debug("HMS Thrift connection from {} authenticated as {}", connection.peer(), principal.name());
        return principal;
    }

    /**
     * One SASL message: its status must be {@code expected} or {@code alsoExpected} and its payload at most {@code
     * max} bytes, read only once it is known to fit (nothing is allocated for a declared size beyond it).
     */
    private static byte[] receive(HmsConnection connection, byte expected, byte alsoExpected, int max, String what)
            throws TTransportException {
        byte[] header = new byte[5];
        connection.readAll(header, 0, header.length);
        byte status = header[0];
        int length = ((header[1] & 0xff) << 24)
                | ((header[2] & 0xff) << 16)
                | ((header[3] & 0xff) << 8)
                | (header[4] & 0xff);
        if (status != expected && status != alsoExpected) {
            throw refuse(
                    connection, ERROR, "Unexpected SASL negotiation status " + status + " (expected the " + what + ")");
        }
        if (length < 0 || length > max) {
            throw refuse(
                    connection,
                    ERROR,
                    "SASL " + what + " of " + Integer.toUnsignedString(length) + " bytes is longer than " + max);
        }
        byte[] payload = new byte[length];
        connection.readAll(payload, 0, length);
        return payload;
    }

    private static void send(HmsConnection connection, byte status, byte[] payload) throws TTransportException {
        byte[] message = new byte[5 + payload.length];
        message[0] = status;
        message[1] = (byte) (payload.length >>> 24);
        message[2] = (byte) (payload.length >>> 16);
        message[3] = (byte) (payload.length >>> 8);
        message[4] = (byte) payload.length;
        System.arraycopy(payload, 0, message, 5, payload.length);
        connection.write(message, 0, message.length);
        connection.flush();
    }

    /**
     * Tells the client why (Hive's client raises "Peer indicated failure: " and the reason), logs it without anything
     * the client sent, closes the connection, and answers what ends it quietly (END_OF_FILE: no stack trace per
     * refused client in the server log).
     */
    private static TTransportException refuse(HmsConnection connection, byte status, String reason) {
        LOG.info("HMS Thrift connection from {} refused: {}", connection.peer(), reason);
        try {
            send(connection, status, reason.getBytes(StandardCharsets.UTF_8));
        } catch (TTransportException e) {
            // The client went away: nothing to tell it.
        }
        connection.close();
        return new TTransportException(TTransportException.END_OF_FILE, reason);
    }
}
