package io.treecat.benchmarks.concurrency;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;

/** Closed-loop clients: each thread repeats its next operation until the time is up. */
final class ClientThreads {
    private ClientThreads() {}

    /**
     * Runs {@code threads} clients for {@code seconds}, client {@code t} repeating {@code clients.apply(t)}; answers
     * the seconds they ran. The first error of a client stops them all and is rethrown.
     */
    static double run(int threads, double seconds, IntFunction<Runnable> clients) throws InterruptedException {
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch ready = new CountDownLatch(threads);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Runnable next = clients.apply(t);
            Thread worker = new Thread(
                    () -> {
                        ready.countDown();
                        try {
                            while (running.get()) {
                                next.run();
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                            running.set(false);
                        }
                    },
                    "client-" + t);
            workers.add(worker);
        }
        workers.forEach(Thread::start);
        ready.await();
        long start = System.nanoTime();
        long end = start + (long) (seconds * 1e9);
        while (running.get() && System.nanoTime() < end) {
            Thread.sleep(Math.max(1, Math.min(50, (end - System.nanoTime()) / 1_000_000)));
        }
        running.set(false);
        for (Thread worker : workers) {
            worker.join();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("A client failed", failure.get());
        }
        return (System.nanoTime() - start) / 1e9;
    }
}
