package io.treecat.core.feed;

import io.treecat.core.version.ReadPins;
import io.treecat.core.version.VersionedTree;

/**
 * Where change-feed subscriptions register the oldest commit-log record they still need, so that
 * retention keeps it: the hook for a registry of active read points (issue 16, retention). Each
 * open subscription holds one pin at its position + 1 (which may be one past the newest vid),
 * moved after each drain; a pin is never released before its replacement is taken.
 */
@FunctionalInterface
public interface FeedPins {
    /** No registry: nothing is ever collected, or nothing asks. */
    FeedPins NONE = vid -> () -> {};

    /**
     * The tree's own registry of read points, which retention's horizon never passes: a pin below the
     * horizon is refused with {@code VERSION_EXPIRED}. A feed's position + 1 may be one past the newest
     * vid, so this pins in the registry directly rather than through {@link VersionedTree#pin}, which
     * takes only committed vids.
     */
    static FeedPins of(VersionedTree tree) {
        return vid -> {
            ReadPins.Pin pin = tree.pins().pin(vid);
            if (pin == null) {
                throw tree.expired(vid);
            }
            return pin::close;
        };
    }

    /**
     * Registers {@code vid} until the returned pin is released.
     *
     * @throws io.treecat.core.error.CatalogException if records from {@code vid} on are already
     *     gone (the registry's "expired" error)
     */
    Pin pin(long vid);

    /** One registration; releasing it twice is harmless. */
    @FunctionalInterface
    interface Pin {
        void release();
    }
}
