package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.lakehouse.auth.GrantsAuthorizer;
import io.treecat.lakehouse.auth.Principal;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.security.alias.CredentialProvider;
import org.apache.hadoop.security.alias.CredentialProviderFactory;
import org.apache.thrift.TApplicationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * SASL PLAIN on the Thrift port with Hive 4's own client ({@code metastore.client.auth.mode=PLAIN}, the password from
 * a Hadoop credential provider, a JCEKS file made with Hadoop's own API as users do): the calls run as the principal
 * the credentials prove (grants decide: {@code etl} is an admin, {@code viewer} holds nothing); wrong credentials, an
 * unknown user and a client without SASL are refused with a clear reason, and the server keeps serving. Bad SASL
 * frames (garbage, huge declared sizes) close only their own connection.
 */
final class TestHmsPlainSasl {
    private static final String ETL_ID = "etl-client-id-000000000";
    private static final String ETL_SECRET = "etl-secret-that-is-long-enough-0123456789";
    private static final String VIEWER_ID = "viewer-client-id-0000000";
    private static final String VIEWER_SECRET = "viewer-secret-0123456789";

    /** The check a server wires to its built-in principals, by hand: two client ids with their secrets. */
    private static final HmsAuthentication.PlainCheck CHECK = (user, password) -> {
        if (ETL_ID.equals(user) && ETL_SECRET.equals(password)) {
            return Optional.of(new Principal("etl"));
        }
        if (VIEWER_ID.equals(user) && VIEWER_SECRET.equals(password)) {
            return Optional.of(new Principal("viewer"));
        }
        return Optional.empty();
    };

    @RegisterExtension
    final HmsTestServer hms = HmsTestServer.withAuthentication(
            HmsTransportConfig.DEFAULTS,
            new HmsAuthentication(false, CHECK),
            service -> new GrantsAuthorizer(service, Set.of("etl")));

    @RegisterExtension
    final HmsTestServer framed = HmsTestServer.withAuthentication(
            HmsTransportConfig.DEFAULTS.withFramed(true),
            new HmsAuthentication(true, CHECK),
            service -> new GrantsAuthorizer(service, Set.of("etl")));

    /** A JCEKS credential store holding {@code secret} under the alias {@code user}, as {@code hadoop credential create}. */
    private static String credentialStore(Path file, String user, String secret) throws Exception {
        String path = "jceks://file" + file.toAbsolutePath();
        Configuration conf = new Configuration(false);
        conf.set(CredentialProviderFactory.CREDENTIAL_PROVIDER_PATH, path);
        CredentialProvider provider =
                CredentialProviderFactory.getProviders(conf).get(0);
        provider.createCredentialEntry(user, secret.toCharArray());
        provider.flush();
        return path;
    }

    private static Map<String, String> plain(String store, String user) {
        Map<String, String> settings = new HashMap<>();
        settings.put("metastore.client.auth.mode", "PLAIN");
        settings.put("metastore.client.plain.username", user);
        settings.put(CredentialProviderFactory.CREDENTIAL_PROVIDER_PATH, store);
        // Hive's client would otherwise read the alias's value from the configuration when the store lacks it.
        settings.put("hadoop.security.credential.clear-text-fallback", "false");
        settings.put("metastore.connect.retries", "1");
        settings.put("metastore.client.connect.retry.delay", "0s");
        return settings;
    }

    private static Database database(String name) {
        Database database = new Database();
        database.setName(name);
        return database;
    }

    @Test
    void aHiveClientWithPlainCredentialsRunsItsCallsAsItsPrincipal() throws Exception {
        String etlStore = credentialStore(hms.directory().resolve("etl.jceks"), ETL_ID, ETL_SECRET);
        HiveMetaStoreClient etl = hms.hiveClient(plain(etlStore, ETL_ID));
        etl.createDatabase(database("sales"));
        assertThat(etl.getAllDatabases()).contains("default", "sales");

        // A principal without grants: lists are empty, a create is refused naming the privilege, nothing is made.
        String viewerStore = credentialStore(hms.directory().resolve("viewer.jceks"), VIEWER_ID, VIEWER_SECRET);
        HiveMetaStoreClient viewer = hms.hiveClient(plain(viewerStore, VIEWER_ID));
        assertThat(viewer.getAllDatabases()).isEmpty();
        // It may not even see the new database's path, so the refusal is the lake's "not found", as for a missing one.
        assertThatThrownBy(() -> viewer.createDatabase(database("viewers")))
                .isInstanceOf(MetaException.class)
                .hasMessage("Namespace does not exist: viewers");
        assertThat(etl.getAllDatabases()).doesNotContain("viewers");
    }

