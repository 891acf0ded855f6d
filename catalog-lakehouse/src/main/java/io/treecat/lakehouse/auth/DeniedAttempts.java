package io.treecat.lakehouse.auth;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Instant;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log of denied attempts (docs/security.md, "Denied attempts"): every 401 and 403 of every API, and every refusal
 * answered as "not found" because the caller may not see the object, is one JSON object on one line of the logger
 * {@value #LOGGER}, which a logging config routes to its own file. A record names the API, the client's address, the
 * principal ({@code none} for a 401, with the reason), the action, the privilege missing and the object; never the
 * token, the secret or the header.
 *
 * <p><b>Flood control.</b> At most {@link #PER_SECOND} records are written per second (all APIs together); the rest of
 * that second are counted, and the first denial after it writes one {@code "suppressed"} record with their number
 * first. So a flood of bad tokens writes at most {@value #PER_SECOND} lines (about 30 KB) a second, whatever its rate,
 * and the count of what was left out is kept.
 *
 * <p>One place for every adapter: the lakehouse's authorizer records its refusals here, and the adapters record theirs
 * (a bad token, the native API's rule) through {@link #record}. The API and the client's address come from the calling
 * thread's request ({@link #bind}) when the adapter that records does not name them.
 */
public final class DeniedAttempts {
    /** The logger's name, for the logging config. */
    public static final String LOGGER = "treecat.audit.denied";

    /** Records written per second at most; the rest are counted. */
    public static final int PER_SECOND = 100;

    /** The principal a 401 names: the request proved none. */
    public static final String NO_PRINCIPAL = "none";

    private static final Logger LOG = LoggerFactory.getLogger(LOGGER);
    private static final JsonFactory JSON = new JsonFactory();
    private static final ThreadLocal<Caller> CALLER = new ThreadLocal<>();
    private static final DeniedAttempts INSTANCE =
            new DeniedAttempts(Clock.systemUTC(), PER_SECOND, LOG::info, LOG::warn);

    /** The API a request came in on and its client's address, as the adapter saw them. */
    public record Caller(String api, String address) {
        public Caller {
            requireNonNull(api, "api is null");
            requireNonNull(address, "address is null");
        }
    }

    /**
     * One denial.
     *
     * @param status the answer's status: 401, 403, or 404 for an object the caller may not see
     * @param principal who was refused, {@link #NO_PRINCIPAL} when no token proved anyone
     * @param reason for a 401 the fixed reason sent back (never the token); otherwise what the rule says
     * @param action the operation refused, or null when the request was refused before one was named
     * @param privilege the privilege missing, or null for a 401
     * @param object the path the privilege is checked on, or null
     */
    public record Denial(int status, String principal, String reason, String action, String privilege, String object) {
        public Denial {
            requireNonNull(principal, "principal is null");
            requireNonNull(reason, "reason is null");
        }

        /** A request no token proved anyone for: 401. */
        public static Denial unauthenticated(String reason) {
            return new Denial(401, NO_PRINCIPAL, reason, null, null, null);
        }

        /** A principal without the privilege: 403. */
        public static Denial forbidden(String principal, String action, String privilege, String object) {
            return new Denial(403, principal, "lacks the privilege", action, privilege, object);
        }
    }

    private final Clock clock;
    private final int perSecond;
    private final Consumer<String> info;
    private final Consumer<String> warn;
    private long second = Long.MIN_VALUE;
    private int written;
    private long suppressed;

    /** @param info where records go; {@code warn} where the counts of suppressed ones go */
    DeniedAttempts(Clock clock, int perSecond, Consumer<String> info, Consumer<String> warn) {
        this.clock = requireNonNull(clock, "clock is null");
        this.perSecond = perSecond;
        this.info = requireNonNull(info, "info is null");
        this.warn = requireNonNull(warn, "warn is null");
    }

    /**
     * Binds the API and client address of the request the calling thread serves, for the records made while it runs;
     * {@link #unbind} when it is answered.
     */
    public static void bind(String api, String address) {
        CALLER.set(new Caller(api, address == null ? "unknown" : address));
    }

    public static void unbind() {
        CALLER.remove();
    }

    /** Records {@code denial} as made on the API and from the address bound to the calling thread. */
    public static void record(Denial denial) {
        Caller caller = CALLER.get();
        INSTANCE.write(denial, caller == null ? new Caller("unknown", "unknown") : caller);
    }

    /** Records {@code denial} as made by {@code caller} (an adapter that knows them and serves on other threads). */
    public static void record(Denial denial, Caller caller) {
        INSTANCE.write(denial, caller);
    }

    /** What is written, or nothing when this second's records are spent (then counted). */
    void write(Denial denial, Caller caller) {
        Instant now = clock.instant();
        long suppressedBefore;
        synchronized (this) {
            long thisSecond = now.getEpochSecond();
            suppressedBefore = 0;
            if (thisSecond != second) {
                second = thisSecond;
                written = 0;
                suppressedBefore = suppressed;
                suppressed = 0;
            }
            if (written >= perSecond) {
                suppressed++;
                return;
            }
            written++;
        }
        if (suppressedBefore > 0) {
            warn.accept(suppressedRecord(now, suppressedBefore, perSecond));
        }
        info.accept(record(now, denial, caller));
    }

    static String record(Instant time, Denial denial, Caller caller) {
        return json(generator -> {
            generator.writeStringField("time", time.toString());
            generator.writeStringField("event", "denied");
            generator.writeNumberField("status", denial.status());
            generator.writeStringField("api", caller.api());
            generator.writeStringField("client", caller.address());
            generator.writeStringField("principal", denial.principal());
            generator.writeStringField("reason", denial.reason());
            if (denial.action() != null) {
                generator.writeStringField("action", denial.action());
            }
            if (denial.privilege() != null) {
                generator.writeStringField("privilege", denial.privilege());
            }
            if (denial.object() != null) {
                generator.writeStringField("object", denial.object());
            }
        });
    }

    static String suppressedRecord(Instant time, long count, int perSecond) {
        return json(generator -> {
            generator.writeStringField("time", time.toString());
            generator.writeStringField("event", "suppressed");
            generator.writeNumberField("count", count);
            generator.writeStringField("reason", "more than " + perSecond + " denials in a second");
        });
    }

    private interface Fields {
        void write(JsonGenerator generator) throws IOException;
    }

    private static String json(Fields fields) {
        StringWriter out = new StringWriter();
        try (JsonGenerator generator = JSON.createGenerator(out)) {
            generator.writeStartObject();
            fields.write(generator);
            generator.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }
}
