package io.treecat.lakehouse.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class TestSessionPolicies {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aWritersPolicyReachesOnlyTheTablesObjects() throws Exception {
        JsonNode policy = JSON.readTree(
                SessionPolicies.forTable("s3a://lake/warehouse/ns/t/", SessionPolicies.Access.READ_WRITE));
        assertThat(policy.get("Version").asText()).isEqualTo("2012-10-17");
        JsonNode objects = policy.get("Statement").get(0);
        assertThat(objects.get("Resource").asText()).isEqualTo("arn:aws:s3:::lake/warehouse/ns/t/*");
        assertThat(objects.get("Action").toString())
                .isEqualTo("[\"s3:GetObject\",\"s3:GetObjectVersion\",\"s3:PutObject\",\"s3:DeleteObject\","
                        + "\"s3:AbortMultipartUpload\",\"s3:ListMultipartUploadParts\"]");
        JsonNode list = policy.get("Statement").get(1);
        assertThat(list.get("Action").asText()).isEqualTo("s3:ListBucket");
        assertThat(list.get("Resource").asText()).isEqualTo("arn:aws:s3:::lake");
        assertThat(list.get("Condition").get("StringLike").get("s3:prefix").toString())
                .isEqualTo("[\"warehouse/ns/t\",\"warehouse/ns/t/*\"]");
        assertThat(policy.get("Statement")).hasSize(2);
    }

    @Test
    void aReadersPolicyCannotWrite() throws Exception {
        JsonNode policy =
                JSON.readTree(SessionPolicies.forTable("s3://lake/warehouse/ns/t", SessionPolicies.Access.READ));
        assertThat(policy.get("Statement").get(0).get("Action").toString())
                .isEqualTo("[\"s3:GetObject\",\"s3:GetObjectVersion\"]");
    }

    @Test
    void locationsThatWouldWidenTheScopeAreRefused() {
        assertThatThrownBy(() -> SessionPolicies.forTable("s3://lake/warehouse/*", SessionPolicies.Access.READ))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("The table's location holds a character an IAM policy reads as a wildcard or variable"
                        + " (*, ?, $)");
        assertThatThrownBy(() -> SessionPolicies.forTable("s3://lake/w/${aws:username}", SessionPolicies.Access.READ))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SessionPolicies.forTable("s3://lake/w/a?b", SessionPolicies.Access.READ))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SessionPolicies.forTable("s3://lake", SessionPolicies.Access.READ))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Vended credentials need a table location below its bucket's root");
        assertThatThrownBy(() -> SessionPolicies.forTable("s3://lake/w/../other", SessionPolicies.Access.READ))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SessionPolicies.forTable("gs://lake/w/t", SessionPolicies.Access.READ))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Vended credentials serve only tables on S3");
        assertThatThrownBy(() -> SessionPolicies.forTable("s3://lake/" + "x".repeat(3000), SessionPolicies.Access.READ))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("The table's location is too long for an STS session policy");
    }
}
