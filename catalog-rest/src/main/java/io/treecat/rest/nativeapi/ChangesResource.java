package io.treecat.rest.nativeapi;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.treecat.core.feed.ChangeFeed;
import io.treecat.core.feed.ChangeFilter;
import io.treecat.core.feed.FeedPage;
import io.treecat.core.history.ChangeKind;
import io.treecat.core.history.CommitQuery;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.HistoryRequest;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.MediaType;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JSON mirror of {@code Subscribe}, as long-poll pages: {@code GET /treecat/v1/changes?after=
 * &path=&kinds=&limit=&wait=}. Answers at once when matching commits follow {@code after};
 * otherwise waits up to {@code wait} (capped by {@code feed.max-wait}) for one, without holding a
 * server thread (the request is suspended, and a publish resumes it), then answers an empty page.
 * Every page says where to resume: {@code resumeAfter}, the {@code after} of the next request.
 */
@Path(NativeApi.ROOT + "/changes")
@Produces(MediaType.APPLICATION_JSON)
public final class ChangesResource {
    private static final Pattern DURATION = Pattern.compile("(\\d{1,9})(ms|s|m)?");

    private final Supplier<ChangeFeed> feed;
    private final Duration maxWait;

    /**
     * @param maxWait the longest a request may wait; a longer {@code wait} is cut to it
     */
    public ChangesResource(Supplier<ChangeFeed> feed, Duration maxWait) {
        this.feed = requireNonNull(feed, "feed is null");
        this.maxWait = requireNonNull(maxWait, "maxWait is null");
    }

    @GET
    public void changes(
            @QueryParam("after") String after,
            @QueryParam("path") String path,
            @QueryParam("kinds") String kinds,
            @QueryParam("limit") String limit,
            @QueryParam("wait") String wait,
            @Suspended AsyncResponse response) {
        try {
            OptionalLong afterVid = after == null || after.isEmpty()
                    ? OptionalLong.empty()
                    : OptionalLong.of(Requests.longParameter("after", after));
            ChangeFilter filter = filter(path, kinds);
            int pageSize = limit(limit);
            Duration waitFor = wait(wait);
            ChangeFeed changes = feed.get();
            long position = changes.startPosition(afterVid);
            changes.poll(filter, position, pageSize, waitFor).whenComplete((page, failure) -> {
                if (failure != null) {
                    response.resume(failure instanceof CompletionException ? failure.getCause() : failure);
                } else {
                    response.resume(ChangePage.of(page));
                }
            });
        } catch (RuntimeException e) {
            response.resume(e);
        }
    }

    private static ChangeFilter filter(String path, String kinds) {
        ObjectPath prefix = path == null || path.isEmpty() ? ObjectPath.ROOT : ObjectPath.parse(path);
        Set<ChangeKind> changes = EnumSet.noneOf(ChangeKind.class);
        Set<ObjectKind> objectKinds = EnumSet.noneOf(ObjectKind.class);
        if (kinds != null && !kinds.isEmpty()) {
            for (String kind : kinds.split(",", -1)) {
                switch (kind.trim().toLowerCase(Locale.ROOT)) {
                    case "added" -> changes.add(ChangeKind.ADDED);
                    case "updated" -> changes.add(ChangeKind.UPDATED);
                    case "removed" -> changes.add(ChangeKind.REMOVED);
                    case "inner" -> objectKinds.add(ObjectKind.INNER);
                    case "leaf" -> objectKinds.add(ObjectKind.LEAF);
                    default ->
                        throw ApiException.invalidRequest(
                                        "kinds is a comma-separated list of added, updated, removed, inner and leaf")
                                .with("parameter", "kinds")
                                .with("value", kind.length() > 32 ? kind.substring(0, 32) + "…" : kind);
                }
            }
        }
        return new ChangeFilter(prefix, changes, objectKinds);
    }

    private static int limit(String limit) {
        if (limit == null) {
            return HistoryRequest.DEFAULT_LIMIT;
        }
        long asked = Requests.longParameter("limit", limit);
        if (asked < 1 || asked > CommitQuery.MAX_LIMIT) {
            throw ApiException.invalidRequest("limit must be between 1 and " + CommitQuery.MAX_LIMIT)
                    .with("parameter", "limit")
                    .with("value", asked);
        }
        return (int) asked;
    }

    /** {@code 30s}, {@code 500ms}, {@code 2m}, or bare seconds; absent is 0 (answer at once). */
    private Duration wait(String wait) {
        if (wait == null || wait.isEmpty()) {
            return Duration.ZERO;
        }
        Matcher matcher = DURATION.matcher(wait.trim());
        if (!matcher.matches()) {
            throw ApiException.invalidRequest("wait is a duration such as 30s, 500ms or 2m")
                    .with("parameter", "wait")
                    .with("value", wait.length() > 32 ? wait.substring(0, 32) + "…" : wait);
        }
        long amount = Long.parseLong(matcher.group(1));
        String unit = matcher.group(2) == null ? "s" : matcher.group(2);
        Duration asked = switch (unit) {
            case "ms" -> Duration.ofMillis(amount);
            case "m" -> Duration.ofMinutes(amount);
            default -> Duration.ofSeconds(amount);
        };
        return asked.compareTo(maxWait) > 0 ? maxWait : asked;
    }

    /**
     * One page: the matching commits (as {@code /commits} lists them), the vid to pass as {@code
     * after} next, and whether that is the newest vid (else ask again at once: the server scanned its
     * budget of commits the filter refused).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ChangePage(List<HistoryResource.Commit> commits, long resumeAfter, boolean caughtUp) {
        static ChangePage of(FeedPage page) {
            return new ChangePage(
                    page.records().stream().map(HistoryResource.Commit::of).toList(), page.position(), page.caughtUp());
        }
    }
}
