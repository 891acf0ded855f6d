package io.treecat.grpc.client;

import java.time.Duration;

/** Waits between retries; tests pass one that records the delays instead of sleeping. */
@FunctionalInterface
public interface Sleeper {
    Sleeper SYSTEM = delay -> Thread.sleep(delay.toMillis(), (int) (delay.toNanos() % 1_000_000));

    void sleep(Duration delay) throws InterruptedException;
}
