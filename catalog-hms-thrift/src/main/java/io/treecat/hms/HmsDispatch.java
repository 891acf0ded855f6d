package io.treecat.hms;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.ProcessFunction;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TBase;
import org.apache.thrift.TBaseProcessor;
import org.apache.thrift.TException;

/**
 * Serves {@code ThriftHiveMetastore.Iface} from the call areas ({@code HmsDatabaseCalls},
 * {@code HmsTableCalls}, …), as Trino's {@code ThriftHiveMetastore} splits the API by area. A call is
 * served iff one area has a public instance method with the Iface method's name and parameter types;
 * two areas serving one call is refused when the dispatcher is built (at server start), so which
 * area answers is never a matter of order. Every other call is left out of the processor's map and
 * answers {@code TApplicationException(UNKNOWN_METHOD)}.
 *
 * <p>This is the one place a call's failure becomes what the client sees ({@link HmsErrors}).
 */
final class HmsDispatch {
    private HmsDispatch() {}

    /** One served call: the area class that serves it and its method there. */
    record Call(Class<?> area, Method method) {}

    /**
     * Each Iface call some area class implements → where.
     *
     * @throws IllegalStateException if two areas implement the same call
     */
    static Map<String, Call> implementations(List<? extends Class<?>> areas) {
        Map<String, Call> served = new TreeMap<>();
        for (Method method : ThriftHiveMetastore.Iface.class.getMethods()) {
            List<Call> found = new ArrayList<>();
            for (Class<?> area : areas) {
                try {
                    Method implementation = area.getMethod(method.getName(), method.getParameterTypes());
                    if (!Modifier.isStatic(implementation.getModifiers())) {
                        found.add(new Call(area, implementation));
                    }
                } catch (NoSuchMethodException e) {
                    // not in this area
                }
            }
            if (found.size() > 1) {
                throw new IllegalStateException("HMS call " + method.getName() + " is served by more than one area: "
                        + found.stream()
                                .map(call -> call.area().getSimpleName())
                                .toList());
            }
            if (!found.isEmpty()) {
                served.put(method.getName(), found.get(0));
            }
        }
        return served;
    }

    /** The areas as the generated interface; a call none serves is never invoked (not in the processor map). */
    static ThriftHiveMetastore.Iface iface(List<?> areas) {
        Routed all = new Routed(byClass(areas), null);
        return iface(List.copyOf(all.areas().keySet()), (method, arguments) -> all);
    }

    /**
     * The areas of every catalog as the generated interface: each call goes to the areas of the catalog its
     * arguments name ({@link HmsCallCatalog}), {@code hive}'s ({@code areas.apply(calls)}) when they name none
     * or {@code hive}; the answer of a call in another catalog carries that catalog's name.
     *
     * @param areas the call areas of one catalog, given the calls in it; the instances holding state of the
     *     whole server (locks, sessions) are the same in every catalog's list
     */
    static ThriftHiveMetastore.Iface iface(HmsCalls calls, Function<HmsCalls, List<?>> areas) {
        Routed hive = new Routed(byClass(areas.apply(calls)), null);
        HmsCallCatalog catalogs = new HmsCallCatalog();
        return iface(List.copyOf(hive.areas().keySet()), (method, arguments) -> {
            String catalog = catalogs.of(method, arguments, calls.names());
            return catalog == null ? hive : new Routed(byClass(areas.apply(calls.in(catalog))), catalog);
        });
    }

    /**
     * The area instances a call goes to.
     *
     * @param catalog the HMS catalog they act in, when it is not {@code hive}: the answer is relabelled with it
     */
    private record Routed(Map<Class<?>, Object> areas, String catalog) {}

    /** Where a call goes, given its name and arguments. */
    @FunctionalInterface
    private interface Router {
        Routed route(String method, Object[] arguments) throws TException;
    }

    private static ThriftHiveMetastore.Iface iface(List<Class<?>> areaClasses, Router router) {
        Map<String, Call> served = implementations(areaClasses);
        InvocationHandler dispatch = (proxy, method, arguments) -> {
            Call call = served.get(method.getName());
            if (call == null) {
                if (method.getDeclaringClass() == Object.class) {
                    return method.invoke(served, arguments);
                }
                throw new TApplicationException(
                        TApplicationException.UNKNOWN_METHOD, "Invalid method name: '" + method.getName() + "'");
            }
            try {
                Routed routed = router.route(method.getName(), arguments);
                Object answer = call.method().invoke(routed.areas().get(call.area()), arguments);
                return routed.catalog() == null ? answer : HmsCallCatalog.relabel(answer, routed.catalog());
            } catch (InvocationTargetException e) {
                // Only what the call declares reaches the client as itself; anything else becomes a MetaException.
                throw HmsErrors.map(method.getName(), e.getCause());
            } catch (TException | RuntimeException e) {
                // The routing's own refusals (a call naming two catalogs, a catalog name no path can hold).
                throw HmsErrors.map(method.getName(), e);
            }
        };
        return (ThriftHiveMetastore.Iface) Proxy.newProxyInstance(
                HmsDispatch.class.getClassLoader(), new Class<?>[] {ThriftHiveMetastore.Iface.class}, dispatch);
    }

    private static Map<Class<?>, Object> byClass(List<?> areas) {
        Map<Class<?>, Object> byClass = new HashMap<>();
        for (Object area : areas) {
            if (byClass.put(area.getClass(), area) != null) {
                throw new IllegalStateException(
                        "Two HMS call areas of one class: " + area.getClass().getSimpleName());
            }
        }
        return byClass;
    }

    /** The generated processor's map filtered to the {@code served} calls. */
    static TBaseProcessor<ThriftHiveMetastore.Iface> processor(ThriftHiveMetastore.Iface iface, Set<String> served) {
        Map<String, ProcessFunction<ThriftHiveMetastore.Iface, ? extends TBase>> all =
                new ThriftHiveMetastore.Processor<>(iface).getProcessMapView();
        Map<String, ProcessFunction<ThriftHiveMetastore.Iface, ? extends TBase>> map = new TreeMap<>();
        for (String name : served) {
            map.put(name, all.get(name));
        }
        return new TBaseProcessor<>(iface, map) {};
    }
}
