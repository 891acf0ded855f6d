package io.treecat.benchmarks;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A TCP proxy on loopback that gives every HTTP/1.1 request a fixed latency, as an object store's
 * time to first byte: the first bytes of each response reach the client no earlier than {@code
 * delay} after the first bytes of its request reached the proxy. A keep-alive connection therefore
 * pays the delay once per request, not per TCP segment, and a connection's requests pay it one after
 * the other while separate connections pay it in parallel, as they would against a real store.
 *
 * <p>It reads just enough HTTP to find where requests and responses begin, and assumes what HTTP/1.1
 * clients without pipelining do (the AWS SDK's Apache client among them): a connection sends its next
 * request only after the previous response has begun. Client bytes that arrive while no request is
 * outstanding begin a request; the next server bytes begin its response. An interim {@code 1xx}
 * response (the {@code 100 Continue} an SDK {@code PutObject} waits for before sending its body) is
 * passed through at once and does not end the request: the store's latency is then paid once, by the
 * final response, not once per round trip. Bodies are copied as they come, never buffered.
 *
 * <p>Each connection costs two threads (one per direction), which is plenty for a benchmark's few
 * hundred connections and keeps the delay exact: a response waits on its own connection's thread only.
 */
public final class LatencyProxy implements AutoCloseable {
    private static final int BUFFER = 64 * 1024;

    private final InetSocketAddress upstream;
    private final long delayNanos;
    private final ServerSocket server;
    private final ExecutorService threads;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong connections = new AtomicLong();
    private final ConcurrentHashMap<String, LongAdder> methods = new ConcurrentHashMap<>();
    private volatile boolean closed;

    private LatencyProxy(InetSocketAddress upstream, Duration delay) throws IOException {
        this.upstream = requireNonNull(upstream, "upstream is null");
        requireNonNull(delay, "delay is null");
        if (delay.isNegative()) {
            throw new IllegalArgumentException("Negative delay: " + delay);
        }
        this.delayNanos = delay.toNanos();
        this.server = new ServerSocket(0, 512, InetAddress.getLoopbackAddress());
        this.threads = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "latency-proxy");
            thread.setDaemon(true);
            return thread;
        });
        threads.execute(this::acceptLoop);
    }

    /** Starts a proxy on a free loopback port in front of {@code upstream}. */
    public static LatencyProxy start(InetSocketAddress upstream, Duration delay) throws IOException {
        return new LatencyProxy(upstream, delay);
    }

    public int port() {
        return server.getLocalPort();
    }

    /** {@code http://127.0.0.1:<port>}, for an S3 client's endpoint. */
    public String endpoint() {
        return "http://127.0.0.1:" + port();
    }

    /** The requests whose response has begun so far (interim {@code 1xx} responses not counted). */
    public long requests() {
        return requests.get();
    }

    /**
     * The requests begun so far by HTTP method ({@code GET}, {@code PUT}, ...), read from each request's first bytes;
     * {@code ?} when those did not hold a whole method. A snapshot, sorted by method.
     */
    public Map<String, Long> requestsByMethod() {
        Map<String, Long> counts = new TreeMap<>();
        methods.forEach((method, count) -> counts.put(method, count.sum()));
        return counts;
    }

    /** The client connections accepted so far. */
    public long connections() {
        return connections.get();
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                if (closed) {
                    return;
                }
                continue;
            }
            connections.incrementAndGet();
            try {
                Socket target = new Socket();
                // Nagle's algorithm with delayed ACKs would add its own 40 ms to small requests.
                target.setTcpNoDelay(true);
                target.connect(upstream, 10_000);
                client.setTcpNoDelay(true);
                Connection connection = new Connection(client, target);
                sockets.add(client);
                sockets.add(target);
                threads.execute(connection::requests);
                threads.execute(connection::responses);
            } catch (IOException | RuntimeException e) {
                closeQuietly(client);
            }
        }
    }

    /** One client connection and its upstream connection; the two threads share the request's start. */
    private final class Connection {
        private final Socket client;
        private final Socket target;
        /** Set by the request side when a request begins; cleared by the response side when its final response begins. */
        private volatile boolean outstanding;
        /** When the outstanding request's first bytes arrived (System.nanoTime). */
        private volatile long requestStart;

        Connection(Socket client, Socket target) {
            this.client = client;
            this.target = target;
        }

        /** Client to store: forwarded at once; bytes that arrive with no request outstanding begin one. */
        void requests() {
            byte[] buffer = new byte[BUFFER];
            try (InputStream in = client.getInputStream();
                    OutputStream out = target.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    if (n == 0) {
                        continue;
                    }
                    if (!outstanding) {
                        requestStart = System.nanoTime();
                        outstanding = true;
                        methods.computeIfAbsent(method(buffer, n), key -> new LongAdder())
                                .increment();
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
                target.shutdownOutput();
            } catch (IOException e) {
                // the peer closed or reset; closing both ends below ends the other direction too
            } finally {
                close();
            }
        }

        /**
         * Store to client: the first bytes after a request began are held until its delay has passed, unless
         * they are an interim {@code 1xx} response, which goes at once; everything else is copied as it comes.
         */
        void responses() {
            byte[] buffer = new byte[BUFFER];
            try (InputStream in = target.getInputStream();
                    OutputStream out = client.getOutputStream()) {
                int length = 0;
                // While an interim response's header block is passing: how much of "\r\n\r\n" has been seen.
                int interimMatched = -1;
                while (true) {
                    int n = in.read(buffer, length, buffer.length - length);
                    if (n < 0) {
                        out.write(buffer, 0, length);
                        out.flush();
                        break;
                    }
                    length += n;
                    int from = 0;
                    while (from < length) {
                        if (interimMatched >= 0) {
                            // Pass the rest of the interim header block through, up to and including its blank line.
                            int end = from;
                            while (end < length && interimMatched < 4) {
                                interimMatched = buffer[end] == "\r\n\r\n".charAt(interimMatched)
                                        ? interimMatched + 1
                                        : (buffer[end] == '\r' ? 1 : 0);
                                end++;
                            }
                            out.write(buffer, from, end - from);
                            from = end;
                            if (interimMatched == 4) {
                                interimMatched = -1;
                            }
                            continue;
                        }
                        if (!outstanding) {
                            // More of a response already under way (a body), or bytes no request asked for.
                            out.write(buffer, from, length - from);
                            from = length;
                            continue;
                        }
                        // A response begins: wait for its status line's first digit to tell interim from final.
                        if (length - from < STATUS_PREFIX) {
                            break;
                        }
                        if (isInterim(buffer, from)) {
                            interimMatched = 0;
                            continue;
                        }
                        long wait = requestStart + delayNanos - System.nanoTime();
                        if (wait > 0) {
                            TimeUnit.NANOSECONDS.sleep(wait);
                        }
                        outstanding = false;
                        requests.incrementAndGet();
                        out.write(buffer, from, length - from);
                        from = length;
                    }
                    out.flush();
                    // Keep a partial status line for the next read; everything else has been written.
                    if (from < length) {
                        System.arraycopy(buffer, from, buffer, 0, length - from);
                        length -= from;
                    } else {
                        length = 0;
                    }
                }
            } catch (IOException e) {
                // the peer closed or reset
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                close();
            }
        }

        private void close() {
            closeQuietly(client);
            closeQuietly(target);
            sockets.remove(client);
            sockets.remove(target);
        }
    }

    /** The method of a request line at the start of {@code buffer}: the letters before its first space. */
    private static String method(byte[] buffer, int length) {
        for (int i = 0; i < Math.min(length, 16); i++) {
            if (buffer[i] == ' ') {
                return i == 0 ? "?" : new String(buffer, 0, i, StandardCharsets.ISO_8859_1);
            }
            if (buffer[i] < 'A' || buffer[i] > 'Z') {
                return "?";
            }
        }
        return "?";
    }

    /** "HTTP/1.1 1": enough of a status line to know an interim response. */
    private static final int STATUS_PREFIX = "HTTP/1.1 1".length();

    private static boolean isInterim(byte[] buffer, int from) {
        String prefix = new String(buffer, from, STATUS_PREFIX, StandardCharsets.ISO_8859_1);
        return prefix.startsWith("HTTP/1.") && prefix.charAt(STATUS_PREFIX - 1) == '1';
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        for (Socket socket : sockets) {
            closeQuietly(socket);
        }
        threads.shutdownNow();
    }
}
