package io.treecat.lakehouse.storage;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.util.List;
import java.util.Locale;

/**
 * The inline session policy of credentials vended for one table (STS {@code AssumeRole} with {@code Policy}): the
 * effective permissions are the role's intersected with this, so a client holding them reaches the table's own
 * objects and nothing else in the bucket, whatever the role allows. Not yet wired to STS: the vending itself is a later
 * step of issue 17 (docs/object-storage.md).
 */
public final class SessionPolicies {
    /** What a caller may do with the table's files. */
    public enum Access {
        /**
         * Read only: for callers that only read, once authorization tells them apart (every caller is anonymous
         * today, so nothing chooses it yet).
         */
        READ,
        /** Read, write and delete the table's objects, as a writer's S3FileIO does. */
        READ_WRITE
    }

    /** STS refuses a packed inline session policy longer than this. */
    static final int MAX_POLICY_CHARS = 2048;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> READ_ACTIONS = List.of("s3:GetObject", "s3:GetObjectVersion");
    private static final List<String> WRITE_ACTIONS =
            List.of("s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts");

    private SessionPolicies() {}

    /**
     * The policy for the table at {@code tableLocation} ({@code s3://bucket/prefix}): object actions on
     * {@code bucket/prefix/*}, and {@code s3:ListBucket} on the bucket only with an {@code s3:prefix} under it.
     *
     * @throws IllegalArgumentException for a location not on S3, at a bucket's root, with a {@code .} or {@code ..}
     *     segment, or holding a character IAM reads as a wildcard or variable ({@code *}, {@code ?}, {@code $}), which
     *     would widen the scope beyond the table
     */
    public static String forTable(String tableLocation, Access access) {
        // Checked on the text, before URI parsing would take a '?' or '#' as the start of a query or fragment.
        if (tableLocation.matches(".*[*?$#].*")) {
            throw new IllegalArgumentException(
                    "The table's location holds a character an IAM policy reads as a wildcard or variable (*, ?, $)");
        }
        URI uri = URI.create(Locations.stripSlash(tableLocation));
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!StorageSchemes.sameStore(scheme, "s3") || uri.getHost() == null) {
            throw new IllegalArgumentException("Vended credentials serve only tables on S3");
        }
        String bucket = uri.getHost();
        String prefix = uri.getPath() == null ? "" : uri.getPath().replaceFirst("^/", "");
        if (prefix.isEmpty() || Locations.hasDotSegment(tableLocation)) {
            throw new IllegalArgumentException("Vended credentials need a table location below its bucket's root");
        }
        ObjectNode policy = JSON.createObjectNode().put("Version", "2012-10-17");
        ArrayNode statements = policy.putArray("Statement");
        ObjectNode objects = statements.addObject().put("Effect", "Allow");
        ArrayNode actions = objects.putArray("Action");
        READ_ACTIONS.forEach(actions::add);
        if (access == Access.READ_WRITE) {
            WRITE_ACTIONS.forEach(actions::add);
        }
        objects.put("Resource", "arn:aws:s3:::" + bucket + "/" + prefix + "/*");
        ObjectNode list = statements
                .addObject()
                .put("Effect", "Allow")
                .put("Action", "s3:ListBucket")
                .put("Resource", "arn:aws:s3:::" + bucket);
        list.putObject("Condition")
                .putObject("StringLike")
                .putArray("s3:prefix")
                .add(prefix)
                .add(prefix + "/*");
        String text = policy.toString();
        if (text.length() > MAX_POLICY_CHARS) {
            throw new IllegalArgumentException("The table's location is too long for an STS session policy");
        }
        return text;
    }
}
