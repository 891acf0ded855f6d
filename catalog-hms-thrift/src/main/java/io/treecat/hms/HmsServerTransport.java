package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.net.ServerSocketFactory;
import javax.net.ssl.SSLSocket;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.transport.TMemoryBuffer;
import org.apache.thrift.transport.TServerTransport;
import org.apache.thrift.transport.TTransportException;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listening socket: accepts connections with the idle timeout and the request limits of {@link
 * HmsTransportConfig}, and at most {@code maxConnectionsPerClient} open connections per client address.
 *
 * <p>libthrift's {@code TServerSocket} gives each accepted socket a default {@code TConfiguration} and no way to
 * count connections; this one hands out {@link HmsConnection}s that free their address's slot when they close.
 *
 * <p>A connection over its address's cap never reaches a worker. It is answered with a {@code
 * TApplicationException(INTERNAL_ERROR)} saying why (Hive's {@code RetryingMetaStoreClient} reconnects and retries
 * on that) and closed; the first refusal from an address is logged, the rest until one of its connections is
 * accepted again are not, so a flood cannot flood the log. Refused sockets are drained briefly by one thread before
 * they close, so the client reads the answer instead of a reset.
 */
final class HmsServerTransport extends TServerTransport {
    private static final Logger LOG = LoggerFactory.getLogger(HmsServerTransport.class);
    private static final int DRAIN_MILLIS = 1000;
    private static final int DRAIN_BYTES = 64 * 1024;

    private final ServerSocket serverSocket;
    private final HmsTransportConfig limits;
    private final TConfiguration configuration;
    private final Map<InetAddress, Integer> open = new ConcurrentHashMap<>();
    private final Set<InetAddress> refusing = ConcurrentHashMap.newKeySet();
    /** The accepted sockets not yet closed, so that {@link #close()} can end the connections of idle clients. */
    private final Set<Socket> live = ConcurrentHashMap.newKeySet();

    private final ThreadPoolExecutor drainer;
    private final byte[] refusal;

