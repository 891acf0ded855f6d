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
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.ProcessFunction;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TBase;
import org.apache.thrift.TBaseProcessor;

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
        Map<Class<?>, Object> byClass = new HashMap<>();
        for (Object area : areas) {
            if (byClass.put(area.getClass(), area) != null) {
                throw new IllegalStateException(
                        "Two HMS call areas of one class: " + area.getClass().getSimpleName());
            }
        }
        Map<String, Call> served = implementations(List.copyOf(byClass.keySet()));
        InvocationHandler dispatch = (proxy, method, arguments) -> {
            Call call = served.get(method.getName());
            if (call == null) {
                if (method.getDeclaringClass() == Object.class) {
                    return method.invoke(byClass, arguments);
                }
                throw new TApplicationException(
                        TApplicationException.UNKNOWN_METHOD, "Invalid method name: '" + method.getName() + "'");
            }
            try {
                return call.method().invoke(byClass.get(call.area()), arguments);
            } catch (InvocationTargetException e) {
                // Only what the call declares reaches the client as itself; anything else becomes a MetaException.
                throw HmsErrors.map(method.getName(), e.getCause());
            }
        };
        return (ThriftHiveMetastore.Iface) Proxy.newProxyInstance(
                HmsDispatch.class.getClassLoader(), new Class<?>[] {ThriftHiveMetastore.Iface.class}, dispatch);
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