    @Test
    void aWrongSecretAnUnknownUserAndNoSaslAreRefusedAndTheServerKeepsServing() throws Exception {
        String wrong = credentialStore(hms.directory().resolve("wrong.jceks"), ETL_ID, ETL_SECRET + "x");
        assertThatThrownBy(() -> hms.hiveClient(plain(wrong, ETL_ID)))
                .isInstanceOf(MetaException.class)
                .hasMessageContaining("Authentication failed: unknown client id or wrong secret")
                .hasMessageNotContaining(ETL_SECRET);
        String unknown = credentialStore(hms.directory().resolve("unknown.jceks"), "nobody", ETL_SECRET);
        assertThatThrownBy(() -> hms.hiveClient(plain(unknown, "nobody")))
                .isInstanceOf(MetaException.class)
                .hasMessageContaining("Authentication failed: unknown client id or wrong secret");

        // Without SASL: every call is answered with the settings that would authenticate it, and none runs.
        HiveMetaStoreClient anonymous = hms.hiveClient();
        assertThatThrownBy(anonymous::getAllDatabases)
                .isInstanceOf(TApplicationException.class)
                .hasMessageContaining("Authentication required")
                .hasMessageContaining("metastore.client.auth.mode=PLAIN");
        assertThatThrownBy(() -> anonymous.createDatabase(database("anon")))
                .isInstanceOf(TApplicationException.class)
                .hasMessageContaining("Authentication required");

        String good = credentialStore(hms.directory().resolve("good.jceks"), ETL_ID, ETL_SECRET);
        HiveMetaStoreClient etl = hms.hiveClient(plain(good, ETL_ID));
        assertThat(etl.getAllDatabases()).containsExactly("default");
    }

    @Test
    void plainWorksOnAFramedServerAndClientsWithoutSaslAreAnonymousWhereAllowed() throws Exception {
        String store = credentialStore(framed.directory().resolve("etl.jceks"), ETL_ID, ETL_SECRET);
        // Hive's client does not frame a SASL connection again: SASL's own frames are read whatever the setting.
        HiveMetaStoreClient etl = framed.hiveClient(plain(store, ETL_ID));
        etl.createDatabase(database("sales"));
        assertThat(etl.getAllDatabases()).contains("sales");

        // hms.allow-unauthenticated: a framed client without SASL is served, as the anonymous principal, which the
        // grants deny everything (even the lists other principals get filtered).
        HiveMetaStoreClient anonymous = framed.hiveClient(Map.of("metastore.thrift.framed.transport.enabled", "true"));
        assertThatThrownBy(anonymous::getAllDatabases).isInstanceOf(MetaException.class);
        assertThatThrownBy(() -> anonymous.createDatabase(database("anon")))
                .isInstanceOf(MetaException.class)
                .hasMessage("Namespace does not exist: anon");
        assertThat(etl.getAllDatabases()).doesNotContain("anon");
    }

