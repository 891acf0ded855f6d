package io.treecat.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.version.WriteOp;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Timeout;

/**
 * Coverage-guided fuzzing of a bulk load's record reader, which reads every line of {@code POST
 * /treecat/v1/load} (docs/robustness.md). On any line it answers an add, or {@code
 * INVALID_LOAD_RECORD} naming the line; and its fast JSON path ({@link JsonToBson}) gives exactly the
 * BSON org.bson gives, or fails where org.bson fails. Never another exception, a stack overflow, or a
 * hang.
 */
class TestLoadRecordFuzzing {
    @FuzzTest(maxDuration = "2m")
    @Timeout(value = 10, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    @DictionaryEntries({
        "{\"path\":\"/",
        "\"kind\":",
        "\"leaf\"",
        "\"inner\"",
        "\"value\":{",
        "}",
        "[",
        "]",
        "{\"$numberLong\":\"",
        "{\"$numberDecimal\":\"",
        "{\"$oid\":\"",
        "\"$",
        "1e400",
        "-9223372036854775809",
        "9223372036854775807",
        "2147483648",
        "NaN",
        "\\u0000",
        "\\ud800",
        "true",
        "null"
    })
    void loadLineIsAnAddOrAnInvalidRecord(byte[] input) {
        String line = new String(input, StandardCharsets.UTF_8);
        try {
            WriteOp.Add add = BulkLoader.parse(line, 7);
            assertThat(add.path().toString()).as(line).startsWith("/");
        } catch (CatalogException e) {
            assertThat(e.code()).as(line).isEqualTo(ErrorCode.INVALID_LOAD_RECORD);
            assertThat(e.getMessage()).as(line).startsWith("Invalid record at line 7: ");
        }
        RawBsonDocument expected;
        try {
            expected = RawBsonDocument.parse(line);
        } catch (RuntimeException orgBsonRefuses) {
            assertThatThrownBy(() -> JsonToBson.parse(line)).as(line).isInstanceOf(RuntimeException.class);
            return;
        }
        assertThat(JsonToBson.parse(line)).as(line).isEqualTo(expected);
    }
}
