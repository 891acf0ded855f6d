package io.treecat.core.load;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.version.WriteOp;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Timeout;

/**
 * Coverage-guided fuzzing of a bulk load's record reader, which reads every line of {@code POST
 * /treecat/v1/load} (docs/robustness.md). On any line it answers an add, or {@code
 * INVALID_LOAD_RECORD} naming the line; a record it reads has exactly the value org.bson reads (its
 * fast JSON path, {@link JsonToBson}, must not differ), and a line org.bson refuses it refuses too.
 * Never another exception, a stack overflow, or a hang.
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
        RawBsonDocument orgBson;
        try {
            orgBson = RawBsonDocument.parse(line);
        } catch (RuntimeException orgBsonRefuses) {
            orgBson = null;
        }
        WriteOp.Add add;
        try {
            add = BulkLoader.parse(line, 7);
        } catch (CatalogException e) {
            assertThat(e.code()).as(line).isEqualTo(ErrorCode.INVALID_LOAD_RECORD);
            assertThat(e.getMessage()).as(line).startsWith("Invalid record at line 7: ");
            return;
        }
        assertThat(add.path().toString()).as(line).startsWith("/");
        assertThat(orgBson).as("a record org.bson refuses: %s", line).isNotNull();
        assertThat(add.value()).as(line).isEqualTo(orgBson.get("value", new BsonDocument()));
    }
}
