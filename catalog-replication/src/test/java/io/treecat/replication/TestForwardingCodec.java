package io.treecat.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import java.nio.ByteBuffer;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

/** The answer to a forwarded commit, as the replica reads it from the leader. */
class TestForwardingCodec {
    @Test
    void aRefusalCarriesItsCodeContextAndTheLeadersVid() {
        CatalogException conflict =
                new CatalogException(ErrorCode.COMMIT_CONFLICT, "Someone changed /t").with("path", "/t");

        ForwardingCodec.Answer answer =
                ForwardingCodec.decodeAnswer(ByteBuffer.wrap(ForwardingCodec.encodeRefusal(conflict, 42)));

        assertThat(answer.result()).isNull();
        assertThat(answer.leaderVid()).isEqualTo(42);
        assertThat(answer.refusal().code()).isEqualTo(ErrorCode.COMMIT_CONFLICT);
        assertThat(answer.refusal().getMessage()).isEqualTo("Someone changed /t");
        assertThat(answer.refusal().context()).containsEntry("path", "/t");
    }

    /** A leader of the version before (a rolling upgrade) sends no vid: the refusal is still read, answered at once. */
    @Test
    void aRefusalFromALeaderThatSendsNoVidIsStillRead() {
        BsonDocument older = new BsonDocument()
                .append("code", new BsonString("COMMIT_CONFLICT"))
                .append("message", new BsonString("Someone changed /t"))
                .append("context", new BsonDocument());

        ForwardingCodec.Answer answer = ForwardingCodec.decodeAnswer(ByteBuffer.wrap(ForwardingCodec.bytes(older)));

        assertThat(answer.refusal().code()).isEqualTo(ErrorCode.COMMIT_CONFLICT);
        assertThat(answer.leaderVid()).isZero();
    }
}
