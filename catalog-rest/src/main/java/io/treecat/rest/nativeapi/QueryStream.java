package io.treecat.rest.nativeapi;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.query.exec.Continuation;
import io.treecat.core.query.exec.QueryCursor;
import jakarta.ws.rs.core.StreamingOutput;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Streams one page of a query as {@code {"vid","rows":[…],"nextPageToken"}}, pulling rows from the
 * cursor as the response is written, so a large page is never held in memory. The cursor is opened
 * by the resource method (so a bad query is an ordinary 400) and closed here, whatever happens. The
 * page has a token only if more rows follow, as {@link QueryCursor#page} does.
 */
final class QueryStream implements StreamingOutput {
    private final JsonFactory factory;
    private final QueryCursor cursor;
    private final int limit;

    QueryStream(JsonFactory factory, QueryCursor cursor, int limit) {
        this.factory = factory;
        this.cursor = cursor;
        this.limit = limit;
    }

    @Override
    public void write(OutputStream output) throws IOException {
        try (QueryCursor rows = cursor;
                JsonGenerator json = Rows.generator(factory, output)) {
            json.writeStartObject();
            json.writeNumberField("vid", rows.vid());
            json.writeArrayFieldStart("rows");
            int count = 0;
            CatalogObject last = null;
            while (count < limit && rows.advance()) {
                last = rows.current();
                json.writeStartObject();
                Rows.writeFields(json, last);
                json.writeEndObject();
                count++;
            }
            json.writeEndArray();
            if (count == limit && rows.advance()) {
                json.writeStringField("nextPageToken", new Continuation(rows.vid(), last.path()).encode());
            } else {
                json.writeNullField("nextPageToken");
            }
            json.writeEndObject();
        }
    }
}
