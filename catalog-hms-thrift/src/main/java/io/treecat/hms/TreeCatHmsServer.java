package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.service.CatalogService;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.ProcessFunction;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TBase;
import org.apache.thrift.TBaseProcessor;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.server.TServer;
import org.apache.thrift.server.TThreadPoolServer;
import org.apache.thrift.transport.TServerSocket;
import org.apache.thrift.transport.TTransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Hive Metastore Thrift listener (port 9083) on a {@link CatalogService}: binary protocol,
 * unframed, one thread per connection ({@link TThreadPoolServer} over a {@link TServerSocket}), as
 * Hive's own metastore serves.
 *
 * <p>Only the calls {@link TreeCatHmsHandler} implements are in the processor's map; for any other
 * name Thrift's {@link TBaseProcessor} answers {@code TApplicationException(UNKNOWN_METHOD)}, which
 * Spark's and Trino's fallbacks rely on. A malformed request (garbage, a truncated message) fails
 * only its own connection.
 */
public final class TreeCatHmsServer {
  private static final Logger LOG = LoggerFactory.getLogger(TreeCatHmsServer.class);

  private final CatalogService service;
  private final HmsServerConfig config;
  private final TreeCatHmsHandler handler;
  private volatile TServerSocket socket;
  private volatile TServer server;
  private volatile Thread thread;

  public TreeCatHmsServer(CatalogService service, HmsServerConfig config) {
    this.service = requireNonNull(service, "service is null");
    this.config = requireNonNull(config, "config is null");
    this.handler = new TreeCatHmsHandler(service, config);
  }

  /** The Thrift calls served: every other one is UNKNOWN_METHOD. */
  public static Set<String> servedCalls() {
    Set<String> served = new TreeSet<>(implementations().keySet());
    served.addAll(LegacyCalls.NAMES);
    return served;
  }

  /** Each Iface method the handler implements (same name and parameters) → the handler's method. */
  private static Map<String, Method> implementations() {
    Map<String, Method> served = new TreeMap<>();
    for (Method method : ThriftHiveMetastore.Iface.class.getMethods()) {
      try {
        Method implementation = TreeCatHmsHandler.class.getMethod(method.getName(), method.getParameterTypes());
        if (!Modifier.isStatic(implementation.getModifiers())) {
          served.put(method.getName(), implementation);
        }
      } catch (NoSuchMethodException e) {
        // not served: UNKNOWN_METHOD
      }
    }
    return served;
  }

  /** The handler as the generated interface; a method it lacks is never called (not in the processor map). */
  static ThriftHiveMetastore.Iface iface(TreeCatHmsHandler handler) {
    Map<String, Method> served = implementations();
    InvocationHandler dispatch = (proxy, method, arguments) -> {
      Method implementation = served.get(method.getName());
      if (implementation == null) {
        if (method.getDeclaringClass() == Object.class) {
          return method.invoke(handler, arguments);
        }
        throw new TApplicationException(TApplicationException.UNKNOWN_METHOD, "Invalid method name: '" + method.getName() + "'");
      }
      try {
        return implementation.invoke(handler, arguments);
      } catch (InvocationTargetException e) {
        // Only what the call declares reaches the client as itself; anything else becomes a MetaException.
        throw HmsErrors.map(method.getName(), e.getCause());
      }
    };
    return (ThriftHiveMetastore.Iface) Proxy.newProxyInstance(TreeCatHmsServer.class.getClassLoader(), new Class<?>[] {ThriftHiveMetastore.Iface.class}, dispatch);
  }

  /** The generated processor's map filtered to {@link #servedCalls()}. */
  static TBaseProcessor<ThriftHiveMetastore.Iface> processor(ThriftHiveMetastore.Iface handler) {
    Map<String, ProcessFunction<ThriftHiveMetastore.Iface, ? extends TBase>> all = new ThriftHiveMetastore.Processor<>(handler).getProcessMapView();
    Map<String, ProcessFunction<ThriftHiveMetastore.Iface, ? extends TBase>> served = new TreeMap<>();
    for (String name : implementations().keySet()) {
      served.put(name, all.get(name));
    }
    return new TBaseProcessor<>(handler, served) {};
  }

  public synchronized void start() {
    if (server != null) {
      throw new IllegalStateException("Already started");
    }
    try {
      socket = new TServerSocket(new InetSocketAddress(config.host(), config.port()));
    } catch (TTransportException e) {
      throw new IllegalStateException("Cannot bind the HMS Thrift port " + config.host() + ":" + config.port() + ": " + e.getMessage(), e);
    }
    TThreadPoolServer.Args args = new TThreadPoolServer.Args(socket)
        .processor(new LegacyCalls(handler, processor(iface(handler))))
        .protocolFactory(new TBinaryProtocol.Factory(false, true, config.maxMessageBytes(), config.maxMessageBytes()))
        .minWorkerThreads(config.minThreads())
        .maxWorkerThreads(config.maxThreads());
    TServer started = new TThreadPoolServer(args);
    server = started;
    Thread serving = new Thread(started::serve, "treecat-hms-" + port());
    serving.setDaemon(true);
    serving.start();
    thread = serving;
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (!started.isServing() && System.nanoTime() < deadline && serving.isAlive()) {
      Thread.onSpinWait();
      Thread.yield();
    }
    LOG.info("HMS Thrift listening on {}:{}, catalog '{}' ({} calls served)", config.host(), port(), config.catalog(), servedCalls().size());
  }

  /** The bound port, or -1 before start. */
  public int port() {
    TServerSocket bound = socket;
    return bound == null ? -1 : bound.getServerSocket().getLocalPort();
  }

  public boolean isServing() {
    TServer running = server;
    return running != null && running.isServing();
  }

  /** Stops accepting, then waits a while for the serving thread to end. */
  public synchronized void shutdown() {
    TServer running = server;
    if (running == null) {
      return;
    }
    running.stop();
    Thread serving = thread;
    if (serving != null) {
      try {
        serving.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  CatalogService service() {
    return service;
  }

  /** The lock table (tests check that clients released their locks). */
  HmsLocks locks() {
    return handler.locks();
  }
}
