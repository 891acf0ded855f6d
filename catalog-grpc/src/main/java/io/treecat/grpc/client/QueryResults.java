package io.treecat.grpc.client;

import io.grpc.Context;
import io.grpc.StatusRuntimeException;
import io.treecat.core.model.CatalogObject;
import io.treecat.grpc.WireFormat;
import io.treecat.grpc.v1.QueryBatch;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * The objects of one query, pulled from the server's stream as they are read: the server sends a
 * batch only when the client has taken the previous one, so memory stays at a batch or two
 * whatever the result's size. Close it (or its {@link #stream()}) to stop early; that cancels the
 * call and the server releases the query.
 */
public final class QueryResults implements Iterator<CatalogObject>, AutoCloseable {
    private final Context.CancellableContext context;
    private final Iterator<QueryBatch> batches;
    private Iterator<io.treecat.grpc.v1.CatalogObject> current = java.util.Collections.emptyIterator();
    private long vid = -1;
    private String nextPageToken = "";
    private boolean closed;

    QueryResults(Context.CancellableContext context, Iterator<QueryBatch> batches) {
        this.context = context;
        this.batches = batches;
    }

    @Override
    public boolean hasNext() {
        try {
            while (!current.hasNext()) {
                if (closed || !batches.hasNext()) {
                    closed = true;
                    return false;
                }
                QueryBatch batch = batches.next();
                vid = batch.getVid();
                nextPageToken = batch.getNextPageToken();
                current = batch.getObjectsList().iterator();
            }
            return true;
        } catch (StatusRuntimeException e) {
            close();
            throw TreeCatClientException.from(e);
        }
    }

    @Override
    public CatalogObject next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        return WireFormat.object(current.next());
    }

    /** The vid every object is read at; known once the first batch arrived. */
    public OptionalLong vid() {
        return vid < 0 ? OptionalLong.empty() : OptionalLong.of(vid);
    }

    /** The token for the rest of the results, once all are read, if the limit stopped the query. */
    public Optional<String> nextPageToken() {
        return nextPageToken.isEmpty() ? Optional.empty() : Optional.of(nextPageToken);
    }

    /** The remaining objects as a stream; closing the stream closes these results. */
    public Stream<CatalogObject> stream() {
        return StreamSupport.stream(
                        Spliterators.spliteratorUnknownSize(this, Spliterator.ORDERED | Spliterator.NONNULL), false)
                .onClose(this::close);
    }

    /** Cancels the call if objects are left unread. */
    @Override
    public void close() {
        closed = true;
        context.cancel(null);
    }
}
