package io.treecat.conformance.hms;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * The differential ITs' one pair of peers: Hive 4.0.1 and TreeCat are started once per test run (by the first class
 * that asks, into a fresh {@code target/hms-differential/run-*}) and stopped when the run ends, so that the classes
 * share one start (about 10 s on an idle machine, most of a class's time otherwise). A class gets them as a parameter
 * of its {@code @BeforeAll} method ({@link HmsPeers}); classes share the servers, so each works in databases of its
 * own. A class marked {@link FreshPeers} gets a pair of its own instead.
 *
 * <p>After each class it checks the class's {@link ComparesCalls}: a call compared but not declared fails the class,
 * and so does a call declared but not compared, once every test of the class passed. The calls compared by every
 * class are written to {@code target/hms-differential/compared-calls.txt} when the run ends.
 */
final class SharedHmsPeers implements BeforeAllCallback, AfterAllCallback, TestWatcher, ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SharedHmsPeers.class);
    private static final Path OUTPUT = Path.of("target", "hms-differential");
    /** The store key of a {@link FreshPeers} class's own pair. */
    private static final String FRESH = "fresh-run";

    @Override
    public void beforeAll(ExtensionContext context) {
        if (context.getRequiredTestClass().isAnnotationPresent(FreshPeers.class)) {
            // A key of its own: the class store would otherwise find the run's shared pair in the root store.
            context.getStore(NAMESPACE).getOrComputeIfAbsent(FRESH, key -> Started.start(), Started.class);
        }
        Run run = run(context);
        // Whatever an earlier class left uncounted is not this class's.
        run.peers().differential().takeComparedCalls();
        run.peers().differential().takeMismatches();
    }

    @Override
    public void testSuccessful(ExtensionContext context) {
        context.getParent()
                .ifPresent(parent -> parent.getStore(NAMESPACE)
                        .getOrComputeIfAbsent("passed", key -> new AtomicInteger(), AtomicInteger.class)
                        .incrementAndGet());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        Class<?> testClass = context.getRequiredTestClass();
        Set<String> compared = run(context).peers().differential().takeComparedCalls();
        calls(context).record(testClass, compared);
        Set<String> declared = declared(testClass);
        SortedSet<String> undeclared = new TreeSet<>(compared);
        undeclared.removeAll(declared);
        if (!undeclared.isEmpty()) {
            throw new AssertionError(testClass.getSimpleName() + " compares " + undeclared
                    + " but does not declare them in its @ComparesCalls (the coverage table reads them there)");
        }
        AtomicInteger passed = context.getStore(NAMESPACE).get("passed", AtomicInteger.class);
        if (passed != null && passed.get() == tests(testClass)) {
            SortedSet<String> uncompared = new TreeSet<>(declared);
            uncompared.removeAll(compared);
            if (!uncompared.isEmpty()) {
                throw new AssertionError(testClass.getSimpleName() + " declares " + uncompared
                        + " in its @ComparesCalls but compared none of them");
            }
        }
    }

    static Set<String> declared(Class<?> testClass) {
        ComparesCalls calls = testClass.getAnnotation(ComparesCalls.class);
        if (calls == null) {
            return Set.of();
        }
        for (String call : calls.value()) {
            if (!ThriftCalls.isCall(call)) {
                throw new IllegalStateException(testClass.getSimpleName() + " declares " + call
                        + " in its @ComparesCalls, which is no Thrift call of the metastore");
            }
        }
        return Set.of(calls.value());
    }

    private static long tests(Class<?> testClass) {
        return Arrays.stream(testClass.getDeclaredMethods())
                .filter(method -> method.isAnnotationPresent(Test.class))
                .count();
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == HmsPeers.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return run(context).peers();
    }

    /** The class's own peers if it has {@link FreshPeers}, else the run's shared ones (started by the first class). */
    private static Run run(ExtensionContext context) {
        if (context.getTestClass()
                .filter(type -> type.isAnnotationPresent(FreshPeers.class))
                .isPresent()) {
            Started own = context.getStore(NAMESPACE).get(FRESH, Started.class);
            if (own == null) {
                throw new IllegalStateException(
                        "The fresh peers of " + context.getRequiredTestClass() + " did not start");
            }
            return own.run();
        }
        Started started = context.getRoot()
                .getStore(NAMESPACE)
                .getOrComputeIfAbsent("run", key -> Started.start(), Started.class);
        return started.run();
    }

    private static ComparedCalls calls(ExtensionContext context) {
        return context.getRoot()
                .getStore(NAMESPACE)
                .getOrComputeIfAbsent("calls", key -> new ComparedCalls(), ComparedCalls.class);
    }

    /** The peers of the run, or why they did not start (each class fails at once with it, no second try). */
    private record Started(Run run, RuntimeException failure) implements ExtensionContext.Store.CloseableResource {
        static Started start() {
            try {
                Files.createDirectories(OUTPUT);
                Path directory = Files.createTempDirectory(OUTPUT.toAbsolutePath(), "run-");
                return new Started(new Run(HmsPeers.start(directory)), null);
            } catch (IOException e) {
                return new Started(null, new UncheckedIOException("Cannot start the peers", e));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new Started(null, new IllegalStateException("Interrupted while starting the peers", e));
            } catch (RuntimeException e) {
                return new Started(null, e);
            }
        }

        @Override
        public Run run() {
            if (failure != null) {
                throw failure;
            }
            return run;
        }

        @Override
        public void close() throws Throwable {
            if (run != null) {
                run.close();
            }
        }
    }

    /** Started peers. */
    private record Run(HmsPeers peers) {
        void close() throws InterruptedException {
            peers.close();
        }
    }

    /** Which class compared which calls; written to {@code compared-calls.txt} when the run ends. */
    private static final class ComparedCalls implements ExtensionContext.Store.CloseableResource {
        private final SortedMap<String, SortedSet<String>> classesByCall = new TreeMap<>();

        synchronized void record(Class<?> testClass, Set<String> calls) {
            for (String call : calls) {
                classesByCall.computeIfAbsent(call, key -> new TreeSet<>()).add(testClass.getSimpleName());
            }
        }

        /** One line per call: the call, then the classes comparing it. */
        @Override
        public synchronized void close() throws IOException {
            StringBuilder text = new StringBuilder();
            for (Map.Entry<String, SortedSet<String>> entry : classesByCall.entrySet()) {
                text.append(entry.getKey())
                        .append(' ')
                        .append(String.join(" ", entry.getValue()))
                        .append('\n');
            }
            Files.createDirectories(OUTPUT);
            Files.writeString(OUTPUT.resolve("compared-calls.txt"), text, StandardCharsets.UTF_8);
        }
    }
}
