package io.treecat.core.version;

import static java.util.Objects.requireNonNull;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who hears that a vid was published: the change feed wakes its subscribers here. Listeners run on
 * the publishing thread (the commit pipeline's syncer) before the commits are acknowledged, so a
 * listener only hands the news on (schedules work) and returns; it never reads the store or blocks.
 * With no listener a publish costs one read of an empty list.
 */
public final class PublishListeners {
    private static final Logger LOG = LoggerFactory.getLogger(PublishListeners.class);

    private final CopyOnWriteArrayList<LongConsumer> listeners = new CopyOnWriteArrayList<>();

    /**
     * Calls {@code listener} with the newest published vid each time it moves forward, from now on.
     * Closing the returned handle removes it.
     */
    public AutoCloseable add(LongConsumer listener) {
        requireNonNull(listener, "listener is null");
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    void published(long vid) {
        for (LongConsumer listener : listeners) {
            try {
                listener.accept(vid);
            } catch (RuntimeException e) {
                // A listener's bug must not fail the commits being acknowledged.
                LOG.error("A publish listener failed at vid {}", vid, e);
            }
        }
    }
}
