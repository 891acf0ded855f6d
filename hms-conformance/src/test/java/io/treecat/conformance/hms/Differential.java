package io.treecat.conformance.hms;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransportException;

/**
 * Runs one Thrift call on the reference (Hive) and on TreeCat with the same generated client, and compares the
 * answers: normalized results must be equal, and a call that throws on one side must throw the same exception type on
 * the other (messages are shown, not compared: they are prose). Every difference is kept as a {@link Mismatch}, so a
 * test runs all its calls and then fails once, listing them all.
 *
 * <p>A call that breaks the connection (a {@link TTransportException}: the server dropped it, or the socket timed out)
 * is an outcome like any other, and the side reconnects before the next call.
 */
final class Differential implements AutoCloseable {
    private static final int SOCKET_TIMEOUT_MILLIS = 60_000;
    /** How many of the values only one side returned a report shows; the counts say how many there are. */
    private static final int SHOWN_VALUES = 12;

    private final Side reference;
    private final Side candidate;
    private final List<Mismatch> mismatches = new ArrayList<>();
    /** The Thrift calls compared since {@link #takeComparedCalls()}, named by their descriptions' prefixes. */
    private final Set<String> comparedCalls = new TreeSet<>();
    /** The descriptions of the comparisons that agreed since the last {@link #assertAgreed(String)}. */
    private final List<String> agreed = new ArrayList<>();

    private int comparisons;

    Differential(MetastorePeer reference, MetastorePeer candidate) throws TTransportException {
        this.reference = new Side(reference);
        this.candidate = new Side(candidate);
    }

    /** One call, as the test writes it once for both sides. */
    @FunctionalInterface
    interface Call<T> {
        T call(ThriftHiveMetastore.Client client, MetastorePeer peer) throws TException;
    }

    /** A call that answers nothing (void in the IDL). */
    @FunctionalInterface
    interface VoidCall {
        void call(ThriftHiveMetastore.Client client, MetastorePeer peer) throws TException;
    }

    /** The answer a void call gives when it succeeds. */
    static final String DONE = "done";

    /** {@code call} as a call answering {@link #DONE} when it succeeds. */
    static Call<String> done(VoidCall call) {
        return (client, peer) -> {
            call.call(client, peer);
            return DONE;
        };
    }

    /** What one side answered: a normalized value, or the type and message of what it threw. */
    record Outcome(Object value, String exception, String message) {
        static Outcome of(Object value) {
            return new Outcome(value, null, null);
        }

        static Outcome thrown(Throwable throwable) {
            return new Outcome(null, throwable.getClass().getName(), throwable.getMessage());
        }

        boolean threw() {
            return exception != null;
        }

        /** Same value, or both threw the same type. */
        boolean agreesWith(Outcome other) {
            return threw() ? exception.equals(other.exception) : !other.threw() && Objects.equals(value, other.value);
        }

        String describe() {
            if (threw()) {
                return exception.substring(exception.lastIndexOf('.') + 1) + ": " + message;
            }
            return value instanceof Collection<?> collection
                    ? collection.size() + " " + shown(collection)
                    : String.valueOf(value);
        }
    }

    /** A call whose answers differ: the call as text (a filter, say), and both answers. */
    record Mismatch(String call, Outcome reference, Outcome candidate) {
        Mismatch {
            requireNonNull(call, "call is null");
            requireNonNull(reference, "reference is null");
            requireNonNull(candidate, "candidate is null");
        }

        /** Both answers, and for two collections what only one side returned, which is the readable part. */
        String describe(String referenceName, String candidateName) {
            StringBuilder text = new StringBuilder(call).append('\n');
            if (reference.value() instanceof Collection<?> expected
                    && candidate.value() instanceof Collection<?> actual) {
                Set<String> onlyExpected = strings(expected);
                onlyExpected.removeAll(strings(actual));
                Set<String> onlyActual = strings(actual);
                onlyActual.removeAll(strings(expected));
                text.append("    ")
                        .append(referenceName)
                        .append(": ")
                        .append(expected.size())
                        .append(", ")
                        .append(candidateName)
                        .append(": ")
                        .append(actual.size())
                        .append('\n');
                text.append("    only ")
                        .append(referenceName)
                        .append(": ")
                        .append(shown(onlyExpected))
                        .append('\n');
                text.append("    only ")
                        .append(candidateName)
                        .append(": ")
                        .append(shown(onlyActual))
                        .append('\n');
            } else {
                text.append("    ")
                        .append(referenceName)
                        .append(": ")
                        .append(reference.describe())
                        .append('\n');
                text.append("    ")
                        .append(candidateName)
                        .append(": ")
                        .append(candidate.describe())
                        .append('\n');
            }
            return text.toString();
        }

