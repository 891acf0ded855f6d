package io.treecat.server.tls;

import static java.util.Objects.requireNonNull;

import io.treecat.server.config.TlsConfig;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A listener's TLS material read from its {@link TlsConfig} PEM files with the JDK alone: certificates by
 * {@link CertificateFactory}, the PKCS#8 key by {@link KeyFactory}. Everything is checked at start (files
 * readable, a key that matches the leaf certificate), and every failure is an {@link IllegalStateException}
 * naming the listener and the file, never the key's contents, so a bad Secret stops the process at once
 * instead of at the first handshake.
 */
public final class PemTls {
    /** In-memory only: the password guards nothing, but the KeyStore API requires one. */
    private static final char[] IN_MEMORY = "treecat".toCharArray();

    private static final String ALIAS = "server";
    private static final Pattern PEM_BLOCK = Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----([^-]*)-----END \\1-----");
    private static final List<String> KEY_ALGORITHMS = List.of("RSA", "EC", "Ed25519", "Ed448");

    private final String listener;
    private final PrivateKey key;
    private final List<X509Certificate> chain;
    private final Optional<List<X509Certificate>> clientCas;

    private PemTls(
            String listener, PrivateKey key, List<X509Certificate> chain, Optional<List<X509Certificate>> clientCas) {
        this.listener = listener;
        this.key = key;
        this.chain = List.copyOf(chain);
        this.clientCas = clientCas.map(List::copyOf);
    }

    /** Reads and checks the listener's PEM files; {@code listener} names it in every error ("REST application"). */
    public static PemTls load(String listener, TlsConfig config) {
        requireNonNull(listener, "listener is null");
        requireNonNull(config, "config is null");
        List<X509Certificate> chain = certificates(listener, "certificate chain", config.certificateChain());
        PrivateKey key = privateKey(listener, config.privateKey());
        checkMatch(listener, config, key, chain.get(0));
        Optional<List<X509Certificate>> clientCas =
                config.clientCa().map(path -> certificates(listener, "client CA", path));
        return new PemTls(listener, key, chain, clientCas);
    }

    public PrivateKey privateKey() {
        return key;
    }

    /** The certificate chain, leaf first. */
    public List<X509Certificate> certificateChain() {
        return chain;
    }

    /** The client CAs, when configured: read and checked; mutual TLS is not enforced yet. */
    public Optional<List<X509Certificate>> clientCas() {
        return clientCas;
    }

