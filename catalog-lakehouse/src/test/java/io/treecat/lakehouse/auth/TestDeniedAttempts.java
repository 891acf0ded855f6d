package io.treecat.lakehouse.auth;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TestDeniedAttempts {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A clock the test moves. */
    private static final class StepClock extends Clock {
        private Instant now = Instant.parse("2026-11-27T21:00:00.250Z");

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    @Test
    void aRecordIsOneJsonObjectWithWhoWhatWhereAndNoMore() throws Exception {
        String line = DeniedAttempts.record(
                Instant.parse("2026-11-27T21:00:00Z"),
                DeniedAttempts.Denial.forbidden("etl", "COMMIT_TABLE", "TABLE_WRITE", "/warehouse/sales/orders"),
                new DeniedAttempts.Caller("iceberg-rest", "10.1.2.3"));
        assertThat(line).doesNotContain("\n");
        JsonNode record = JSON.readTree(line);
        assertThat(record.get("event").asText()).isEqualTo("denied");
        assertThat(record.get("status").asInt()).isEqualTo(403);
        assertThat(record.get("api").asText()).isEqualTo("iceberg-rest");
        assertThat(record.get("client").asText()).isEqualTo("10.1.2.3");
        assertThat(record.get("principal").asText()).isEqualTo("etl");
        assertThat(record.get("action").asText()).isEqualTo("COMMIT_TABLE");
        assertThat(record.get("privilege").asText()).isEqualTo("TABLE_WRITE");
        assertThat(record.get("object").asText()).isEqualTo("/warehouse/sales/orders");

        JsonNode unauthenticated = JSON.readTree(DeniedAttempts.record(
                Instant.parse("2026-11-27T21:00:00Z"),
                DeniedAttempts.Denial.unauthenticated("The token is not a signed JWT"),
                new DeniedAttempts.Caller("grpc", "127.0.0.1")));
        assertThat(unauthenticated.get("principal").asText()).isEqualTo("none");
        assertThat(unauthenticated.get("status").asInt()).isEqualTo(401);
        assertThat(unauthenticated.has("privilege")).isFalse();
        // A quote or a newline in a value cannot break the line or forge a field.
        String hostile = DeniedAttempts.record(
                Instant.parse("2026-11-27T21:00:00Z"),
                DeniedAttempts.Denial.forbidden("x\",\"principal\":\"admin\n", "A", "B", "/c"),
                new DeniedAttempts.Caller("http", "::1"));
        assertThat(hostile).doesNotContain("\n");
        assertThat(JSON.readTree(hostile).get("principal").asText()).isEqualTo("x\",\"principal\":\"admin\n");
    }

    @Test
    void aFloodWritesAtMostTheLimitPerSecondAndCountsTheRest() throws Exception {
        StepClock clock = new StepClock();
        List<String> records = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        DeniedAttempts log = new DeniedAttempts(clock, 100, records::add, warnings::add);
        DeniedAttempts.Caller caller = new DeniedAttempts.Caller("iceberg-rest", "127.0.0.1");
        for (int i = 0; i < 300; i++) {
            log.write(DeniedAttempts.Denial.unauthenticated("The token is not valid"), caller);
        }
        assertThat(records).hasSize(100);
        assertThat(warnings).isEmpty();

        clock.now = clock.now.plusSeconds(1);
        log.write(DeniedAttempts.Denial.unauthenticated("The token is not valid"), caller);
        assertThat(records).hasSize(101);
        assertThat(warnings).hasSize(1);
        JsonNode suppressed = JSON.readTree(warnings.get(0));
        assertThat(suppressed.get("event").asText()).isEqualTo("suppressed");
        assertThat(suppressed.get("count").asLong()).isEqualTo(200);

        // A quiet second after: nothing suppressed, nothing to report.
        clock.now = clock.now.plusSeconds(5);
        log.write(DeniedAttempts.Denial.unauthenticated("The token is not valid"), caller);
        assertThat(warnings).hasSize(1);
        assertThat(records).hasSize(102);
    }
}