        private static Set<String> strings(Collection<?> values) {
            Set<String> strings = new TreeSet<>();
            values.forEach(value -> strings.add(String.valueOf(value)));
            return strings;
        }
    }

    /** The first {@value #SHOWN_VALUES} values, and how many more there are. */
    static String shown(Collection<?> values) {
        List<String> shown = new ArrayList<>();
        for (Object value : values) {
            if (shown.size() == SHOWN_VALUES) {
                shown.add("... " + (values.size() - SHOWN_VALUES) + " more");
                break;
            }
            shown.add(String.valueOf(value));
        }
        return shown.toString();
    }

    /**
     * Runs {@code call} on both sides and records a {@link Mismatch} if the answers differ; {@code normalize} turns a
     * result into what is compared (sorted partition names rather than Partition structs with create times, say).
     */
    <T> Comparison compare(String description, Call<T> call, Function<? super T, ?> normalize) {
        return compare(description, call, call, normalize);
    }

    /**
     * As {@link #compare(String, Call, Function)}, with a call of its own for the reference: an equivalent one where the
     * reference has a known bug that TreeCat does not copy ({@link KnownHiveDivergences}).
     */
    <T> Comparison compare(
            String description, Call<T> referenceCall, Call<T> candidateCall, Function<? super T, ?> normalize) {
        comparisons++;
        ThriftCalls.callOf(description).ifPresent(comparedCalls::add);
        Outcome expected = reference.run(referenceCall, normalize);
        Outcome actual = candidate.run(candidateCall, normalize);
        boolean agreed = expected.agreesWith(actual);
        if (!agreed) {
            mismatches.add(new Mismatch(description, expected, actual));
        } else {
            this.agreed.add(description);
        }
        return new Comparison(expected, actual, agreed);
    }

    /**
     * As {@link #compare(String, Call, Function)} for the Thrift call {@code call}, whatever the description says: it
     * is described as {@code call: description}, and recorded as compared ({@link #takeComparedCalls()}).
     */
    <T> Comparison compare(String call, String description, Call<T> both, Function<? super T, ?> normalize) {
        if (!ThriftCalls.isCall(call)) {
            throw new IllegalArgumentException("Not a Thrift call of the metastore: " + call);
        }
        return compare(call + ": " + description, both, both, normalize);
    }

    /**
     * The Thrift calls compared since the last call, which starts a new record: a comparison whose description starts
     * with a call's name and a colon ({@code "get_database: default"}) counts for that call.
     */
    Set<String> takeComparedCalls() {
        Set<String> taken = Set.copyOf(comparedCalls);
        comparedCalls.clear();
        return taken;
    }

    /**
     * Fails, listing every mismatch since {@link #takeMismatches()}, if there is one; starts a new count either way.
     * {@code title} names the test in the report's first line.
     */
    void assertAgreed(String title) {
        int compared = comparisons;
        List<String> agreedNow = List.copyOf(agreed);
        List<Mismatch> taken = takeMismatches();
        List<Mismatch> unexpected = new ArrayList<>();
        StringBuilder known = new StringBuilder();
        for (Mismatch mismatch : taken) {
            Optional<KnownHiveDivergences.Divergence> divergence = KnownHiveDivergences.of(mismatch.call());
            if (divergence.isPresent()) {
                known.append(mismatch.call())
                        .append("  [")
                        .append(divergence.get().kind())
                        .append("]\n");
            } else {
                unexpected.add(mismatch);
            }
        }
        List<String> stale = new ArrayList<>();
        for (String description : agreedNow) {
            KnownHiveDivergences.of(description)
                    .ifPresent(divergence -> stale.add(description + "  [" + divergence.kind() + "]"));
        }
        if (!known.isEmpty()) {
            System.out.println(title + ": known divergences (KnownHiveDivergences):\n" + known);
        }
        if (!unexpected.isEmpty() || !stale.isEmpty()) {
            StringBuilder text = new StringBuilder(title).append(": ");
            if (!unexpected.isEmpty()) {
                text.append(report(unexpected, compared));
                for (Mismatch mismatch : unexpected) {
                    List<String> fields = fieldDifferences(
                            "",
                            mismatch.reference().value(),
                            mismatch.candidate().value());
                    if (!fields.isEmpty() && fields.size() <= SHOWN_VALUES) {
                        text.append("fields of ")
                                .append(mismatch.call())
                                .append(" (")
                                .append(reference.peer.name())
                                .append(" | ")
                                .append(candidate.peer.name())
                                .append("):\n");
                        fields.forEach(
                                field -> text.append("    ").append(field).append('\n'));
                    }
                }
            }
            if (!stale.isEmpty()) {
                text.append("listed in KnownHiveDivergences but now agreeing (remove them there): ")
                        .append(stale);
            }
            throw new AssertionError(text.toString());
        }
    }

