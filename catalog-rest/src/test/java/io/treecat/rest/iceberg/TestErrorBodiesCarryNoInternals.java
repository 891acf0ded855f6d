package io.treecat.rest.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.rest.nativeapi.ApiErrors;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.InvalidPathException;
import java.util.List;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.junit.jupiter.api.Test;

/**
 * Failures on the server's side (storage, an unknown commit outcome, a bug) and the JDK's path errors
 * carry the server's paths and exception text in their messages; both error tables log them and
 * answer only a fixed message, keeping the type a client acts on (docs/robustness.md, "Error bodies").
 */
class TestErrorBodiesCarryNoInternals {
    private static final String SECRET = "/srv/secret-data";
    private static final ObjectMapper JSON = new ObjectMapper();

    private static List<Throwable> failures() {
        return List.of(
                new CatalogException(ErrorCode.STORE_CLOSED, "The store is closed").with("directory", SECRET),
                new CatalogException(
                                ErrorCode.STORAGE_FAILURE,
                                "Commit failed: org.rocksdb.RocksDBException: IO error: " + SECRET + "/000012.log")
                        .with("status", "IO error: " + SECRET),
                new CatalogException(
                        ErrorCode.COMMIT_STATE_UNKNOWN,
                        "Commit failed: org.rocksdb.RocksDBException: IO error: " + SECRET + "/000012.log"),
                new CommitStateUnknownException(new IOException("No space left: " + SECRET + "/000012.log")),
                new UncheckedIOException(new IOException(SECRET + "/x.metadata.json")),
                new IllegalStateException("at io.treecat.Secret.method(" + SECRET + ")"));
    }

    private static String nativeBody(Throwable failure) throws IOException {
        Response response = new ApiErrors().toResponse(failure);
        assertThat(response.getStatus()).isEqualTo(500);
        return JSON.writeValueAsString(response.getEntity());
    }

    private static String icebergBody(Throwable failure) {
        Response response = IcebergErrors.toIceberg(failure);
        assertThat(response.getStatus()).isEqualTo(500);
        return (String) response.getEntity();
    }

    @Test
    void serverSideFailuresAnswerAFixedMessage() throws IOException {
        for (Throwable failure : failures()) {
            for (String body : List.of(nativeBody(failure), icebergBody(failure))) {
                assertThat(body)
                        .as(failure.toString())
                        .doesNotContain(SECRET)
                        .doesNotContain("RocksDBException")
                        .doesNotContain("at io.");
            }
        }
        assertThat(nativeBody(failures().get(0)))
                .isEqualTo("{\"error\":{\"message\":\"Internal server error\",\"type\":\"STORE_CLOSED\",\"code\":500,"
                        + "\"context\":{}}}");
        assertThat(nativeBody(failures().get(2)))
                .contains("\"type\":\"COMMIT_STATE_UNKNOWN\"")
                .contains("The commit may or may not have happened; read before retrying");
        // Iceberg's client rebuilds CommitStateUnknownException from the type; the advice is Iceberg's own.
        for (Throwable unknown : List.of(failures().get(2), failures().get(3))) {
            assertThat(icebergBody(unknown))
                    .contains("\"type\":\"CommitStateUnknownException\"")
                    .contains("The commit may or may not have happened")
                    .contains("Cannot determine whether the commit was successful or not");
        }
    }

    @Test
    void aPathTheFileSystemCannotTakeIs400WithoutThePath() {
        Response response = IcebergErrors.toIceberg(new InvalidPathException(
                SECRET + "/warehouse/s\uD800", "Malformed input or input contains unmappable characters"));

        assertThat(response.getStatus()).isEqualTo(400);
        assertThat((String) response.getEntity())
                .doesNotContain(SECRET)
                .contains("Invalid name or location: not a valid file system path");
    }
}
