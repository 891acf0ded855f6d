package io.treecat.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 written byte by byte on a socket, for what Java's HTTP client will not send: a body that
 * stops arriving, a malformed chunked framing, a body that is not what its {@code Content-Encoding}
 * says. Each request is sent on its own connection and the answer read whole.
 */
final class RawHttp {
    private RawHttp() {}

    /** One answer: status, headers (names lower-cased), body, and how long it took from the last byte sent. */
    record Answer(int status, Map<String, String> headers, String body, long millis) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    /** The head of a request (request line and headers) with the blank line after it. */
    static byte[] head(String method, String path, String... headers) {
        StringBuilder head = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        for (String header : headers) {
            head.append(header).append("\r\n");
        }
        return head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            bytes.writeBytes(part);
        }
        return bytes.toByteArray();
    }

    /** Sends {@code request} and reads the answer (the socket gives up after {@code timeoutMillis}). */
    static Answer send(int port, byte[] request, int timeoutMillis) throws IOException {
        return send(port, timeoutMillis, 0, request);
    }

    /** Sends the parts with {@code pauseMillis} between them (a slow but moving body), then reads the answer. */
    static Answer send(int port, int timeoutMillis, long pauseMillis, byte[]... parts) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(timeoutMillis);
            OutputStream out = socket.getOutputStream();
            for (int i = 0; i < parts.length; i++) {
                if (i > 0 && pauseMillis > 0) {
                    pause(pauseMillis);
                }
                out.write(parts[i]);
                out.flush();
            }
            long sent = System.nanoTime();
            return read(socket.getInputStream(), sent);
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static Answer read(InputStream in, long sent) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        int headEnd = -1;
        int contentLength = -1;
        try {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                bytes.write(buffer, 0, n);
                String text = bytes.toString(StandardCharsets.ISO_8859_1);
                if (headEnd < 0 && (headEnd = text.indexOf("\r\n\r\n")) >= 0) {
                    contentLength = contentLength(text.substring(0, headEnd));
                }
                if (headEnd >= 0 && contentLength >= 0 && bytes.size() >= headEnd + 4 + contentLength) {
                    break;
                }
            }
        } catch (SocketTimeoutException e) {
            if (headEnd < 0) {
                throw e;
            }
        }
        long millis = (System.nanoTime() - sent) / 1_000_000;
        String response = bytes.toString(StandardCharsets.UTF_8);
        int split = response.indexOf("\r\n\r\n");
        if (split < 0) {
            throw new IOException("No HTTP answer: " + response);
        }
        String[] lines = response.substring(0, split).split("\r\n");
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.put(
                    lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                    lines[i].substring(colon + 1).trim());
        }
        return new Answer(Integer.parseInt(lines[0].split(" ")[1]), headers, response.substring(split + 4), millis);
    }

    /**
     * The bytes of the first answer on {@code in} to a {@code method} request: its head and the body its
     * {@code Content-Length} gives (none for HEAD, 1xx, 204 and 304), or up to the end of the stream when the length is
     * not given; at most {@code maxBytes}. Empty when the server closed without answering.
     */
    static byte[] firstAnswer(InputStream in, String method, int maxBytes) throws IOException {
        InputStream buffered = new java.io.BufferedInputStream(in);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int last4 = 0;
        long end = -1;
        while (bytes.size() < maxBytes && (end < 0 || bytes.size() < end)) {
            int b = buffered.read();
            if (b < 0) {
                break;
            }
            bytes.write(b);
            last4 = (last4 << 8) | b;
            if (end < 0 && last4 == 0x0D0A0D0A) {
                String head = bytes.toString(StandardCharsets.ISO_8859_1);
                String status = head.length() >= 12 ? head.substring(9, 12) : "";
                long length;
                if (method.equals("HEAD") || status.startsWith("1") || status.equals("204") || status.equals("304")) {
                    length = 0;
                } else {
                    try {
                        length = contentLength(head);
                    } catch (NumberFormatException notANumber) {
                        length = -1;
                    }
                }
                end = length < 0 ? Long.MAX_VALUE : bytes.size() + length;
            }
        }
        return bytes.toByteArray();
    }

    private static int contentLength(String head) {
        for (String line : head.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                return Integer.parseInt(
                        line.substring("content-length:".length()).trim());
            }
        }
        return -1;
    }
}
