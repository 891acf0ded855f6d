package io.treecat.rest.iceberg;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.treecat.core.history.CommitPage;
import io.treecat.core.history.CommitQuery;
import io.treecat.core.history.CommitRecord;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogService;
import io.treecat.lakehouse.events.LakeEvent;
import io.treecat.lakehouse.events.LakeEvents;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.io.IOException;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.iceberg.exceptions.BadRequestException;

/**
 * <b>Experimental</b>: the Iceberg REST events endpoint as proposed (apache/iceberg pull request
 * 12584, not in the spec of Iceberg 1.11), {@code POST /v1/{prefix}/events}, translated from the
 * commit log: each commit is one request ({@code request-id} = its vid) whose namespace, table and
 * view changes in the prefix's catalog are its events ({@link LakeEvents}). Served only when {@code
 * iceberg.events-endpoint} is on (docs/iceberg-rest.md).
 */
@Path(IcebergRest.ROOT + "/{prefix}/events")
@Produces(MediaType.APPLICATION_JSON)
public final class IcebergEventsResource {
    static final int DEFAULT_PAGE_SIZE = 100;
    static final int MAX_PAGE_SIZE = 1000;
    /** Commits looked at per request before a shorter page is returned with its token. */
    static final int SCAN_BUDGET = 1000;

    private static final String TOKEN_PREFIX = "ev1.";
    private static final Set<String> FIELDS =
            Set.of("continuation-token", "page-size", "operation-types", "since-timestamp-ms");
    private static final List<String> OPERATION_TYPES = List.of(
            "create-namespace",
            "update-namespace-properties",
            "drop-namespace",
            "create-table",
            "update-table",
            "drop-table",
            "rename-table",
            "create-view",
            "replace-view",
            "drop-view",
            "rename-view");

    private final Supplier<CatalogService> catalog;
    private final ObjectMapper mapper = new ObjectMapper();

    public IcebergEventsResource(Supplier<CatalogService> catalog) {
        this.catalog = requireNonNull(catalog, "catalog is null");
    }

    @POST
    public ObjectNode events(@PathParam("prefix") String prefix, String body) {
        CatalogPrefix parsed = CatalogPrefix.parse(prefix);
        if (parsed.readOnly()) {
            throw new BadRequestException(
                    "Events are read from the newest version: use the prefix %s with a continuation-token",
                    parsed.catalog());
        }
        JsonNode request = request(body);
        int pageSize = pageSize(request.get("page-size"));
        Set<String> types = operationTypes(request.get("operation-types"));
        CatalogService service = catalog.get();
        long vid;
        int skip = 0;
        JsonNode token = request.get("continuation-token");
        if (token != null && !token.isNull()) {
            long[] position = decode(token);
            vid = position[0];
            skip = (int) position[1];
        } else if (request.hasNonNull("since-timestamp-ms")) {
            JsonNode since = request.get("since-timestamp-ms");
            if (!since.isIntegralNumber()) {
                throw new BadRequestException("Invalid since-timestamp-ms: not an integer: %s", since);
            }
            OptionalLong before = service.tree().log().vidAt(since.asLong() - 1);
            vid = before.isPresent() ? before.getAsLong() + 1 : 1;
        } else {
            vid = 1;
        }

        LakeEvents lake = new LakeEvents(service);
        ArrayNode events = JsonNodeFactory.instance.arrayNode();
        long newest = service.lastVid();
        Long highest = null;
        int scanned = 0;
        while (vid <= newest && events.size() < pageSize && scanned < SCAN_BUDGET) {
            CommitPage page = service.listCommits(
                    new CommitQuery(vid, newest, ObjectPath.of(parsed.catalog()), CommitQuery.MAX_LIMIT, false));
            if (page.records().isEmpty()) {
                vid = page.nextVid().orElse(newest + 1);
                continue;
            }
            for (CommitRecord record : page.records()) {
                scanned++;
                List<LakeEvent> all = lake.of(record, parsed.catalog());
                int index = record.vid() == vid ? skip : 0;
                for (; index < all.size() && events.size() < pageSize; index++) {
                    LakeEvent event = all.get(index);
                    String type = operationType(event);
                    if (types.isEmpty() || types.contains(type)) {
                        events.add(event(record, event, index, all.size(), type));
                    }
                }
                highest = record.commitTimeMillis();
                if (index < all.size()) {
                    return answer(record.vid(), index, highest, events);
                }
                vid = record.vid() + 1;
                skip = 0;
                if (events.size() == pageSize || scanned == SCAN_BUDGET) {
                    break;
                }
            }
            if (page.nextVid().isEmpty() && vid <= newest && events.size() < pageSize && scanned < SCAN_BUDGET) {
                vid = newest + 1;
            }
        }
        return answer(vid, 0, highest, events);
    }

