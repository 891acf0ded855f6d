package io.treecat.hms;

import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.thrift.TBase;
import org.apache.thrift.TDeserializer;
import org.apache.thrift.TException;
import org.apache.thrift.TSerializer;
import org.apache.thrift.protocol.TBinaryProtocol;

/**
 * Hive structs as the lake model keeps them (a table's, partition's or function's protocol-owned
 * bytes, column statistics): Thrift-binary, so every field round-trips whatever Hive version wrote it.
 */
final class HmsStructs {
    private HmsStructs() {}

    /** {@code struct} Thrift-binary encoded; {@code what} names it in the error ("table db.t"). */
    static byte[] encode(TBase<?, ?> struct, String what) throws MetaException {
        try {
            return new TSerializer(new TBinaryProtocol.Factory()).serialize(struct);
        } catch (TException e) {
            throw new MetaException("Cannot encode " + what + ": " + e.getMessage());
        }
    }

    /** {@code empty} filled from {@code bytes}; {@code what} names it in the error ("the stored table db.t"). */
    static <T extends TBase<?, ?>> T decode(T empty, byte[] bytes, String what) throws MetaException {
        try {
            new TDeserializer(new TBinaryProtocol.Factory()).deserialize(empty, bytes);
        } catch (TException e) {
            throw new MetaException("Cannot decode " + what + ": " + e.getMessage());
        }
        return empty;
    }
}
