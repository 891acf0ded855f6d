package io.treecat.core.feed;

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
