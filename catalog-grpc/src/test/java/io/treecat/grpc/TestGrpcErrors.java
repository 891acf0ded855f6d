package io.treecat.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.rpc.ErrorInfo;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCategory;
import io.treecat.core.error.ErrorCode;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The error table covers every category and code, and statuses carry ErrorInfo. */
class TestGrpcErrors {
    @Test
    void everyCategoryHasItsDesignedStatus() {
        Map<ErrorCategory, Status.Code> expected = new EnumMap<>(ErrorCategory.class);
        expected.put(ErrorCategory.NOT_FOUND, Status.Code.NOT_FOUND);
        expected.put(ErrorCategory.ALREADY_EXISTS, Status.Code.ALREADY_EXISTS);
        expected.put(ErrorCategory.CONFLICT, Status.Code.ABORTED);
        expected.put(ErrorCategory.INVALID_ARGUMENT, Status.Code.INVALID_ARGUMENT);
        expected.put(ErrorCategory.UNKNOWN_OUTCOME, Status.Code.UNKNOWN);
        expected.put(ErrorCategory.INTERNAL, Status.Code.INTERNAL);
        expected.put(ErrorCategory.RESOURCE_EXHAUSTED, Status.Code.RESOURCE_EXHAUSTED);
        expected.put(ErrorCategory.UNAVAILABLE, Status.Code.UNAVAILABLE);
        expected.put(ErrorCategory.PERMISSION_DENIED, Status.Code.PERMISSION_DENIED);
        assertThat(expected).hasSize(ErrorCategory.values().length);
        for (ErrorCategory category : ErrorCategory.values()) {
            assertThat(GrpcErrors.statusCode(category)).as(category.name()).isEqualTo(expected.get(category));
        }
    }

    @Test
    void everyCodeMapsToAFailure() {
        for (ErrorCode code : ErrorCode.values()) {
            Status.Code status = GrpcErrors.statusCode(code);
            assertThat(status).as(code.name()).isNotEqualTo(Status.Code.OK);
            if (code != ErrorCode.TRANSACTION_READ_ONLY) {
                assertThat(status).as(code.name()).isEqualTo(GrpcErrors.statusCode(code.category()));
            }
        }
        assertThat(GrpcErrors.statusCode(ErrorCode.TRANSACTION_READ_ONLY)).isEqualTo(Status.Code.FAILED_PRECONDITION);
    }

    @Test
    void catalogExceptionCarriesItsCodeAndContext() {
        StatusRuntimeException status =
                GrpcErrors.toStatus(new CatalogException(ErrorCode.COMMIT_CONFLICT, "Commit conflict")
                        .with("path", "/db")
                        .with("conflictingPath", "/db/t2"));

        assertThat(status.getStatus().getCode()).isEqualTo(Status.Code.ABORTED);
        assertThat(status.getStatus().getDescription()).isEqualTo("Commit conflict");
        ErrorInfo info = errorInfo(status);
        assertThat(info.getReason()).isEqualTo("COMMIT_CONFLICT");
        assertThat(info.getDomain()).isEqualTo("treecat.io");
        assertThat(info.getMetadataMap())
                .containsExactlyInAnyOrderEntriesOf(Map.of("path", "/db", "conflictingPath", "/db/t2"));
    }

    @Test
    void malformedRequestNamesTheField() {
        StatusRuntimeException status = GrpcErrors.toStatus(new InvalidRequestException("writes[0]", "has no op"));

        assertThat(status.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(status.getStatus().getDescription()).isEqualTo("Invalid request: writes[0] has no op");
        assertThat(errorInfo(status).getReason()).isEqualTo("INVALID_REQUEST");
        assertThat(errorInfo(status).getMetadataMap()).containsExactlyEntriesOf(Map.of("field", "writes[0]"));
    }

    @Test
    void unexpectedFailureIsInternal() {
        StatusRuntimeException status = GrpcErrors.toStatus(new IllegalStateException("boom"));

        assertThat(status.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
        assertThat(status.getStatus().getDescription())
                .isEqualTo("Internal error: java.lang.IllegalStateException: boom");
        assertThat(errorInfo(status).getReason()).isEqualTo("UNEXPECTED");
    }

    @Test
    void longMessagesAndValuesAreCutToFitATrailer() {
        String longText = "x".repeat(10_000);
        StatusRuntimeException status = GrpcErrors.toStatus(
                new CatalogException(ErrorCode.QUERY_SYNTAX_ERROR, longText).with("query", longText));

        assertThat(status.getStatus().getDescription()).hasSize(2048 + 3);
        assertThat(errorInfo(status).getMetadataOrThrow("query")).hasSize(512 + 3);
    }

    private static ErrorInfo errorInfo(StatusRuntimeException status) {
        try {
            return StatusProto.fromThrowable(status).getDetails(0).unpack(ErrorInfo.class);
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            throw new AssertionError(e);
        }
    }
}
