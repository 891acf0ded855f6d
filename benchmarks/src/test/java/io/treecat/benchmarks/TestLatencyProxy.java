package io.treecat.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link LatencyProxy} in front of the JDK's own HTTP server on loopback: the delay is paid once per request on a
 * keep-alive connection, not per TCP segment of a large body, not by an interim {@code 100 Continue}, and the bytes
 * arrive intact both ways. Delays are large against loopback times, and the upper bounds are loose, so a loaded
 * machine does not fail the test, while a proxy that delayed per segment or per round trip would.
 */
class TestLatencyProxy {
    private static final Duration DELAY = Duration.ofMillis(200);
    private static final byte[] LARGE = new byte[4 * 1024 * 1024];

    static {
        Arrays.fill(LARGE, (byte) 'x');
    }

    private HttpServer upstream;
    private LatencyProxy proxy;

    @BeforeEach
    void start() throws IOException {
        upstream = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        upstream.createContext("/small", exchange -> {
            byte[] body = "ok".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        upstream.createContext("/large", exchange -> {
            exchange.sendResponseHeaders(200, LARGE.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(LARGE);
            }
        });
        // Answers with the length of the body it received.
        upstream.createContext("/put", exchange -> {
            byte[] received = exchange.getRequestBody().readAllBytes();
            byte[] body = String.valueOf(received.length).getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        upstream.start();
        proxy = LatencyProxy.start(upstream.getAddress(), DELAY);
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
        upstream.stop(0);
    }

    @Test
    void everyRequestOnAKeepAliveConnectionPaysTheDelayOnce() throws Exception {
        HttpClient client =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create(proxy.endpoint() + "/small"))
                .GET()
                .build();
        for (int i = 0; i < 5; i++) {
            long start = System.nanoTime();
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
            long elapsed = System.nanoTime() - start;
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).isEqualTo("ok");
            assertThat(Duration.ofNanos(elapsed)).isGreaterThanOrEqualTo(DELAY);
        }
        assertThat(proxy.connections()).isEqualTo(1);
        assertThat(proxy.requests()).isEqualTo(5);
        assertThat(proxy.requestsByMethod()).isEqualTo(java.util.Map.of("GET", 5L));
    }

    @Test
    void aLargeResponsePaysTheDelayOnceNotPerSegment() throws Exception {
        HttpClient client =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create(proxy.endpoint() + "/large"))
                .GET()
                .build();
        long start = System.nanoTime();
        HttpResponse<byte[]> response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        assertThat(response.body()).isEqualTo(LARGE);
        // 4 MiB is at least 64 reads of 64 KiB: delayed per segment it would take 12.8 s or more.
        assertThat(elapsed).isGreaterThanOrEqualTo(DELAY).isLessThan(DELAY.multipliedBy(15));
        assertThat(proxy.requests()).isEqualTo(1);
    }

    @Test
    void anInterimContinuePassesAtOnceAndTheFinalResponsePaysTheDelayOnce() throws Exception {
        byte[] body = new byte[100_000];
        Arrays.fill(body, (byte) 'y');
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
            socket.setTcpNoDelay(true);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            for (int round = 0; round < 2; round++) {
                long start = System.nanoTime();
                out.write(("PUT /put HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + body.length
                                + "\r\nExpect: 100-continue\r\n\r\n")
                        .getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
                String interim = readHeaderBlock(in);
                Duration toInterim = Duration.ofNanos(System.nanoTime() - start);
                assertThat(interim).startsWith("HTTP/1.1 100");
                assertThat(toInterim).isLessThan(DELAY);

                out.write(body);
                out.flush();
                String headers = readHeaderBlock(in);
                assertThat(headers).startsWith("HTTP/1.1 200");
                byte[] answer = in.readNBytes(contentLength(headers));
                Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
                assertThat(new String(answer, StandardCharsets.UTF_8)).isEqualTo(String.valueOf(body.length));
                // Once the delay (from the request's first bytes), not once for the interim and again for the body.
                assertThat(elapsed).isGreaterThanOrEqualTo(DELAY).isLessThan(DELAY.multipliedBy(2));
            }
        }
        assertThat(proxy.requests()).isEqualTo(2);
        // The body sent after the interim response is part of its request, not a request of its own.
        assertThat(proxy.requestsByMethod()).isEqualTo(java.util.Map.of("PUT", 2L));
    }

    @Test
    void separateConnectionsPayTheDelayInParallel() throws Exception {
        HttpClient client =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create(proxy.endpoint() + "/small"))
                .GET()
                .build();
        long start = System.nanoTime();
        var responses = java.util.stream.IntStream.range(0, 8)
                .mapToObj(i -> client.sendAsync(request, HttpResponse.BodyHandlers.ofString()))
                .toList();
        for (var response : responses) {
            assertThat(response.get().body()).isEqualTo("ok");
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        // One after the other on one connection it would be 8 delays.
        assertThat(elapsed).isGreaterThanOrEqualTo(DELAY).isLessThan(DELAY.multipliedBy(6));
        assertThat(proxy.requests()).isEqualTo(8);
    }

    /** The bytes up to and including the blank line ending a header block. */
    private static String readHeaderBlock(InputStream in) throws IOException {
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("Connection closed inside a header block: " + block);
            }
            block.write(b);
            matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return block.toString(StandardCharsets.ISO_8859_1);
    }

    private static int contentLength(String headers) {
        for (String line : headers.split("\r\n")) {
            if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                return Integer.parseInt(
                        line.substring("content-length:".length()).trim());
            }
        }
        throw new IllegalArgumentException("No Content-Length in " + headers);
    }
}
