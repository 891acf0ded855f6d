package io.treecat.rest.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class TestIdempotencyKeys {
    private static final Duration LIFETIME = Duration.ofMinutes(30);
    private static final IdempotencyKeys.Stored OK = new IdempotencyKeys.Stored(200, "application/json", null, "{}");

    /** A clock the test moves by hand. */
    private static final class ManualClock extends Clock {
        private Instant now = Instant.parse("2026-01-01T00:00:00Z");

        void advance(Duration duration) {
            now = now.plus(duration);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    @Test
    void aKeyIsRememberedForItsLifetime() {
        ManualClock clock = new ManualClock();
        IdempotencyKeys keys = new IdempotencyKeys(clock, LIFETIME, 100);
        IdempotencyKeys.Claim first = keys.claim("k", "request-a");
        assertThat(first.first()).isTrue();
        IdempotencyKeys.Claim repeat = keys.claim("k", "request-a");
        assertThat(repeat.first()).isFalse();
        assertThat(repeat.entry()).isSameAs(first.entry());
        assertThat(repeat.entry().response).isNotDone();

        keys.finish(first.entry(), OK);
        assertThat(keys.claim("k", "request-a").entry().response.join()).isEqualTo(OK);
        // Another request with the key gets the entry, whose fingerprint tells the filter it differs.
        assertThat(keys.claim("k", "request-b").entry().fingerprint).isEqualTo("request-a");

        clock.advance(LIFETIME);
        assertThat(keys.claim("k", "request-a").first()).isFalse();
        clock.advance(Duration.ofSeconds(1));
        IdempotencyKeys.Claim expired = keys.claim("k", "request-b");
        assertThat(expired.first()).isTrue();
        assertThat(expired.entry().fingerprint).isEqualTo("request-b");
    }

    @Test
    void aResponseThatIsNotFinalIsForgotten() {
        IdempotencyKeys keys = new IdempotencyKeys(new ManualClock(), LIFETIME, 100);
        IdempotencyKeys.Claim first = keys.claim("k", "r");
        keys.finish(first.entry(), null);
        assertThat(first.entry().response.join()).isNull();
        assertThat(keys.size()).isZero();
        assertThat(keys.claim("k", "r").first()).isTrue();
    }

    @Test
    void theBoundDropsTheOldestFinishedKeysButNeverOneInFlight() {
        IdempotencyKeys keys = new IdempotencyKeys(new ManualClock(), LIFETIME, 2);
        IdempotencyKeys.Claim running = keys.claim("running", "r");
        IdempotencyKeys.Claim done = keys.claim("done", "r");
        keys.finish(done.entry(), OK);
        keys.claim("newest", "r");
        assertThat(keys.size()).isEqualTo(2);
        assertThat(keys.claim("running", "r").first()).isFalse();
        assertThat(keys.claim("done", "r").first())
                .as("the oldest finished key was dropped")
                .isTrue();
        // All in flight and over the bound: none is dropped.
        keys.claim("more", "r");
        assertThat(keys.size()).isEqualTo(4);
        assertThat(running.entry().response).isNotDone();
    }

    /**
     * A table commit's answer is the table's whole metadata: the keys keep at most so many bytes of answers, the oldest
     * finished dropped first (their repeats are answered from the durable record), never one in flight.
     */
    @Test
    void theByteBoundDropsTheOldestFinishedAnswers() {
        IdempotencyKeys keys = new IdempotencyKeys(new ManualClock(), LIFETIME, 100, 2_500);
        IdempotencyKeys.Stored kilobyte = new IdempotencyKeys.Stored(200, "application/json", null, "x".repeat(1_000));
        IdempotencyKeys.Claim running = keys.claim("running", "r");
        for (String key : List.of("a", "b", "c")) {
            keys.finish(keys.claim(key, "r").entry(), kilobyte);
        }
        assertThat(keys.bodyBytes()).isEqualTo(2_000);
        assertThat(keys.claim("a", "r").first())
                .as("the oldest answer was dropped")
                .isTrue();
        assertThat(keys.claim("b", "r").first()).isFalse();
        assertThat(keys.claim("c", "r").first()).isFalse();
        assertThat(keys.claim("running", "r").first()).isFalse();
        assertThat(running.entry().response).isNotDone();
    }
}
