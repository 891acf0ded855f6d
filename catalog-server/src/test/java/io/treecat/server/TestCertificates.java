package io.treecat.server;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throwaway CA and a server certificate it signed (SAN 127.0.0.1 and localhost), made by the JDK's own
 * {@code keytool} in a temporary directory, written as the PEM files a Kubernetes TLS Secret holds:
 * {@code tls.crt} (leaf then CA), {@code tls.key} (PKCS#8), {@code ca.crt}.
 */
record TestCertificates(Path certificateChain, Path privateKey, Path ca, Path otherKey) {
    private static final String PASSWORD = "test-only";

    static TestCertificates create(Path directory) throws Exception {
        Files.createDirectories(directory);
        Path caStore = directory.resolve("ca.p12");
        Path serverStore = directory.resolve("server.p12");
        Path otherStore = directory.resolve("other.p12");
        keytool(
                directory,
                "-genkeypair",
                "-alias",
                "ca",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=TreeCat Test CA",
                "-ext",
                "bc:c",
                "-validity",
                "2",
                "-keystore",
                caStore.toString());
        keytool(
                directory,
                "-genkeypair",
                "-alias",
                "server",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=localhost",
                "-validity",
                "2",
                "-keystore",
                serverStore.toString());
        keytool(
                directory,
                "-genkeypair",
                "-alias",
                "other",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=other",
                "-validity",
                "2",
                "-keystore",
                otherStore.toString());
        Path request = directory.resolve("server.csr");
        keytool(
                directory,
                "-certreq",
                "-alias",
                "server",
                "-keystore",
                serverStore.toString(),
                "-file",
                request.toString());
        Path leaf = directory.resolve("server.crt");
        keytool(
                directory,
                "-gencert",
                "-alias",
                "ca",
                "-keystore",
                caStore.toString(),
                "-infile",
                request.toString(),
                "-outfile",
                leaf.toString(),
                "-rfc",
                "-validity",
                "2",
                "-ext",
                "SAN=ip:127.0.0.1,dns:localhost");
        Path ca = directory.resolve("ca.crt");
        keytool(
                directory,
                "-exportcert",
                "-alias",
                "ca",
                "-keystore",
                caStore.toString(),
                "-rfc",
                "-file",
                ca.toString());
        Path chain = directory.resolve("tls.crt");
        Files.writeString(chain, Files.readString(leaf) + Files.readString(ca));
        Path key = directory.resolve("tls.key");
        Files.writeString(key, pkcs8(serverStore, "server"));
        Path otherKey = directory.resolve("other.key");
        Files.writeString(otherKey, pkcs8(otherStore, "other"));
        return new TestCertificates(chain, key, ca, otherKey);
    }

    private static String pkcs8(Path store, String alias) throws IOException, GeneralSecurityException {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keys.load(in, PASSWORD.toCharArray());
        }
        PrivateKey key = (PrivateKey) keys.getKey(alias, PASSWORD.toCharArray());
        return "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                        .encodeToString(key.getEncoded())
                + "\n-----END PRIVATE KEY-----\n";
    }

    private static void keytool(Path directory, String... arguments) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(arguments));
        command.addAll(List.of("-storetype", "PKCS12", "-storepass", PASSWORD, "-noprompt"));
        Process process = new ProcessBuilder(command)
                .directory(directory.toFile())
                .redirectErrorStream(true)
                .start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException("keytool " + arguments[0] + " failed: " + output);
        }
    }
}