    @Test
    void badSaslFramesCloseOnlyTheirConnection() throws Exception {
        // A START declaring a 2 GiB mechanism name, a mechanism other than PLAIN, a PLAIN message declaring 1 GiB,
        // an unknown status, and a PLAIN message that is not [authzid] NUL authcid NUL passwd.
        assertThat(exchange(message(HmsAuthTransport.START, Integer.MAX_VALUE, new byte[0])))
                .startsWith("4:SASL mechanism name of 2147483647 bytes is longer than 20");
        assertThat(exchange(message(HmsAuthTransport.START, 8, "GSSAPI!!".getBytes(StandardCharsets.US_ASCII))))
                .isEqualTo("3:Unsupported SASL mechanism: this metastore takes PLAIN only");
        assertThat(exchange(
                        message(HmsAuthTransport.START, 5, "PLAIN".getBytes(StandardCharsets.US_ASCII)),
                        message(HmsAuthTransport.COMPLETE, 1 << 30, new byte[0])))
                .isEqualTo("4:SASL PLAIN message of 1073741824 bytes is longer than 1024");
        assertThat(exchange(
                        message(HmsAuthTransport.START, 5, "PLAIN".getBytes(StandardCharsets.US_ASCII)),
                        message((byte) 9, 0, new byte[0])))
                .isEqualTo("4:Unexpected SASL negotiation status 9 (expected the PLAIN message)");
        byte[] malformed = ("x" + ETL_ID + ETL_SECRET).getBytes(StandardCharsets.UTF_8);
        assertThat(exchange(
                        message(HmsAuthTransport.START, 5, "PLAIN".getBytes(StandardCharsets.US_ASCII)),
                        message(HmsAuthTransport.COMPLETE, malformed.length, malformed)))
                .startsWith("3:Malformed SASL PLAIN message");
        // Someone else's authorization id: no proxy users.
        byte[] proxy = ("admin\0" + ETL_ID + "\0" + ETL_SECRET).getBytes(StandardCharsets.UTF_8);
        assertThat(exchange(
                        message(HmsAuthTransport.START, 5, "PLAIN".getBytes(StandardCharsets.US_ASCII)),
                        message(HmsAuthTransport.COMPLETE, proxy.length, proxy)))
                .isEqualTo("3:SASL PLAIN: acting as another user (an authorization id) is not supported");
        // The right credentials by hand: COMPLETE, empty.
        byte[] good = ("\0" + ETL_ID + "\0" + ETL_SECRET).getBytes(StandardCharsets.UTF_8);
        assertThat(exchange(
                        message(HmsAuthTransport.START, 5, "PLAIN".getBytes(StandardCharsets.US_ASCII)),
                        message(HmsAuthTransport.COMPLETE, good.length, good)))
                .isEqualTo("5:");

        assertThat(hms.hiveClient(plain(
                                credentialStore(hms.directory().resolve("after.jceks"), ETL_ID, ETL_SECRET), ETL_ID))
                        .getAllDatabases())
                .containsExactly("default");
    }

    @Test
    void anAuthenticatedConnectionsFramesStayUnderTheFrameLimit() throws Exception {
        byte[] good = ("\0" + ETL_ID + "\0" + ETL_SECRET).getBytes(StandardCharsets.UTF_8);
        try (Socket socket = new Socket("127.0.0.1", hms.port())) {
            socket.setSoTimeout(10_000);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.write(message(HmsAuthTransport.START, 5, "PLAIN".getBytes(StandardCharsets.US_ASCII)));
            out.write(message(HmsAuthTransport.COMPLETE, good.length, good));
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            assertThat(in.readByte()).isEqualTo(HmsAuthTransport.COMPLETE);
            assertThat(in.readInt()).isZero();
            // A SASL data frame declaring 1 GiB and sending nothing more: over hms.max-frame-size, closed unread.
            out.writeInt(1 << 30);
            out.flush();
            assertThatThrownBy(in::readByte).isInstanceOf(EOFException.class);
        }
        String store = credentialStore(hms.directory().resolve("frames.jceks"), ETL_ID, ETL_SECRET);
        assertThat(hms.hiveClient(plain(store, ETL_ID)).getAllDatabases()).containsExactly("default");
    }

    private static byte[] message(byte status, int declaredLength, byte[] payload) {
        byte[] message = new byte[5 + payload.length];
        message[0] = status;
        message[1] = (byte) (declaredLength >>> 24);
        message[2] = (byte) (declaredLength >>> 16);
        message[3] = (byte) (declaredLength >>> 8);
        message[4] = (byte) declaredLength;
        System.arraycopy(payload, 0, message, 5, payload.length);
        return message;
    }

    /** Sends the messages on a new connection; answers the server's reply as {@code <status>:<payload>}. */
    private String exchange(byte[]... messages) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", hms.port())) {
            socket.setSoTimeout(10_000);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            for (byte[] message : messages) {
                out.write(message);
            }
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte status = in.readByte();
            byte[] payload = new byte[in.readInt()];
            in.readFully(payload);
            String reply = status + ":" + new String(payload, StandardCharsets.UTF_8);
            if (status != HmsAuthTransport.COMPLETE) {
                // Refused: the server closed the connection.
                assertThatThrownBy(in::readByte).isInstanceOf(EOFException.class);
            }
            return reply;
        }
    }
}
