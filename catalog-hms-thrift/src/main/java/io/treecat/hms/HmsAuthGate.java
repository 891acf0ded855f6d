package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.apache.thrift.TProcessor;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolUtil;
import org.apache.thrift.protocol.TType;

/**
 * Serves nothing to a connection that may make no call (a client without SASL where SASL is required, {@link
 * HmsAuthTransport}): each of its calls is read whole (under the usual limits), left unrun, and answered with a {@code
 * TApplicationException(UNSUPPORTED_CLIENT_TYPE)} naming the client settings that would authenticate it. The
 * connection stays open, so the client reads the reason on every call (Hive's client sends {@code set_ugi} first and
 * only logs its failure), until it closes or idles out.
 */
final class HmsAuthGate implements TProcessor {
    static final String REQUIRED = "Authentication required: this metastore serves SASL PLAIN clients only"
            + " (metastore.client.auth.mode=PLAIN, metastore.client.plain.username=<client id>, the secret in a Hadoop"
            + " credential provider under that alias; docs/security.md)";

    private final HmsSessions sessions;
    private final TProcessor delegate;

    HmsAuthGate(HmsSessions sessions, TProcessor delegate) {
        this.sessions = requireNonNull(sessions, "sessions is null");
        this.delegate = requireNonNull(delegate, "delegate is null");
    }

    @Override
    public void process(TProtocol in, TProtocol out) throws TException {
        if (sessions.current().principal() != null) {
            delegate.process(in, out);
            return;
        }
        TMessage message = in.readMessageBegin();
        TProtocolUtil.skip(in, TType.STRUCT);
        in.readMessageEnd();
        if (message.type == TMessageType.ONEWAY) {
            return;
        }
        out.writeMessageBegin(new TMessage(message.name, TMessageType.EXCEPTION, message.seqid));
        new TApplicationException(TApplicationException.UNSUPPORTED_CLIENT_TYPE, REQUIRED).write(out);
        out.writeMessageEnd();
        out.getTransport().flush();
    }
}
