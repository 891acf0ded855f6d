package io.treecat.server;

import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.common.StorageSharedKeyCredential;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Azurite, Azure Storage's emulator, installed with {@code npm install azurite} into {@code target/emulators} and run
 * on loopback in memory. It serves the Blob endpoint only: no ADLS Gen2 {@code dfs} endpoint (docs/object-storage.md
 * says which of ADLSFileIO's calls that leaves out).
 */
final class AzuriteServer implements AutoCloseable {
    static final String VERSION = "3.37.0";
    /** Azurite's well-known development account and key (public, in Azure's documentation). */
    static final String ACCOUNT = "devstoreaccount1";

    static final String ACCOUNT_KEY =
            "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

    private final EmulatorProcess process;
    private final int port;
    private final BlobServiceClient client;

    private AzuriteServer(EmulatorProcess process, int port) {
        this.process = process;
        this.port = port;
        this.client = new BlobServiceClientBuilder()
                .endpoint(endpoint())
                .credential(new StorageSharedKeyCredential(ACCOUNT, ACCOUNT_KEY))
                .buildClient();
    }

    static AzuriteServer start() throws Exception {
        EmulatorProcess.assumeTool("npm");
        Path home = EmulatorProcess.home("azurite-" + VERSION);
        Path binary = home.resolve("node_modules").resolve(".bin").resolve("azurite-blob");
        if (!Files.isExecutable(binary)) {
            EmulatorProcess.install(
                    home,
                    List.of(
                            "npm",
                            "install",
                            "--no-audit",
                            "--no-fund",
                            "--prefix",
                            home.toString(),
                            "azurite@" + VERSION),
                    Map.of());
        }
        int port = FreePorts.next();
        EmulatorProcess process = EmulatorProcess.start(
                home,
                List.of(
                        binary.toString(),
                        "--blobHost",
                        "127.0.0.1",
                        "--blobPort",
                        String.valueOf(port),
                        "--inMemoryPersistence",
                        "--skipApiVersionCheck",
                        "--loose"),
                URI.create("http://127.0.0.1:" + port + "/" + ACCOUNT + "?comp=list"));
        return new AzuriteServer(process, port);
    }

    /** The account's endpoint, path style, as Azurite serves it. */
    String endpoint() {
        return "http://127.0.0.1:" + port + "/" + ACCOUNT;
    }

    void createContainer(String container) {
        client.createBlobContainer(container);
    }

    /** A SAS token for {@code container}: read, write, create, delete and list, valid for an hour. */
    String containerSas(String container) {
        com.azure.storage.blob.sas.BlobContainerSasPermission permission =
                new com.azure.storage.blob.sas.BlobContainerSasPermission()
                        .setReadPermission(true)
                        .setWritePermission(true)
                        .setCreatePermission(true)
                        .setDeletePermission(true)
                        .setListPermission(true)
                        .setAddPermission(true);
        return client.getBlobContainerClient(container)
                .generateSas(new com.azure.storage.blob.sas.BlobServiceSasSignatureValues(
                        java.time.OffsetDateTime.now().plusHours(1), permission));
    }

    /** Every blob name in {@code container}. */
    List<String> keys(String container) {
        BlobContainerClient blobs = client.getBlobContainerClient(container);
        List<String> keys = new ArrayList<>();
        for (BlobItem item : blobs.listBlobs()) {
            keys.add(item.getName());
        }
        return keys;
    }

    String log() throws Exception {
        return process.log();
    }

    @Override
    public void close() throws Exception {
        process.close();
    }
}
