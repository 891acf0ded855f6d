package io.treecat.hms;

import org.apache.thrift.TByteArrayOutputStream;
import org.apache.thrift.transport.TMemoryInputTransport;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.apache.thrift.transport.TTransportFactory;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.apache.thrift.transport.layered.TLayeredTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thrift's framed transport (each message preceded by its 4-byte length), as Hive's metastore serves it with
 * {@code metastore.thrift.framed.transport.enabled}, but reading a frame as its bytes arrive.
 *
 * <p>libthrift's {@link TFramedTransport} allocates the declared frame size before reading the frame: a client
 * that declares 16 MB and sends nothing holds 16 MB of the server's heap until it goes away. Here the buffer
 * grows with what was received. A frame larger than {@code maxFrameBytes}, or of a negative size, closes the
 * connection with {@code CORRUPTED_DATA}, as libthrift does.
 */
final class HmsFramedTransport extends TLayeredTransport {
    private static final Logger LOG = LoggerFactory.getLogger(HmsFramedTransport.class);

    private final int maxFrameBytes;
    private final TMemoryInputTransport readBuffer;
    private final TByteArrayOutputStream writeBuffer = new TByteArrayOutputStream(1024);
    private final byte[] header = new byte[4];

    HmsFramedTransport(TTransport transport, int maxFrameBytes) throws TTransportException {
        super(transport);
        this.maxFrameBytes = maxFrameBytes;
        this.readBuffer = new TMemoryInputTransport(transport.getConfiguration());
    }

    /** Makes one for each side of each connection, as {@code TFramedTransport.Factory} does. */
    static TTransportFactory factory(int maxFrameBytes) {
        return new TTransportFactory() {
            @Override
            public TTransport getTransport(TTransport transport) throws TTransportException {
                return new HmsFramedTransport(transport, maxFrameBytes);
            }
        };
    }

    @Override
    public boolean isOpen() {
        return getInnerTransport().isOpen();
    }

    @Override
    public void open() throws TTransportException {
        getInnerTransport().open();
    }

    @Override
    public void close() {
        getInnerTransport().close();
    }

    @Override
    public int read(byte[] buf, int off, int len) throws TTransportException {
        int got = readBuffer.read(buf, off, len);
        if (got > 0) {
            return got;
        }
        readFrame();
        return readBuffer.read(buf, off, len);
    }

    private void readFrame() throws TTransportException {
        getInnerTransport().readAll(header, 0, 4);
        int size = TFramedTransport.decodeFrameSize(header);
        if (size < 0 || size > maxFrameBytes) {
            String message = size < 0
                    ? "Negative frame size (" + size + ")"
                    : "Frame of " + size + " bytes larger than hms.max-frame-size (" + maxFrameBytes + ")";
            HmsConnection connection = HmsConnection.of(getInnerTransport());
            LOG.warn(
                    "HMS Thrift connection from {} closed: {}",
                    connection == null ? "a client" : connection.peer(),
                    message);
            close();
            // Closed, as libthrift's TFramedTransport does; but END_OF_FILE rather than its CORRUPTED_DATA, which
            // TThreadPoolServer logs again with a stack trace for every such client.
            throw new TTransportException(TTransportException.END_OF_FILE, message);
        }
        readBuffer.reset(HmsProtocol.readFully(getInnerTransport(), size));
    }

    @Override
    public byte[] getBuffer() {
        return readBuffer.getBuffer();
    }

    @Override
    public int getBufferPosition() {
        return readBuffer.getBufferPosition();
    }

    @Override
    public int getBytesRemainingInBuffer() {
        return readBuffer.getBytesRemainingInBuffer();
    }

    @Override
    public void consumeBuffer(int len) {
        readBuffer.consumeBuffer(len);
    }

    @Override
    public void write(byte[] buf, int off, int len) {
        writeBuffer.write(buf, off, len);
    }

    @Override
    public void flush() throws TTransportException {
        int length = writeBuffer.len();
        byte[] frame = new byte[4];
        TFramedTransport.encodeFrameSize(length, frame);
        getInnerTransport().write(frame, 0, 4);
        getInnerTransport().write(writeBuffer.get(), 0, length);
        writeBuffer.reset();
        getInnerTransport().flush();
    }
}
