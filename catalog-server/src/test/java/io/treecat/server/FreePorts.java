package io.treecat.server;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Loopback ports for the servers and emulators a test starts in another process, which must be told a port before
 * they bind it. The kernel may offer a port again until someone binds it, so each is handed out once per JVM: a
 * group's Raft ports, chosen before its servers start, once went to another node's HMS listener.
 */
final class FreePorts {
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    private FreePorts() {}

    /** A loopback port free now and never handed out before in this JVM. */
    static int next() throws IOException {
        while (true) {
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                if (HANDED_OUT.add(socket.getLocalPort())) {
                    return socket.getLocalPort();
                }
            }
        }
    }
}
