package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ConfigOverride;
import io.grpc.Status;
import io.treecat.grpc.client.QueryResults;
import io.treecat.grpc.client.TreeCatClient;
import io.treecat.grpc.client.TreeCatClientException;
import io.treecat.server.TreeCatTestServer.Reply;
import java.nio.file.Path;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code query.*} and {@code hms.filter.*} from the YAML configuration to where they are used: a path
 * query over a limit is 400 / gRPC {@code INVALID_ARGUMENT} {@code QUERY_SYNTAX_ERROR} naming the key,
 * its maximum and the position; a Hive filter over one is a {@code MetaException} naming the key; the
 * server keeps serving.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestQueryAndFilterLimits {
    @TempDir
    static Path directory;

    private TreeCatTestServer server;

    @BeforeAll
    void start() throws Exception {
        server = new TreeCatTestServer(
                directory,
                ConfigOverride.config("query.max-length", "4096"),
                ConfigOverride.config("query.max-depth", "8"),
                ConfigOverride.config("hms.filter.max-length", "2000"),
                ConfigOverride.config("hms.filter.max-depth", "3"));
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private static String nested(int depth) {
        return "/[" + "(".repeat(depth) + "a = 1" + ")".repeat(depth) + "]";
    }

    private static void assertRefused(Reply reply, String limit, String max, String position) {
        assertThat(reply.status()).as(reply.body()).isEqualTo(400);
        JsonNode error = reply.error();
        assertThat(error.get("type").asText()).isEqualTo("QUERY_SYNTAX_ERROR");
        assertThat(error.get("message").asText()).contains("(" + limit + ")");
        assertThat(error.get("context").get("limit").asText()).isEqualTo(limit);
        assertThat(error.get("context").get("max").asText()).isEqualTo(max);
        assertThat(error.get("context").get("position").asText()).isEqualTo(position);
    }

    @Test
    void aQueryOverALimitIsA400NamingIt() {
        assertThat(server.get("/treecat/v1/query?q=" + TreeCatTestServer.encode(nested(8)))
                        .status())
                .isEqualTo(200);
        assertRefused(
                server.get("/treecat/v1/query?q=" + TreeCatTestServer.encode(nested(9))), "query.max-depth", "8", "11");
        String tooLong = "/[a = '" + "x".repeat(4096) + "']";
        assertRefused(
                server.get("/treecat/v1/query?q=" + TreeCatTestServer.encode(tooLong)),
                "query.max-length",
                "4096",
                "4097");
        assertThat(server.admin("/healthcheck").status()).isEqualTo(200);
    }

    @Test
    void aQueryOverALimitIsInvalidArgumentOnGrpc() throws Exception {
        try (TreeCatClient client = TreeCatClient.connect(server.grpcTarget())) {
            try (QueryResults results = client.query(nested(8))) {
                results.forEachRemaining(object -> {});
            }
            // 100,000 parentheses: the text limit refuses it before the parser nests at all.
            for (String query : new String[] {nested(9), nested(100_000), "/[" + "not ".repeat(100_000) + "a = 1]"}) {
                assertThatThrownBy(() -> {
                            try (QueryResults results = client.query(query)) {
                                results.forEachRemaining(object -> {});
                            }
                        })
                        .isInstanceOfSatisfying(TreeCatClientException.class, e -> {
                            assertThat(e.statusCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                            assertThat(e.context())
                                    .containsEntry(
                                            "limit", query.length() > 4096 ? "query.max-length" : "query.max-depth");
                        });
            }
        }
        assertThat(server.admin("/healthcheck").status()).isEqualTo(200);
    }

    @Test
    void aHiveFilterOverALimitIsAMetaExceptionNamingIt() throws Exception {
        TSocket socket = new TSocket("127.0.0.1", server.hmsPort());
        socket.open();
        try {
            ThriftHiveMetastore.Client hive = new ThriftHiveMetastore.Client(new TBinaryProtocol(socket));
            String owner = "hive_filter_field_owner__";
            String deepEnough =
                    owner + " = 'a' and (" + owner + " = 'b' or (" + owner + " = 'c' and " + owner + " = 'd'))";
            assertThat(hive.get_table_names_by_filter("default", deepEnough, (short) -1))
                    .isEmpty();
            String tooDeep = owner + " = 'a' or (" + deepEnough + ")";
            assertThatThrownBy(() -> hive.get_table_names_by_filter("default", tooDeep, (short) -1))
                    .isInstanceOf(MetaException.class)
                    .hasMessageContaining("expected at most 3 levels of nested and/or (hms.filter.max-depth)");
            String tooLong = owner + " = '" + "x".repeat(2000) + "'";
            assertThatThrownBy(() -> hive.get_table_names_by_filter("default", tooLong, (short) -1))
                    .isInstanceOf(MetaException.class)
                    .hasMessage("Error parsing partition filter: the filter is longer than hms.filter.max-length"
                            + " allows (2000 characters, found 2030)");
            // The connection still serves.
            assertThat(hive.get_all_databases()).contains("default");
        } finally {
            socket.close();
        }
    }
}