    HmsServerTransport(InetSocketAddress address, HmsTransportConfig limits, ServerSocketFactory sockets)
            throws TTransportException {
        this.limits = requireNonNull(limits, "limits is null");
        this.configuration = TConfiguration.custom()
                .setMaxMessageSize(limits.maxMessageBytes())
                .setMaxFrameSize(limits.maxFrameBytes())
                .setRecursionLimit(limits.maxDepth())
                .build();
        this.refusal = refusal(limits.framed());
        try {
            ServerSocket socket = sockets.createServerSocket();
            // As TServerSocket: no 2MSL wait to bind again after a restart.
            socket.setReuseAddress(true);
            socket.bind(address);
            this.serverSocket = socket;
        } catch (IOException e) {
            throw new TTransportException("Could not bind " + address, e);
        }
        this.drainer =
                new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(64), runnable -> {
                    Thread thread = new Thread(runnable, "treecat-hms-refused");
                    thread.setDaemon(true);
                    return thread;
                });
    }

    ServerSocket serverSocket() {
        return serverSocket;
    }

    /** How many connections {@code address} holds open (tests). */
    int openConnections(InetAddress address) {
        return open.getOrDefault(address, 0);
    }

    @Override
    public void listen() {}

    @Override
    public HmsConnection accept() throws TTransportException {
        while (true) {
            Socket socket;
            try {
                socket = serverSocket.accept();
            } catch (IOException e) {
                throw new TTransportException(e);
            }
            InetAddress address = socket.getInetAddress();
            if (!admit(address)) {
                refuse(socket);
                continue;
            }
            try {
                socket.setSoTimeout((int) limits.clientIdleTimeout().toMillis());
                socket.setTcpNoDelay(true);
                socket.setKeepAlive(true);
                live.add(socket);
                return new HmsConnection(socket, configuration, () -> release(address, socket));
            } catch (IOException | TTransportException e) {
                LOG.debug("Could not set up the HMS connection from {}", address.getHostAddress(), e);
                closeQuietly(socket);
                release(address, socket);
            }
        }
    }

    private boolean admit(InetAddress address) {
        boolean[] admitted = new boolean[1];
        open.compute(address, (key, count) -> {
            int current = count == null ? 0 : count;
            admitted[0] = current < limits.maxConnectionsPerClient();
            return admitted[0] ? current + 1 : current;
        });
        if (admitted[0]) {
            refusing.remove(address);
        } else if (refusing.add(address)) {
            LOG.warn(
                    "HMS Thrift: refusing connections from {}: it holds {} (hms.max-connections-per-client); further"
                            + " refusals are not logged until one of its connections is accepted",
                    address.getHostAddress(),
                    limits.maxConnectionsPerClient());
        }
        return admitted[0];
    }

    private void release(InetAddress address, Socket socket) {
        live.remove(socket);
        open.computeIfPresent(address, (key, count) -> count <= 1 ? null : count - 1);
    }

    private void refuse(Socket socket) {
        if (socket instanceof SSLSocket) {
            // Writing the answer would run the TLS handshake on the accepting thread: a TLS client over its limit
            // is closed without one.
            closeQuietly(socket);
            return;
        }
        try {
            OutputStream out = socket.getOutputStream();
            out.write(refusal);
            out.flush();
            socket.shutdownOutput();
            drainer.execute(() -> drain(socket));
        } catch (IOException | RejectedExecutionException e) {
            closeQuietly(socket);
        }
    }

    /** Reads what the client sent until it closes (after reading the answer) or a second passes, then closes. */
    private static void drain(Socket socket) {
        try (socket) {
            socket.setSoTimeout(DRAIN_MILLIS);
            InputStream in = socket.getInputStream();
            byte[] discard = new byte[4096];
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DRAIN_MILLIS);
            int total = 0;
            while (total < DRAIN_BYTES && System.nanoTime() < deadline) {
                int read = in.read(discard);
                if (read < 0) {
                    break;
                }
                total += read;
            }
        } catch (IOException e) {
            // Timed out or reset: closed either way.
        }
    }

    /** The answer to a refused connection, as a reply to whatever call it sends first. */
    private static byte[] refusal(boolean framed) throws TTransportException {
        TMemoryBuffer buffer = new TMemoryBuffer(256);
        TBinaryProtocol protocol = new TBinaryProtocol(buffer);
        try {
            protocol.writeMessageBegin(new TMessage("", TMessageType.EXCEPTION, 0));
            new TApplicationException(
                            TApplicationException.INTERNAL_ERROR,
                            "Too many connections from this client address (hms.max-connections-per-client);"
                                    + " retry later")
                    .write(protocol);
            protocol.writeMessageEnd();
        } catch (TException e) {
            throw new TTransportException(e);
        }
        byte[] message = Arrays.copyOf(buffer.getArray(), buffer.length());
        if (!framed) {
            return message;
        }
        byte[] frame = new byte[4 + message.length];
        TFramedTransport.encodeFrameSize(message.length, frame);
        System.arraycopy(message, 0, frame, 4, message.length);
        return frame;
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // Nothing left to do with it.
        }
    }

    /**
     * Stops accepting and ends every open connection's input. A worker waiting for an idle client's next call reads
     * the end of the stream and ends (libthrift's server otherwise waits for them until its stop timeout, and an idle
     * Hive client holds its connection open for hours); a worker in a call still writes its answer, then ends. A TLS
     * socket cannot end one direction only: it is closed, so a call in flight on it loses its answer.
     */
    @Override
    public void close() {
        closeQuietly(serverSocket);
        drainer.shutdownNow();
        for (Socket socket : live) {
            try {
                if (socket instanceof SSLSocket) {
                    socket.close();
                } else {
                    socket.shutdownInput();
                }
            } catch (IOException e) {
                // Closed under us: its worker ends either way.
            }
        }
    }

    private static void closeQuietly(ServerSocket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            LOG.warn("Could not close the HMS server socket", e);
        }
    }

    @Override
    public void interrupt() {
        close();
    }
}
