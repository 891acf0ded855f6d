package io.treecat.lakehouse.storage;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableMap;
import java.net.URI;
import java.util.List;
import java.util.Map;

/**
 * Signs an object-store request with a catalog's own credentials, for a client that has none (remote signing). The
 * lakehouse decides what may be signed ({@link SigningScope}); the server supplies the signing itself, since only it
 * ships the store's SDK.
 */
@FunctionalInterface
public interface RequestSigner {
    /** For a server without a store SDK: every request is refused as not signable. */
    RequestSigner NONE = (warehouse, request) -> {
        throw new UnsupportedOperationException("This server signs no object-store requests");
    };

    /**
     * Signs {@code request} with the credentials of {@code warehouse}'s FileIO. The caller has checked the request
     * against the table's {@link SigningScope}.
     *
     * @throws UnsupportedOperationException when the warehouse is not on a store this signer serves
     */
    Signed sign(Warehouse warehouse, Request request);

    /**
     * What the client asks to have signed.
     *
     * @param method the HTTP method
     * @param uri the request's URI, percent-encoded as it will be sent
     * @param region the signing region the client's SDK chose
     * @param headers the headers to sign, as the client will send them
     */
    record Request(String method, URI uri, String region, Map<String, List<String>> headers) {
        public Request {
            requireNonNull(method, "method is null");
            requireNonNull(uri, "uri is null");
            requireNonNull(region, "region is null");
            headers = ImmutableMap.copyOf(headers);
        }
    }

    /**
     * The signed request: the URI to send and every header to send, the {@code Authorization} among them.
     */
    record Signed(URI uri, Map<String, List<String>> headers) {
        public Signed {
            requireNonNull(uri, "uri is null");
            headers = ImmutableMap.copyOf(headers);
        }
    }
}
