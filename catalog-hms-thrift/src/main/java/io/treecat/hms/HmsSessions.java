package io.treecat.hms;

import io.treecat.lakehouse.auth.DeniedAttempts;
import io.treecat.lakehouse.auth.Principal;
import java.util.HashMap;
import java.util.Map;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.server.ServerContext;
import org.apache.thrift.server.TServerEventHandler;
import org.apache.thrift.server.TThreadPoolServer;
import org.apache.thrift.transport.TTransport;

/**
 * Per-connection state: who the connection proved to be ({@link HmsAuthTransport}), and the metastore settings a client changed with {@code setMetaConf}, which Hive keeps
 * for its connection only (its {@code HMSHandlerContext}) and forgets when the connection closes.
 *
 * <p>{@link TThreadPoolServer} serves each connection on one thread and tells this handler when a
 * connection opens ({@link #createContext}), before each of its calls ({@link #processContext}) and when
 * it closes ({@link #deleteContext}); the call areas read the current connection's {@link Session} through
 * {@link #current()} on that thread.
 */
final class HmsSessions implements TServerEventHandler {
    private final ThreadLocal<Session> current = new ThreadLocal<>();

    /** One connection's state. Only its own thread touches it. */
    static final class Session implements ServerContext {
        private final Map<String, String> settings = new HashMap<>();
        private final Principal principal;
        /** The client's address, for the denied-attempts log ("unknown" outside a served connection). */
        private String client = "unknown";

        /** @param principal who its calls run as; null: nobody, its calls are refused ({@link HmsAuthGate}) */
        Session(Principal principal) {
            this.principal = principal;
        }

        /** Who its calls run as; null when the connection may make none. */
        Principal principal() {
            return principal;
        }

        /** The value this connection set for {@code key} (exactly as it spelled the key); null if none. */
        String setting(String key) {
            return settings.get(key);
        }

        void set(String key, String value) {
            settings.put(key, value);
        }

        @Override
        public <T> T unwrap(Class<T> type) {
            if (type.isInstance(this)) {
                return type.cast(this);
            }
            throw new IllegalArgumentException("Not a " + type.getName());
        }

        @Override
        public boolean isWrapperFor(Class<?> type) {
            return type.isInstance(this);
        }
    }

    /**
     * The session of the connection this thread serves; a call made outside a served connection (a test
     * calling an area directly) gets one of its own, kept for the thread.
     */
    Session current() {
        Session session = current.get();
        if (session == null) {
            session = new Session(Principal.ANONYMOUS);
            current.set(session);
        }
        return session;
    }

    @Override
    public void preServe() {}

    @Override
    public ServerContext createContext(TProtocol input, TProtocol output) {
        HmsConnection connection = HmsConnection.of(input.getTransport());
        Session session = new Session(connection == null ? Principal.ANONYMOUS : connection.principal());
        session.client = connection == null || connection.address() == null
                ? "unknown"
                : connection.address().getHostAddress();
        current.set(session);
        return session;
    }

    @Override
    public void processContext(ServerContext context, TTransport input, TTransport output) {
        Session session = (Session) context;
        current.set(session);
        // A refusal of this call is recorded as the Thrift port's, from this connection's client.
        DeniedAttempts.bind("hms", session.client);
    }

    /** Who the current connection's calls run as (the anonymous principal outside a served connection). */
    Principal principal() {
        Principal principal = current().principal();
        return principal == null ? Principal.ANONYMOUS : principal;
    }

    /**
     * Runs {@code work} on this thread as one call of a connection of its own, made by {@code principal}: how the HTTP
     * transport serves each request (one request, one call, no settings kept).
     */
    <T, E extends Exception> T callAs(Principal principal, Work<T, E> work) throws E {
        Session saved = current.get();
        current.set(new Session(principal));
        try {
            return work.run();
        } finally {
            if (saved == null) {
                current.remove();
            } else {
                current.set(saved);
            }
        }
    }

    /** What {@link #callAs} runs. */
    @FunctionalInterface
    interface Work<T, E extends Exception> {
        T run() throws E;
    }

    @Override
    public void deleteContext(ServerContext context, TProtocol input, TProtocol output) {
        current.remove();
        DeniedAttempts.unbind();
    }
}
