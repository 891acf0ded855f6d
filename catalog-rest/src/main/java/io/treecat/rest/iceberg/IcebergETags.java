package io.treecat.rest.iceberg;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * ETags of table responses. A table's metadata file is immutable and a commit always writes a new
 * one, so its location names one version of the metadata; the snapshot mode is part of the tag
 * because {@code snapshots=refs} and {@code snapshots=all} answer different bodies for one version
 * (the spec asks for distinct tags).
 */
final class IcebergETags {
    private IcebergETags() {}

    /** A strong, quoted entity tag: {@code "<hex of SHA-256(metadata location, mode)>"}. */
    static String of(String metadataLocation, String snapshotMode) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            digest.update(metadataLocation.getBytes(StandardCharsets.UTF_8));
            digest.update((byte) 0);
            digest.update(snapshotMode.getBytes(StandardCharsets.UTF_8));
            return '"' + HexFormat.of().formatHex(digest.digest(), 0, 16) + '"';
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from the JDK", e);
        }
    }

    /** Whether an {@code If-None-Match} header (a list of tags, weak or strong, or {@code *}) names {@code etag}. */
    static boolean matches(String ifNoneMatch, String etag) {
        if (ifNoneMatch == null || ifNoneMatch.isBlank()) {
            return false;
        }
        for (String candidate : ifNoneMatch.split(",")) {
            String tag = candidate.trim();
            if (tag.startsWith("W/")) {
                tag = tag.substring(2);
            }
            if (tag.equals("*") || tag.equals(etag) || ('"' + tag + '"').equals(etag)) {
                return true;
            }
        }
        return false;
    }
}
