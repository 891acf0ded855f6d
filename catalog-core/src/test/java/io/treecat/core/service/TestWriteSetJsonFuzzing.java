package io.treecat.core.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCategory;
import io.treecat.core.version.WriteSet;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/**
 * Coverage-guided fuzzing of the JSON write set, the body of every native commit over HTTP and the
 * command line (docs/robustness.md). On any text it answers a write set that formats and parses back
 * to itself, or a client error that names the problem ({@code INVALID_WRITE_SET}, or the path,
 * value or limit a write breaks: a 400 on the wire): never another exception, a stack overflow, or a
 * hang.
 */
class TestWriteSetJsonFuzzing {
    @FuzzTest(maxDuration = "2m")
    @Timeout(value = 10, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    @DictionaryEntries({
        "{\"writes\":[", "]}", "\"op\":", "\"add\"", "\"update\"", "\"merge\"", "\"remove\"", "\"clone\"",
        "\"path\":", "\"source\":", "\"kind\":", "\"leaf\"", "\"inner\"", "\"value\":", "\"delta\":", "\"vid\":",
        "{\"$numberLong\":\"", "{\"$oid\":\"", "{\"$date\":", "{\"$binary\":", "\"/a/b\"", "\"val\":", "\"+\"",
                "\\u0000"
    })
    void writeSetJsonParsesOrIsAClientError(byte[] input) {
        String json = new String(input, StandardCharsets.UTF_8);
        WriteSet writes;
        try {
            writes = WriteSetJson.parse(json, 42);
        } catch (CatalogException e) {
            assertThat(e.category()).as("%s: %s", json, e).isEqualTo(ErrorCategory.INVALID_ARGUMENT);
            assertThat(e.getMessage()).as(json).isNotBlank();
            return;
        }
        assertThat(WriteSetJson.parse(WriteSetJson.format(writes), 42)).as(json).isEqualTo(writes);
    }
}
