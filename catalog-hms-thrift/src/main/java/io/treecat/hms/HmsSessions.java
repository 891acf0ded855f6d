package io.treecat.hms;

import java.util.HashMap;
import java.util.Map;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.server.ServerContext;
import org.apache.thrift.server.TServerEventHandler;
import org.apache.thrift.server.TThreadPoolServer;
import org.apache.thrift.transport.TTransport;

/**
 * Per-connection state: the metastore settings a client changed with {@code setMetaConf}, which Hive keeps
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
            session = new Session();
            current.set(session);
        }
        return session;
    }

    @Override
    public void preServe() {}

    @Override
    public ServerContext createContext(TProtocol input, TProtocol output) {
        Session session = new Session();
        current.set(session);
        return session;
    }

    @Override
    public void processContext(ServerContext context, TTransport input, TTransport output) {
        current.set((Session) context);
    }

    @Override
    public void deleteContext(ServerContext context, TProtocol input, TProtocol output) {
        current.remove();
    }
}
