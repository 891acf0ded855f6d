package io.treecat.hms;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TList;
import org.apache.thrift.protocol.TMap;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolException;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.protocol.TSet;
import org.apache.thrift.protocol.TStruct;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The binary protocol with Hive's string and container length limits, a nesting limit, and no allocation of a
 * declared size before its bytes arrive.
 *
 * <p>libthrift 0.16's {@code TBinaryProtocol.readStringBody} and {@code readBinary} check the declared length
 * against the limit and then allocate all of it before reading: 80 connections that each declared a 95 MiB string
 * and sent nothing held 6.4 GB (docs/robustness.md, "Thrift: limits"). Here a string is read in chunks into a
 * buffer that grows with what arrived. Its {@code TConfiguration} recursion limit is not enforced by libthrift's
 * Java library at all; {@link #maxDepth} is, for structs and containers alike (so also for skipped unknown fields).
 *
 * <p>A limit refused is a {@link TProtocolException} naming the limit: read while parsing a call's arguments,
 * Thrift's processor answers it as {@code TApplicationException(PROTOCOL_ERROR)}, as Hive's metastore does. The rest
 * of that request is still unread on the wire, so the next {@link #readMessageBegin} ends the connection instead
 * of reading it as a request.
 */
final class HmsProtocol extends TBinaryProtocol {
    private static final Logger LOG = LoggerFactory.getLogger(HmsProtocol.class);
    /** Strings up to this size are allocated at once; larger ones grow as their bytes arrive. */
    private static final int CHUNK_BYTES = 64 * 1024;

    private final HmsTransportConfig limits;
    private final HmsConnection connection;
    private int depth;
    private boolean refused;

    private HmsProtocol(TTransport transport, HmsTransportConfig limits) {
        // No length limits in the base class: they are checked here, with messages naming the setting.
        super(transport, -1, -1, false, true);
        this.limits = limits;
        this.connection = HmsConnection.of(transport);
    }

    /** Hive's clients write strict headers; like Hive's metastore, the server also reads old clients' ones. */
    static TProtocolFactory factory(HmsTransportConfig limits) {
        return new TProtocolFactory() {
            @Override
            public TProtocol getProtocol(TTransport transport) {
                return new HmsProtocol(transport, limits);
            }
        };
    }

    @Override
    public TMessage readMessageBegin() throws TException {
        if (refused) {
            throw new TTransportException(
                    TTransportException.END_OF_FILE, "Connection closed after a request over a limit");
        }
        if (connection != null) {
            connection.startMessage();
        }
        depth = 0;
        try {
            return super.readMessageBegin();
        } catch (TProtocolException e) {
            // A header over a limit (a method name of 2 GiB) is not a call Thrift's processor can answer: close the
            // connection quietly, as for a frame over its limit; the limit was logged when it was refused.
            throw new TTransportException(TTransportException.END_OF_FILE, e.getMessage(), e);
        }
    }

    @Override
    public String readString() throws TException {
        return readStringBody(readI32());
    }

    @Override
    public String readStringBody(int size) throws TException {
        return new String(readBytes(size), StandardCharsets.UTF_8);
    }

    @Override
    public ByteBuffer readBinary() throws TException {
        return ByteBuffer.wrap(readBytes(readI32()));
    }

    @Override
    protected void skipBinary() throws TException {
        readBinary();
    }

    private byte[] readBytes(int size) throws TException {
        if (size < 0) {
            throw refuse(TProtocolException.NEGATIVE_SIZE, "Negative length: " + size);
        }
        if (size > limits.maxStringBytes()) {
            throw refuse(
                    TProtocolException.SIZE_LIMIT,
                    "String of " + size + " bytes larger than hms.max-string-size (" + limits.maxStringBytes() + ")");
        }
        trans_.checkReadBytesAvailable(size);
        if (trans_.getBytesRemainingInBuffer() >= size) {
            byte[] bytes = Arrays.copyOfRange(
                    trans_.getBuffer(), trans_.getBufferPosition(), trans_.getBufferPosition() + size);
            trans_.consumeBuffer(size);
            return bytes;
        }
        return readFully(trans_, size);
    }

    /**
     * Reads {@code size} bytes into a buffer that starts at {@link #CHUNK_BYTES} and doubles only once it is full,
     * so memory follows the bytes received rather than the size declared.
     */
    static byte[] readFully(TTransport transport, int size) throws TTransportException {
        byte[] buffer = new byte[Math.min(size, CHUNK_BYTES)];
        int read = 0;
        while (read < size) {
            if (read == buffer.length) {
                buffer = Arrays.copyOf(buffer, (int) Math.min(size, 2L * buffer.length));
            }
            read += transport.read(buffer, read, buffer.length - read);
        }
        return buffer;
    }

    @Override
    public TStruct readStructBegin() throws TException {
        enter();
        return super.readStructBegin();
    }

    @Override
    public void readStructEnd() {
        depth--;
    }

    @Override
    public TList readListBegin() throws TException {
        TList list = new TList(readByte(), readI32());
        container(list.size);
        checkReadBytesAvailable(list);
        enter();
        return list;
    }

    @Override
    public void readListEnd() {
        depth--;
    }

    @Override
    public TSet readSetBegin() throws TException {
        TSet set = new TSet(readByte(), readI32());
        container(set.size);
        checkReadBytesAvailable(set);
        enter();
        return set;
    }

    @Override
    public void readSetEnd() {
        depth--;
    }

    @Override
    public TMap readMapBegin() throws TException {
        TMap map = new TMap(readByte(), readByte(), readI32());
        container(map.size);
        checkReadBytesAvailable(map);
        enter();
        return map;
    }

    @Override
    public void readMapEnd() {
        depth--;
    }

    private void container(int size) throws TProtocolException {
        if (size < 0) {
            throw refuse(TProtocolException.NEGATIVE_SIZE, "Negative length: " + size);
        }
        if (size > limits.maxContainerElements()) {
            throw refuse(
                    TProtocolException.SIZE_LIMIT,
                    "Container of " + size + " elements larger than hms.max-container-elements ("
                            + limits.maxContainerElements() + ")");
        }
    }

    private void enter() throws TProtocolException {
        if (++depth > limits.maxDepth()) {
            throw refuse(
                    TProtocolException.DEPTH_LIMIT,
                    "Structs and containers nested deeper than hms.max-depth (" + limits.maxDepth() + ")");
        }
    }

    private TProtocolException refuse(int type, String message) {
        refused = true;
        LOG.warn(
                "HMS Thrift request from {} refused: {}", connection == null ? "a client" : connection.peer(), message);
        return new TProtocolException(type, message);
    }
}