    /** Where two normalized answers differ: one line per path ({@code sd.location: a | b}), for maps and equal-sized lists. */
    static List<String> fieldDifferences(String path, Object expected, Object actual) {
        List<String> out = new ArrayList<>();
        if (expected instanceof java.util.Map<?, ?> left && actual instanceof java.util.Map<?, ?> right) {
            Set<Object> keys = new java.util.LinkedHashSet<>(left.keySet());
            keys.addAll(right.keySet());
            for (Object key : keys) {
                String child = path.isEmpty() ? String.valueOf(key) : path + "." + key;
                if (!left.containsKey(key) || !right.containsKey(key)) {
                    out.add(child + ": " + (left.containsKey(key) ? left.get(key) : "(unset)") + " | "
                            + (right.containsKey(key) ? right.get(key) : "(unset)"));
                } else {
                    out.addAll(fieldDifferences(child, left.get(key), right.get(key)));
                }
            }
        } else if (expected instanceof List<?> left && actual instanceof List<?> right && left.size() == right.size()) {
            for (int i = 0; i < left.size(); i++) {
                out.addAll(fieldDifferences(path + "[" + i + "]", left.get(i), right.get(i)));
            }
        } else if (!Objects.equals(expected, actual)) {
            out.add(path + ": " + expected + " | " + actual);
        }
        return out;
    }

    /** Runs {@code call} on the reference alone (no comparison is counted). */
    <T> Outcome reference(Call<T> call, Function<? super T, ?> normalize) {
        return reference.run(call, normalize);
    }

    /** Runs {@code call} on the candidate alone (no comparison is counted). */
    <T> Outcome candidate(Call<T> call, Function<? super T, ?> normalize) {
        return candidate.run(call, normalize);
    }

    /** Both answers to one call, and whether they agree. */
    record Comparison(Outcome reference, Outcome candidate, boolean agreed) {}

    /** Runs {@code call} on both sides where the test cannot go on unless both succeed (creating the fixture). */
    void setUp(String description, Call<?> call) {
        Outcome expected = reference.run(call, Function.identity());
        Outcome actual = candidate.run(call, Function.identity());
        if (expected.threw() || actual.threw()) {
            throw new IllegalStateException("Setting up failed: " + description + "\n    " + reference.peer.name()
                    + ": "
                    + expected.describe() + " (log: " + reference.peer.log() + ")\n    " + candidate.peer.name() + ": "
                    + actual.describe() + " (log: " + candidate.peer.log() + ")");
        }
    }

    /**
     * The mismatches since the last call, which starts a new count: each test takes its own, whatever ran before it on
     * the same connections.
     */
    List<Mismatch> takeMismatches() {
        List<Mismatch> taken = List.copyOf(mismatches);
        mismatches.clear();
        agreed.clear();
        comparisons = 0;
        return taken;
    }

    /** The number of calls compared since {@link #takeMismatches()}. */
    int comparisons() {
        return comparisons;
    }

    /** Every mismatch, one block each, in the order the calls ran. */
    String report(List<Mismatch> mismatches, int comparisons) {
        StringBuilder text = new StringBuilder();
        text.append(mismatches.size())
                .append(" of ")
                .append(comparisons)
                .append(" calls differ between ")
                .append(reference.peer.name())
                .append(" (reference) and ")
                .append(candidate.peer.name())
                .append(":\n");
        for (Mismatch mismatch : mismatches) {
            text.append(mismatch.describe(reference.peer.name(), candidate.peer.name()));
        }
        return text.toString();
    }

    @Override
    public void close() {
        reference.close();
        candidate.close();
    }

    /** One peer and its connection, reopened after a call breaks it. */
    private static final class Side {
        private final MetastorePeer peer;
        private TSocket socket;
        private ThriftHiveMetastore.Client client;

        Side(MetastorePeer peer) throws TTransportException {
            this.peer = requireNonNull(peer, "peer is null");
            connect();
        }

        private void connect() throws TTransportException {
            socket = new TSocket("127.0.0.1", peer.port(), SOCKET_TIMEOUT_MILLIS);
            socket.open();
            client = new ThriftHiveMetastore.Client(new TBinaryProtocol(socket));
        }

        <T> Outcome run(Call<T> call, Function<? super T, ?> normalize) {
            try {
                return Outcome.of(normalize.apply(call.call(client, peer)));
            } catch (TTransportException e) {
                reconnect();
                return Outcome.thrown(e);
            } catch (TException | RuntimeException e) {
                return Outcome.thrown(e);
            }
        }

        private void reconnect() {
            socket.close();
            try {
                connect();
            } catch (TTransportException e) {
                throw new IllegalStateException(
                        peer.name() + " does not accept connections any more; its log, " + peer.log() + ":\n"
                                + ServerProcess.tail(peer.log()),
                        e);
            }
        }

        void close() {
            socket.close();
        }
    }
}
