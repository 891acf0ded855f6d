package io.treecat.core.txn;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Transaction ids: random version 4 UUIDs, from one generator per thread, never repeated. */
class TestTransactionId {
    @Test
    void idsAreRandomVersion4UuidsThatRoundTripThroughTheirText() {
        Set<TransactionId> seen = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            TransactionId id = TransactionId.create();
            assertThat(id.uuid().version()).isEqualTo(4);
            assertThat(id.uuid().variant()).isEqualTo(2);
            assertThat(TransactionId.valueOf(id.toString())).isEqualTo(id);
            assertThat(seen.add(id)).isTrue();
        }
    }

    @Test
    void threadsWithTheirOwnGeneratorsNeverHandOutTheSameId() throws Exception {
        Set<TransactionId> seen = ConcurrentHashMap.newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> runs = IntStream.range(0, 8)
                    .mapToObj(thread -> pool.submit(() -> {
                        for (int i = 0; i < 5_000; i++) {
                            assertThat(seen.add(TransactionId.create())).isTrue();
                        }
                    }))
                    .<Future<?>>map(future -> future)
                    .toList();
            for (Future<?> run : runs) {
                run.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(seen).hasSize(40_000);
    }
}
