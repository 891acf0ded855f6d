package io.treecat.lakehouse.storage;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;

/**
 * A catalog's object-store {@code FileIO} (Iceberg's {@code S3FileIO}, …) together with the credential values it was
 * built with, so that an error of the store can be shown without them ({@link #scrub}). Everything else is the
 * store's FileIO's own behaviour. Closing it closes the store's clients.
 */
public final class StoreFileIO implements FileIO {
    private static final long serialVersionUID = 1L;

    private static final String HIDDEN = "****";

    private final FileIO delegate;
    private final transient List<String> secrets;
    private final Map<String, String> settings;
    private final StorageCredentials credentials;

    StoreFileIO(FileIO delegate, List<String> secrets) {
        this(delegate, secrets, Map.of());
    }

    StoreFileIO(FileIO delegate, List<String> secrets, Map<String, String> settings) {
        this(delegate, secrets, settings, StorageCredentials.defaultChain());
    }

    /**
     * @param settings the warehouse's configured properties ({@link StorageSettings#properties()}), which hold no
     *     credential ({@link StorageSettings#checkStored})
     * @param credentials where the warehouse's credentials come from (references only), and its vending settings
     */
    StoreFileIO(FileIO delegate, List<String> secrets, Map<String, String> settings, StorageCredentials credentials) {
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.secrets = List.copyOf(secrets);
        this.settings = Map.copyOf(settings);
        this.credentials = requireNonNull(credentials, "credentials is null");
    }

    /** Where the warehouse's credentials come from, and its vending settings: references, never a key. */
    public StorageCredentials credentials() {
        return credentials;
    }

    /**
     * The warehouse's configured properties (endpoint, region, path style, …), never a credential: what a client that
     * reaches the store itself (remote signing, vended credentials) is told about it.
     */
    public Map<String, String> settings() {
        return settings;
    }

    /** The store's own FileIO. */
    public FileIO delegate() {
        return delegate;
    }

    /** {@code text} with every credential value this FileIO holds replaced by {@code ****}. */
    public String scrub(String text) {
        if (text == null) {
            return null;
        }
        String result = text;
        for (String secret : secrets) {
            if (!secret.isEmpty()) {
                result = result.replace(secret, HIDDEN);
            }
        }
        return result;
    }

    @Override
    public InputFile newInputFile(String path) {
        return delegate.newInputFile(path);
    }

    @Override
    public InputFile newInputFile(String path, long length) {
        return delegate.newInputFile(path, length);
    }

    @Override
    public OutputFile newOutputFile(String path) {
        return delegate.newOutputFile(path);
    }

    @Override
    public void deleteFile(String path) {
        delegate.deleteFile(path);
    }

    /** The store's properties without the credentials: what a caller may show. */
    @Override
    public Map<String, String> properties() {
        return Map.of();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
