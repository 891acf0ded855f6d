package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.lakehouse.auth.Principal;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.transport.TIOStreamTransport;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.apache.thrift.transport.layered.TLayeredTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One accepted client connection: the socket's streams, the byte budget of the request being read and the slot it
 * holds in its address's connection count ({@link HmsServerTransport}).
 *
 * <p>libthrift 0.16's {@code TSocket} takes a default {@code TConfiguration} for accepted sockets and never counts
 * the bytes it reads (its message size is only checked against declared sizes), so this transport counts them
 * itself: {@link HmsProtocol} starts a budget of {@code maxMessageBytes} at each message, and a request that reads
 * or declares more closes the connection, as libthrift's "MaxMessageSize reached" does.
 */
final class HmsConnection extends TIOStreamTransport {
    private static final Logger LOG = LoggerFactory.getLogger(HmsConnection.class);
    private static final int BUFFER_BYTES = 8192;

    private final Socket socket;
    private final String peer;
    private final long maxMessageBytes;
    private final Runnable release;
    private final AtomicBoolean closed = new AtomicBoolean();
    private long messageBytesLeft;
    /**
     * Who the connection proved to be ({@link HmsAuthTransport}): anonymous until then and for clients without SASL
     * where those are allowed; null where they are not, so that {@link HmsAuthGate} serves it nothing.
     */
    private volatile Principal principal = Principal.ANONYMOUS;
    /** The transport its calls are read through, once {@link HmsAuthTransport} chose it (one for both directions). */
    private TTransport served;

    /**
     * @param release called once when the connection closes: frees its slot in the per-address count
     */
    HmsConnection(Socket socket, TConfiguration configuration, Runnable release) throws TTransportException {
        super(configuration);
        this.socket = requireNonNull(socket, "socket is null");
        this.release = requireNonNull(release, "release is null");
        this.peer = socket.getInetAddress().getHostAddress();
        this.maxMessageBytes = configuration.getMaxMessageSize();
        this.messageBytesLeft = maxMessageBytes;
        try {
            inputStream_ = new BufferedInputStream(socket.getInputStream(), BUFFER_BYTES);
            outputStream_ = new BufferedOutputStream(socket.getOutputStream(), BUFFER_BYTES);
        } catch (IOException e) {
            close();
            throw new TTransportException(TTransportException.NOT_OPEN, e);
        }
    }

    /** The connection under {@code transport} (a framed layer over one), or null for another transport. */
    static HmsConnection of(TTransport transport) {
        TTransport current = transport;
        while (current instanceof TLayeredTransport layered) {
            current = layered.getInnerTransport();
        }
        return current instanceof HmsConnection connection ? connection : null;
    }

    /** The client's address, for the server log (never sent to a client). */
    String peer() {
        return peer;
    }

    InetAddress address() {
        return socket.getInetAddress();
    }

    /** Who its calls run as; null: nobody (a client without SASL where SASL is required). */
    Principal principal() {
        return principal;
    }

    void refuseCalls() {
        this.principal = null;
    }

    void authenticated(Principal who) {
        this.principal = requireNonNull(who, "who is null");
    }

    TTransport served() {
        return served;
    }

    void serve(TTransport transport) {
        this.served = requireNonNull(transport, "transport is null");
    }

    /**
     * The next byte the client sends, left unread (the first byte tells a SASL handshake from a Thrift call); -1 when
     * the client closed first.
     */
    int peekByte() throws TTransportException {
        try {
            inputStream_.mark(1);
            int next = inputStream_.read();
            inputStream_.reset();
            return next;
        } catch (IOException e) {
            throw new TTransportException(TTransportException.END_OF_FILE, e);
        }
    }

    /** A new request starts: it may read {@code maxMessageBytes} from here. */
    void startMessage() {
        messageBytesLeft = maxMessageBytes;
    }

    @Override
    public int read(byte[] buf, int off, int len) throws TTransportException {
        int read = super.read(buf, off, len);
        messageBytesLeft -= read;
        if (messageBytesLeft < 0) {
            throw tooLarge();
        }
        return read;
    }

    /** A declared size (a string, a container's minimum) that cannot fit in what is left of the request. */
    @Override
    public void checkReadBytesAvailable(long numBytes) throws TTransportException {
        if (numBytes > messageBytesLeft) {
            throw tooLarge();
        }
    }

    private TTransportException tooLarge() {
        String message = "Request larger than hms.max-message-size (" + maxMessageBytes + ")";
        LOG.warn("HMS Thrift connection from {} closed: {}", peer, message);
        // END_OF_FILE, as libthrift's own "MaxMessageSize reached": the server closes the connection quietly.
        return new TTransportException(TTransportException.END_OF_FILE, message);
    }

    @Override
    public boolean isOpen() {
        return !closed.get() && !socket.isClosed();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            super.close();
            socket.close();
        } catch (IOException e) {
            LOG.debug("Closing the HMS connection from {}", peer, e);
        } finally {
            release.run();
        }
    }
}
