package io.treecat.core.query.exec;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.storage.PathKeys;
import java.util.Base64;

/**
 * Where a paged query stopped: the vid it reads at and the path of the last row returned. Results
 * come in path order, so the next page is every matching path after that one, at the same vid. The
 * token is opaque to clients: base64url of a format byte, the vid and the path's storage key.
 */
public record Continuation(long vid, ObjectPath lastPath) {
    private static final byte FORMAT = 1;

    public String encode() {
        byte[] pathKey = PathKeys.pathKey(lastPath);
        byte[] bytes = new byte[1 + 8 + pathKey.length];
        bytes[0] = FORMAT;
        PathKeys.writeLong(bytes, 1, vid);
        System.arraycopy(pathKey, 0, bytes, 9, pathKey.length);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    public static Continuation decode(String token) {
        try {
            byte[] bytes = Base64.getUrlDecoder().decode(token);
            if (bytes.length < 10 || bytes[0] != FORMAT) {
                throw invalid(token);
            }
            long vid = PathKeys.readLong(bytes, 1);
            byte[] pathKey = new byte[bytes.length - 9];
            System.arraycopy(bytes, 9, pathKey, 0, pathKey.length);
            ObjectPath path = PathKeys.decodePath(pathKey);
            if (vid < 0 || path.isRoot() || !java.util.Arrays.equals(PathKeys.pathKey(path), pathKey)) {
                throw invalid(token);
            }
            return new Continuation(vid, path);
        } catch (IllegalArgumentException | IndexOutOfBoundsException | CatalogException e) {
            throw invalid(token);
        }
    }

    private static CatalogException invalid(String token) {
        return new CatalogException(
                        ErrorCode.INVALID_CONTINUATION,
                        "Invalid continuation token; pass back the token a page returned")
                .with("token", token.length() > 64 ? token.substring(0, 64) + "..." : token);
    }
}
