package io.treecat.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A TCP relay on loopback to one port, which records every byte its clients send: to see what a client really asked
 * (the catalog's credentials route, the key id in an S3 request's SigV4 {@code Authorization}, STS's
 * {@code AssumeRole} with its session policy). It changes nothing, so signatures over the {@code Host} header still
 * hold: the target checks them against the relay's address, which the client signed.
 */
final class TcpRelay implements AutoCloseable {
    private final int targetPort;
    private final ServerSocket server;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final StringBuilder sent = new StringBuilder();
    private final List<Socket> sockets = new ArrayList<>();

    TcpRelay(int targetPort) throws IOException {
        this.targetPort = targetPort;
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        threads.execute(this::accept);
    }

    String endpoint() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    /** Everything clients have sent so far, as ISO-8859-1 text (connections interleave at read boundaries). */
    String sent() {
        synchronized (sent) {
            return sent.toString();
        }
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket target = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                synchronized (sockets) {
                    sockets.add(client);
                    sockets.add(target);
                }
                threads.execute(() -> pump(client, target, true));
                threads.execute(() -> pump(target, client, false));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void pump(Socket from, Socket to, boolean record) {
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
                if (record) {
                    synchronized (sent) {
                        sent.append(new String(buffer, 0, read, StandardCharsets.ISO_8859_1));
                    }
                }
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException e) {
            // The other side closed.
        } finally {
            closeQuietly(to);
            closeQuietly(from);
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // Closing.
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        synchronized (sockets) {
            sockets.forEach(TcpRelay::closeQuietly);
        }
        threads.shutdownNow();
    }
}