    private JsonNode request(String body) {
        if (body == null || body.isBlank()) {
            return JsonNodeFactory.instance.objectNode();
        }
        JsonNode request;
        try {
            request = mapper.readTree(body);
        } catch (IOException e) {
            throw new BadRequestException("Malformed request: the body is not JSON");
        }
        if (!request.isObject()) {
            throw new BadRequestException("Malformed request: the body is not a JSON object");
        }
        for (Iterator<String> names = request.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                throw new BadRequestException(
                        "Unsupported events request field: %s (this server filters by %s only)",
                        name.length() > 64 ? name.substring(0, 64) + "…" : name,
                        "operation-types and since-timestamp-ms");
            }
        }
        return request;
    }

    private static int pageSize(JsonNode value) {
        if (value == null || value.isNull()) {
            return DEFAULT_PAGE_SIZE;
        }
        if (!value.isIntegralNumber() || value.asLong() < 1) {
            throw new BadRequestException("Invalid page-size: must be a positive integer: %s", value);
        }
        return (int) Math.min(value.asLong(), MAX_PAGE_SIZE);
    }

    private static Set<String> operationTypes(JsonNode value) {
        Set<String> types = new HashSet<>();
        if (value == null || value.isNull()) {
            return types;
        }
        if (!value.isArray()) {
            throw new BadRequestException("Invalid operation-types: not a list");
        }
        for (JsonNode type : value) {
            if (!type.isTextual() || !OPERATION_TYPES.contains(type.asText())) {
                throw new BadRequestException("Invalid operation-types: unknown operation type %s", type);
            }
            types.add(type.asText());
        }
        return types;
    }

    private static long[] decode(JsonNode token) {
        String text = token.isTextual() ? token.asText() : "";
        if (text.startsWith(TOKEN_PREFIX) && text.length() < 64) {
            String[] parts = text.substring(TOKEN_PREFIX.length()).split("\\.", -1);
            if (parts.length == 2) {
                try {
                    long vid = Long.parseLong(parts[0]);
                    long index = Long.parseLong(parts[1]);
                    if (vid >= 1 && index >= 0 && index <= Integer.MAX_VALUE) {
                        return new long[] {vid, index};
                    }
                } catch (NumberFormatException e) {
                    // Reported below.
                }
            }
        }
        throw new BadRequestException("Invalid continuation-token: not one this server returned");
    }

    private static ObjectNode answer(long vid, int index, Long highest, ArrayNode events) {
        ObjectNode answer = JsonNodeFactory.instance.objectNode();
        answer.put("continuation-token", TOKEN_PREFIX + vid + "." + index);
        if (highest != null) {
            answer.put("highest-processed-timestamp-ms", highest);
        }
        answer.set("events", events);
        return answer;
    }

    static String operationType(LakeEvent event) {
        String object = event.kind().name().toLowerCase(Locale.ROOT);
        return switch (event.action()) {
            case CREATED -> "create-" + object;
            case UPDATED ->
                switch (event.kind()) {
                    case NAMESPACE -> "update-namespace-properties";
                    case TABLE -> "update-table";
                    case VIEW -> "replace-view";
                };
            case DROPPED -> "drop-" + object;
            case RENAMED -> "rename-" + object;
        };
    }

    private static ObjectNode event(CommitRecord record, LakeEvent event, int index, int count, String type) {
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        node.put("event-id", record.vid() + "-" + index);
        node.put("request-id", Long.toString(record.vid()));
        node.put("request-event-count", count);
        node.put("timestamp-ms", record.commitTimeMillis());
        record.origin()
                .principalName()
                .ifPresent(principal -> node.putObject("actor").put("principal", principal));
        ObjectNode operation = node.putObject("operation");
        operation.put("operation-type", type);
        String uuidField = event.kind() == LakeEvent.Kind.VIEW ? "view-uuid" : "table-uuid";
        switch (event.kind()) {
            case NAMESPACE -> namespace(operation.putArray("namespace"), event.namespace());
            case TABLE, VIEW -> {
                if (event.uuid() != null) {
                    operation.put(uuidField, event.uuid());
                }
                if (event.action() == LakeEvent.Action.RENAMED) {
                    ObjectNode source = operation.putObject("source");
                    namespace(
                            source.putArray("namespace"),
                            event.from().subList(0, event.from().size() - 1));
                    source.put("name", event.from().get(event.from().size() - 1));
                    identifier(operation.putObject("destination"), event);
                } else {
                    identifier(operation.putObject("identifier"), event);
                }
            }
        }
        return node;
    }

    private static void identifier(ObjectNode identifier, LakeEvent event) {
        namespace(identifier.putArray("namespace"), event.namespace());
        identifier.put("name", event.name());
    }

    private static void namespace(ArrayNode array, List<String> levels) {
        levels.forEach(array::add);
    }
}
