package io.treecat.server;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What {@link LiveProtocolFuzzIT} saw: requests sent per protocol, findings grouped by cause (with the
 * first request that caused each and how often it recurred), the names whose create the server
 * refused and the names some acknowledged request carried.
 */
final class LiveFuzzLedger {
    /** How much of a request or answer a finding quotes. */
    private static final int QUOTE = 300;

    /** A finding's cause, its first example and how many requests hit it. */
    static final class Finding {
        final String cause;
        final String example;
        final boolean excluded;
        long count;

        Finding(String cause, String example, boolean excluded) {
            this.cause = cause;
            this.example = example;
            this.excluded = excluded;
        }
    }

    private final Map<String, AtomicLong> requests = new TreeMap<>();
    private final Map<String, Finding> findings = new LinkedHashMap<>();
    /** Catalog object kind and name ({@code namespace a}, {@code table fz.t}) → the status that refused its create. */
    private final Map<String, String> refusedCreates = new LinkedHashMap<>();
    /** Names carried by a request the server acknowledged (2xx, or a Thrift call that returned). */
    private final Set<String> acknowledgedNames = ConcurrentHashMap.newKeySet();

    synchronized void sent(String protocol) {
        requests.computeIfAbsent(protocol, key -> new AtomicLong()).incrementAndGet();
    }

    synchronized Map<String, Long> requests() {
        Map<String, Long> counts = new TreeMap<>();
        requests.forEach((protocol, count) -> counts.put(protocol, count.get()));
        return counts;
    }

    /** Records a finding; the same cause is counted, and only its first example kept. */
    synchronized void finding(String cause, String example) {
        String open = open(cause);
        String key = open == null ? cause : cause + " [open: " + open + "]";
        findings.computeIfAbsent(key, k -> new Finding(k, quote(example), open != null)).count++;
    }

    /**
     * The findings of the longer run that are open (docs/robustness.md, "Live protocol fuzzing"): each is
     * reported under its name and does not fail the run until it is fixed. Matched narrowly, by the cause,
     * so that another failure of the same call still fails.
     */
    private static String open(String cause) {
        // None open: the last, "HTTP connection closed without an answer", was an answer given before the
        // request's body was read (UnreadBodyDrain, TestUnreadBodyDrain).
        return null;
    }

    synchronized List<Finding> findings() {
        return new ArrayList<>(findings.values());
    }

    synchronized List<Finding> failing() {
        return findings.values().stream().filter(finding -> !finding.excluded).toList();
    }

    synchronized void refusedCreate(String object, String answer) {
        refusedCreates.putIfAbsent(object, quote(answer));
    }

    synchronized Map<String, String> refusedCreates() {
        return new LinkedHashMap<>(refusedCreates);
    }

    synchronized void forgetRefusedCreate(String object) {
        refusedCreates.remove(object);
    }

    void acknowledged(String name) {
        acknowledgedNames.add(name);
        // Hive folds database and table names to lower case.
        acknowledgedNames.add(name.toLowerCase(Locale.ROOT));
    }

    /**
     * A name a client library encoded as UTF-8 before sending (Hive's and gRPC's clients, a URL): a lone
     * surrogate reached the server as {@code ?}, so that is the name acknowledged.
     */
    void acknowledgedAsEncoded(String name) {
        acknowledged(name);
        acknowledged(new String(name.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8));
    }

    boolean wasAcknowledged(String name) {
        return acknowledgedNames.contains(name);
    }

    static String quote(String text) {
        String printable = text.codePoints()
                .collect(
                        StringBuilder::new,
                        (builder, c) -> {
                            if (c < 0x20 || c == 0x7F || (c >= 0xD800 && c <= 0xDFFF) || c == 0x202E) {
                                builder.append(String.format("\\u%04X", c));
                            } else {
                                builder.appendCodePoint(c);
                            }
                        },
                        StringBuilder::append)
                .toString();
        return printable.length() <= QUOTE
                ? printable
                : printable.substring(0, QUOTE) + "… (" + printable.length() + " chars)";
    }

    /** One line per finding, for the report and the failure message. */
    static String describe(List<Finding> findings) {
        StringBuilder text = new StringBuilder();
        for (Finding finding : findings) {
            text.append("- ")
                    .append(finding.excluded ? "[excluded] " : "")
                    .append(finding.cause)
                    .append(" (")
                    .append(finding.count)
                    .append("x), first: ")
                    .append(finding.example)
                    .append('\n');
        }
        return text.toString();
    }
}
