package io.treecat.rest.nativeapi;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.treecat.core.history.CommitRecord;
import io.treecat.core.history.PathChange;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.HistoryPage;
import io.treecat.core.service.HistoryRequest;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The JSON mirror of {@code ListCommits}: {@code GET /treecat/v1/commits?path=&since=&until=&limit=
 * &order=&pageToken=&principal=}. {@code since} and {@code until} are each a vid (digits) or an RFC 3339 time.
 * {@code principal} keeps only that principal's commits (the audit trail, docs/security.md "Audit"): the page is
 * filtered after it is read, so it may hold fewer commits than {@code limit}, even none, while its {@code
 * nextPageToken} still leads on.
 */
@Path(NativeApi.ROOT + "/commits")
@Produces(MediaType.APPLICATION_JSON)
public final class HistoryResource {
    private final Supplier<CatalogService> catalog;

    public HistoryResource(Supplier<CatalogService> catalog) {
        this.catalog = requireNonNull(catalog, "catalog is null");
    }

    @GET
    public CommitList list(
            @QueryParam("path") String path,
            @QueryParam("since") String since,
            @QueryParam("until") String until,
            @QueryParam("limit") String limit,
            @QueryParam("order") String order,
            @QueryParam("pageToken") String pageToken,
            @QueryParam("principal") String principal) {
        int pageSize = HistoryRequest.DEFAULT_LIMIT;
        if (limit != null) {
            long asked = Requests.longParameter("limit", limit);
            pageSize = (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, asked));
        }
        HistoryPage page = catalog.get()
                .listCommits(new HistoryRequest(
                        path == null || path.isEmpty() ? ObjectPath.ROOT : ObjectPath.parse(path),
                        HistoryRequest.bound(since, "since"),
                        HistoryRequest.bound(until, "until"),
                        pageSize,
                        newestFirst(order),
                        pageToken == null || pageToken.isEmpty() ? null : pageToken));
        return new CommitList(
                page.commits().stream()
                        .filter(record -> principal == null
                                || principal.equals(record.origin().principal()))
                        .map(Commit::of)
                        .toList(),
                page.nextPageToken().orElse(null));
    }

    private static boolean newestFirst(String order) {
        if (order == null) {
            return false;
        }
        return switch (order.toLowerCase(Locale.ROOT)) {
            case "oldest" -> false;
            case "newest" -> true;
            default ->
                throw ApiException.invalidRequest("order must be \"oldest\" or \"newest\"")
                        .with("parameter", "order")
                        .with("value", order.length() > 32 ? order.substring(0, 32) + "…" : order);
        };
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record CommitList(List<Commit> commits, String nextPageToken) {}

    /** One commit, as {@code CommitEntry} in the proto; {@code principal} is absent until authentication exists. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Commit(
            long vid,
            String commitTime,
            String principal,
            @JsonProperty("interface") String interfaceName,
            String operation,
            int added,
            int updated,
            int removed,
            boolean compact,
            List<Change> changes,
            List<String> prefixes) {
        static Commit of(CommitRecord record) {
            return new Commit(
                    record.vid(),
                    record.commitTime().toString(),
                    record.origin().principal(),
                    record.origin().interfaceName(),
                    record.origin().operation(),
                    record.added(),
                    record.updated(),
                    record.removed(),
                    record.compact(),
                    record.compact()
                            ? null
                            : record.changes().stream().map(Change::of).toList(),
                    record.compact()
                            ? record.prefixes().stream()
                                    .map(ObjectPath::toString)
                                    .toList()
                            : null);
        }
    }

    /** {@code change} is added, updated or removed; {@code kind} inner or leaf. */
    public record Change(String path, String change, String kind) {
        static Change of(PathChange change) {
            return new Change(
                    change.path().toString(),
                    change.change().name().toLowerCase(Locale.ROOT),
                    change.objectKind().name().toLowerCase(Locale.ROOT));
        }
    }
}