    /** A KeyStore in memory holding the key and its chain under one entry, for Jetty's SslContextFactory. */
    public KeyStore keyStore() {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry(ALIAS, key, IN_MEMORY, chain.toArray(Certificate[]::new));
            return store;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("TLS for " + listener + ": cannot hold the key and certificate chain", e);
        }
    }

    /** The password of {@link #keyStore()}'s entry. */
    public String keyStorePassword() {
        return new String(IN_MEMORY);
    }

    /** Key managers over this key and chain: what gRPC's {@code TlsServerCredentials} takes. */
    public KeyManager[] keyManagers() {
        try {
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(keyStore(), IN_MEMORY);
            return keys.getKeyManagers();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("TLS for " + listener + ": cannot build the key managers", e);
        }
    }

    /** A server SSLContext over this key and chain (TLS 1.2 and 1.3 by the JDK's defaults). */
    public SSLContext sslContext() {
        try {
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(keyStore(), IN_MEMORY);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys.getKeyManagers(), null, new SecureRandom());
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("TLS for " + listener + ": cannot build the TLS context", e);
        }
    }

    /** A trust store of the given certificates (a client's CA, or the client CAs), e.g. for a TrustManagerFactory. */
    public static KeyStore trustStore(List<X509Certificate> certificates) {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            for (int i = 0; i < certificates.size(); i++) {
                store.setCertificateEntry("ca-" + i, certificates.get(i));
            }
            return store;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("Cannot hold the CA certificates", e);
        }
    }

    /** A client SSLContext trusting only the given CAs: for clients and tests. */
    public static SSLContext clientContext(List<X509Certificate> cas) {
        try {
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trustStore(cas));
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), new SecureRandom());
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Cannot build a TLS client context", e);
        }
    }

    /** The PEM certificates of one file, in order; for the listener's errors, {@code what} names the file's role. */
    public static List<X509Certificate> certificates(String listener, String what, Path file) {
        byte[] bytes = read(listener, what, file);
        try {
            List<X509Certificate> certificates =
                    CertificateFactory.getInstance("X.509")
                            .generateCertificates(new ByteArrayInputStream(bytes))
                            .stream()
                            .map(X509Certificate.class::cast)
                            .toList();
            if (certificates.isEmpty()) {
                throw new IllegalStateException(
                        "TLS for " + listener + ": the " + what + " file " + file + " holds no PEM certificate");
            }
            return certificates;
        } catch (CertificateException e) {
            throw new IllegalStateException(
                    "TLS for " + listener + ": the " + what + " file " + file + " is not a PEM certificate list", e);
        }
    }

    /**
     * The PKCS#8 key of {@code file}. Its bytes are never turned into a {@code String} (which would stay on the heap,
     * unclearable, until collected): the PEM is matched over a char array and decoded from a byte slice, and every
     * copy is zeroed once the JDK's key object holds the key.
     */
    private static PrivateKey privateKey(String listener, Path file) {
        byte[] bytes = read(listener, "private key", file);
        char[] chars = new char[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            chars[i] = (char) (bytes[i] & 0xff); // one char per byte: match positions are byte positions
        }
        try {
            Matcher block = PEM_BLOCK.matcher(CharBuffer.wrap(chars));
            if (!block.find()) {
                throw keyError(listener, file, "holds no PEM block");
            }
            String type = block.group(1);
            switch (type) {
                case "PRIVATE KEY" -> {
                    // Decoded below.
                }
                case "ENCRYPTED PRIVATE KEY" ->
                    throw keyError(
                            listener,
                            file,
                            "is encrypted, which TreeCat does not support (openssl pkcs8 -topk8 -nocrypt)");
                case "RSA PRIVATE KEY", "EC PRIVATE KEY" ->
                    throw keyError(
                            listener,
                            file,
                            "is " + type + " (PKCS#1/SEC1), not PKCS#8 (openssl pkcs8 -topk8 -nocrypt)");
                default -> throw keyError(listener, file, "holds a " + type + " block, not a PKCS#8 PRIVATE KEY");
            }
            byte[] base64 = Arrays.copyOfRange(bytes, block.start(2), block.end(2));
            byte[] der;
            try {
                der = Base64.getMimeDecoder().decode(base64);
            } catch (IllegalArgumentException e) {
                throw keyError(listener, file, "is not valid base64");
            } finally {
                Arrays.fill(base64, (byte) 0);
            }
            try {
                PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
                for (String algorithm : KEY_ALGORITHMS) {
                    try {
                        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
                    } catch (InvalidKeySpecException | java.security.NoSuchAlgorithmException e) {
                        // Not this algorithm: the PKCS#8 wrapper names it, the JDK's factories each accept only
                        // their own.
                    }
                }
                throw keyError(listener, file, "is not an RSA, EC or EdDSA PKCS#8 key");
            } finally {
                Arrays.fill(der, (byte) 0);
            }
        } finally {
            Arrays.fill(chars, '\0');
            Arrays.fill(bytes, (byte) 0);
        }
    }

    /** The key must be the leaf certificate's: it signs a probe that the certificate's public key verifies. */
    private static void checkMatch(String listener, TlsConfig config, PrivateKey key, X509Certificate leaf) {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            default -> key.getAlgorithm();
        };
        byte[] probe = "treecat-tls-key-check".getBytes(StandardCharsets.US_ASCII);
        boolean matches;
        try {
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(leaf.getPublicKey());
            verifier.update(probe);
            matches = verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            matches = false;
        }
        if (!matches) {
            throw new IllegalStateException("TLS for " + listener + ": the private key " + config.privateKey()
                    + " does not match the first certificate of " + config.certificateChain());
        }
    }

    private static byte[] read(String listener, String what, Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            // The exception's own message can carry OS detail; the file and the reason's type are enough.
            throw new IllegalStateException("TLS for " + listener + ": cannot read the " + what + " file " + file + " ("
                    + e.getClass().getSimpleName() + ")");
        }
    }

    private static IllegalStateException keyError(String listener, Path file, String why) {
        return new IllegalStateException("TLS for " + listener + ": the private key file " + file + " " + why);
    }
}
