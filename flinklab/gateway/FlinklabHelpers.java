// Compiled at run time by Janino (shipped inside flink-table-runtime), so no JDK is needed: see jvm.py.
// Janino's Java subset: raw types and casts instead of generics, anonymous classes instead of lambdas.

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.Socket;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.stream.Stream;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.dag.Pipeline;
import org.apache.flink.client.deployment.StandaloneClusterId;
import org.apache.flink.client.deployment.executors.PipelineExecutorUtils;
import org.apache.flink.client.deployment.executors.RemoteExecutor;
import org.apache.flink.client.program.ProgramInvocationException;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.DefaultExecutorServiceLoader;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.PipelineExecutor;
import org.apache.flink.core.execution.PipelineExecutorFactory;
import org.apache.flink.core.execution.PipelineExecutorServiceLoader;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.operators.coordination.CoordinationRequest;
import org.apache.flink.runtime.operators.coordination.CoordinationRequestGateway;
import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.JsonFormatOptions;
import org.apache.flink.formats.json.RowDataToJsonConverters;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.internal.TableEnvironmentInternal;
import org.apache.flink.table.api.internal.TableResultInternal;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.operations.Operation;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.CharType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.MultisetType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.table.types.logical.ZonedTimestampType;
import org.apache.flink.table.utils.print.RowDataToStringConverter;
import org.apache.flink.util.CloseableIterator;

/**
 * One session's planner thread. The planner keeps per-thread state (Calcite's metadata handler provider), and
 * py4j runs each call on whichever of its connection threads is free, so every call that plans or executes for
 * a session is handed to this single thread.
 */
public class FlinklabWorker {
    private final ExecutorService executor;

    public FlinklabWorker(final String name) {
        this.executor = Executors.newSingleThreadExecutor(new ThreadFactory() {
            public Thread newThread(Runnable runnable) {
                Thread thread = new Thread(runnable, name);
                thread.setDaemon(true);
                return thread;
            }
        });
    }

    // set by shutdown(): a call still queued then does nothing (the session is closed)
    private volatile boolean closing = false;

    private Object run(final Callable task) throws Throwable {
        try {
            return executor.submit(new Callable() {
                public Object call() throws Exception {
                    if (closing) {
                        throw new IllegalStateException("The session is closed.");
                    }
                    return task.call();
                }
            }).get();
        } catch (ExecutionException e) {
            throw e.getCause();
        }
    }

    /**
     * A TableEnvironment over a StreamExecutionEnvironment built from the session's configuration, as Flink's SQL
     * gateway builds it. TableEnvironment.create would build a LocalStreamEnvironment, whose parallelism is this
     * machine's core count: a job then asks for that many slots, whatever the cluster's parallelism.default.
     * Its jobs get our JobClient (FlinklabExecutors).
     */
    public TableEnvironmentInternal createEnvironment(final Configuration conf) throws Throwable {
        return (TableEnvironmentInternal) run(new Callable() {
            public Object call() {
                EnvironmentSettings settings = EnvironmentSettings.newInstance().withConfiguration(conf).build();
                StreamExecutionEnvironment env =
                        new StreamExecutionEnvironment(FlinklabExecutors.INSTANCE, new Configuration(conf), null);
                return StreamTableEnvironment.create(env, settings);
            }
        });
    }

    public List parse(final TableEnvironmentInternal tenv, final String statement) throws Throwable {
        return (List) run(new Callable() {
            public Object call() {
                return tenv.getParser().parse(statement);
            }
        });
    }

    public Object execute(final TableEnvironmentInternal tenv, final Operation operation) throws Throwable {
        return run(new Callable() {
            public Object call() {
                return tenv.executeInternal(operation);
            }
        });
    }

    public Object executeAll(final TableEnvironmentInternal tenv, final List operations) throws Throwable {
        return run(new Callable() {
            public Object call() {
                return tenv.executeInternal(operations);
            }
        });
    }

    public String[] completeStatement(final TableEnvironmentInternal tenv, final String statement,
                                      final int position) throws Throwable {
        return (String[]) run(new Callable() {
            public Object call() {
                return tenv.getParser().getCompletionHints(statement, position);
            }
        });
    }

    /**
     * This session's thread as Linux names it: "NS PID/task/TID" (NS the JVM's PID namespace, from /proc/self/ns/pid;
     * the rest from /proc/thread-self), so a Python process in the same namespace can lower its CPU priority (Java's
     * own Thread.setPriority does nothing on Linux); "" where there is no /proc.
     */
    public String nativeThread() throws Throwable {
        return (String) run(new Callable() {
            public Object call() {
                try {
                    return java.nio.file.Files.readSymbolicLink(java.nio.file.Paths.get("/proc/self/ns/pid")) + " "
                            + java.nio.file.Files.readSymbolicLink(java.nio.file.Paths.get("/proc/thread-self"));
                } catch (Exception e) {
                    return "";
                }
            }
        });
    }

    /**
     * Ends the session's thread. A statement being submitted right now is let finish (for at most SHUTDOWN_WAIT
     * seconds) rather than interrupted: interrupted, its job could reach the cluster with no result left to cancel
     * it (a client's SIGTERM or Ctrl-C as its query starts); finished, the operation closed meanwhile cancels it.
     */
    public void shutdown() {
        closing = true;
        executor.shutdown();
        try {
            executor.awaitTermination(SHUTDOWN_WAIT, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            executor.shutdownNow();
        }
    }

    private static final long SHUTDOWN_WAIT = 10;
}

/**
 * Where a session's jobs go: Flink's own executors (RemoteExecutor for a session cluster), but a job submitted to a
 * cluster gets our JobClient. Flink's (ClusterClientJobClientAdapter) builds a RestClusterClient, with its Netty
 * client and thread pools, for every call, and a running query's result fetcher makes two calls every 100 ms:
 * about 10 ms of CPU each, against 3 ms on a client kept per cluster, measured.
 */
class FlinklabExecutors implements PipelineExecutorServiceLoader {
    static final FlinklabExecutors INSTANCE = new FlinklabExecutors();

    private final PipelineExecutorServiceLoader flinks = new DefaultExecutorServiceLoader();
    private final Map clients = new HashMap();
    final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(new ThreadFactory() {
        public Thread newThread(Runnable runnable) {
            Thread thread = new Thread(runnable, "flinklab-job-status");
            thread.setDaemon(true);
            return thread;
        }
    });

    /** The `execution.target` of the gateway's warm-up: its jobs are planned and built, never submitted. */
    static final String DRY_TARGET = "flinklab-dry-run";

    public PipelineExecutorFactory getExecutorFactory(Configuration conf) throws Exception {
        if (DRY_TARGET.equals(conf.toMap().get("execution.target"))) {
            return FlinklabDryRun.FACTORY;
        }
        final PipelineExecutorFactory factory = flinks.getExecutorFactory(conf);
        if (!RemoteExecutor.NAME.equals(factory.getName())) {
            return factory;
        }
        return new PipelineExecutorFactory() {
            public String getName() {
                return factory.getName();
            }

            public boolean isCompatibleWith(Configuration c) {
                return factory.isCompatibleWith(c);
            }

            public PipelineExecutor getExecutor(Configuration c) {
                final PipelineExecutor remote = factory.getExecutor(c);
                return new PipelineExecutor() {
                    public CompletableFuture execute(Pipeline pipeline, final Configuration jobConf,
                                                     final ClassLoader loader) throws Exception {
                        final RestClusterClient cluster = client(jobConf);
                        return remote.execute(pipeline, jobConf, loader).thenApply(new Function() {
                            public Object apply(Object submitted) {
                                return new FlinklabJobClient(cluster, (JobClient) submitted, loader, timer);
                            }
                        });
                    }
                };
            }
        };
    }

    public Stream getExecutorNames() {
        return flinks.getExecutorNames();
    }

    /** The REST client of the cluster `conf` names (its rest.* and security.* options), made once. */
    synchronized RestClusterClient client(Configuration conf) throws Exception {
        TreeMap key = new TreeMap();
        Iterator entries = conf.toMap().entrySet().iterator();
        while (entries.hasNext()) {
            Map.Entry entry = (Map.Entry) entries.next();
            String name = (String) entry.getKey();
            if (name.startsWith("rest.") || name.startsWith("security.")) {
                key.put(name, entry.getValue());
            }
        }
        RestClusterClient client = (RestClusterClient) clients.get(key.toString());
        if (client == null) {
            client = new RestClusterClient(new Configuration(conf), StandaloneClusterId.getInstance());
            clients.put(key.toString(), client);
        }
        return client;
    }
}

/**
 * The warm-up's executor: a job is built as for a submission (its StreamGraph, its user code serialized), then
 * reported finished at once, with no cluster and nothing logged, so the planner's and the client's code paths are
 * loaded and compiled before a learner's first statement needs them.
 */
class FlinklabDryRun implements PipelineExecutor, JobClient, CoordinationRequestGateway {
    static final PipelineExecutorFactory FACTORY = new PipelineExecutorFactory() {
        public String getName() {
            return FlinklabExecutors.DRY_TARGET;
        }

        public boolean isCompatibleWith(Configuration c) {
            return FlinklabExecutors.DRY_TARGET.equals(c.toMap().get("execution.target"));
        }

        public PipelineExecutor getExecutor(Configuration c) {
            return new FlinklabDryRun();
        }
    };

    private final JobID id = new JobID();

    public CompletableFuture execute(Pipeline pipeline, Configuration conf, ClassLoader loader) throws Exception {
        PipelineExecutorUtils.getStreamGraph(pipeline, conf).serializeUserDefinedInstances();
        return CompletableFuture.completedFuture(this);
    }

    public JobID getJobID() {
        return id;
    }

    public CompletableFuture getJobStatus() {
        return CompletableFuture.completedFuture(JobStatus.FINISHED);
    }

    public CompletableFuture cancel() {
        return CompletableFuture.completedFuture(null);
    }

    public CompletableFuture stopWithSavepoint(boolean drain, String directory, SavepointFormatType format) {
        return CompletableFuture.completedFuture(null);
    }

    public CompletableFuture triggerSavepoint(String directory, SavepointFormatType format) {
        return CompletableFuture.completedFuture(null);
    }

    public CompletableFuture getAccumulators() {
        return CompletableFuture.completedFuture(new HashMap());
    }

    public CompletableFuture getJobExecutionResult() {
        return CompletableFuture.completedFuture(new JobExecutionResult(id, 0L, new HashMap()));
    }

    /** A query's collect sink needs a JobClient that can fetch; the warm-up never reads its rows. */
    public CompletableFuture sendCoordinationRequest(String operatorUid, CoordinationRequest request) {
        CompletableFuture none = new CompletableFuture();
        none.completeExceptionally(new UnsupportedOperationException("a dry run has no rows"));
        return none;
    }
}

/**
 * A submitted job, through its cluster's shared RestClusterClient; answers as Flink's ClusterClientJobClientAdapter
 * does. Savepoints, which no statement of ours takes, go to the adapter Flink returned.
 */
class FlinklabJobClient implements JobClient, CoordinationRequestGateway {
    /** The longest wait between two status polls of getJobExecutionResult, and of a result's fetch. */
    private static final long MAX_POLL_MILLIS = 100;
    /** The shortest wait between two polls of a result's fetch (a job's first moments). */
    private static final long MIN_POLL_MILLIS = 5;

    private final RestClusterClient cluster;
    private final JobClient submitted;
    private final JobID id;
    private final ClassLoader loader;
    private final ScheduledExecutorService timer;

    private final long born = System.currentTimeMillis();
    private volatile Object endStatus = null;  // the globally terminal JobStatus, once seen (it cannot change)

    FlinklabJobClient(RestClusterClient cluster, JobClient submitted, ClassLoader loader,
                      ScheduledExecutorService timer) {
        this.cluster = cluster;
        this.submitted = submitted;
        this.id = submitted.getJobID();
        this.loader = loader;
        this.timer = timer;
    }

    public JobID getJobID() {
        return id;
    }

    public CompletableFuture getJobStatus() {
        Object known = endStatus;
        if (known != null) {
            return CompletableFuture.completedFuture(known);
        }
        return cluster.getJobStatus(id).thenApply(new Function() {
            public Object apply(Object status) {
                if (((JobStatus) status).isGloballyTerminalState()) {
                    endStatus = status;
                }
                return status;
            }
        });
    }

    /**
     * How long a result's fetch waits between two polls now: a twentieth of the job's age, from MIN_POLL_MILLIS
     * to MAX_POLL_MILLIS. A short job's end is seen within a few milliseconds, and a long one is polled no more
     * often than Flink's own fetcher polls it (every 100 ms); a job polls about 20 * ln(age / 0.1 s) times in
     * its first 2 s.
     */
    long pollMillis() {
        long age = System.currentTimeMillis() - born;
        return Math.max(MIN_POLL_MILLIS, Math.min(MAX_POLL_MILLIS, age / 20));
    }

    public CompletableFuture cancel() {
        return cluster.cancel(id).thenApply(new Function() {
            public Object apply(Object acknowledge) {
                return null;
            }
        });
    }

    public CompletableFuture stopWithSavepoint(boolean advanceToEndOfEventTime, String directory,
                                               SavepointFormatType format) {
        return submitted.stopWithSavepoint(advanceToEndOfEventTime, directory, format);
    }

    public CompletableFuture triggerSavepoint(String directory, SavepointFormatType format) {
        return submitted.triggerSavepoint(directory, format);
    }

    public CompletableFuture getAccumulators() {
        return cluster.getAccumulators(id, loader);
    }

    public void reportHeartbeat(long expiredTimestamp) {
        cluster.reportHeartbeat(id, expiredTimestamp);
    }

    /**
     * A result fetch that waits, as a long-poll, up to MAX_POLL_MILLIS for rows or the job's end, polling at
     * pollMillis(): it answers at once with rows, or when the job has ended (whose last rows are in its result),
     * or after MAX_POLL_MILLIS with what the last poll answered (no rows, or its failure). Flink's fetcher sleeps
     * 100 ms between two fetches and then asks for the status, so a job's end was seen 100-140 ms late; for the
     * jobs of this client the fetcher's own sleep is off (FlinklabRowPump) and this paces it instead.
     */
    public CompletableFuture sendCoordinationRequest(String operatorUid, CoordinationRequest request) {
        long deadline = System.currentTimeMillis() + MAX_POLL_MILLIS;
        while (true) {
            CompletableFuture reply = cluster.sendCoordinationRequest(id, operatorUid, request);
            try {
                if (FlinklabRows.hasRows(reply.get())) {
                    return reply;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return reply;
            } catch (ExecutionException e) {
                // not running yet (or any other failure): polled again below, and answered as it is at the end
            }
            if (endStatus != null || jobEnded()) {
                return reply;
            }
            long step = pollMillis();
            if (System.currentTimeMillis() + step > deadline) {
                return reply;
            }
            try {
                Thread.sleep(step);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return reply;
            }
        }
    }

    private boolean jobEnded() {
        try {
            return ((JobStatus) getJobStatus().get()).isGloballyTerminalState();
        } catch (Exception e) {
            return false;  // the fetcher's own status call decides what an unreachable job means
        }
    }

    /**
     * Waits for the job's end by its status, polled pollMillis() apart, then asks for its result once.
     * RestClusterClient.requestJobResult alone polls from the start with a wait that doubles up to 2 s, so a job
     * that ends after 0.7 s is seen at 1.27 s (an INSERT waits for this).
     */
    public CompletableFuture getJobExecutionResult() {
        final CompletableFuture ended = new CompletableFuture();
        if (endStatus != null) {
            ended.complete(endStatus);  // seen already: straight to the result
        } else {
            pollUntilEnded(ended);
        }
        return ended.thenCompose(new Function() {
            public Object apply(Object status) {
                return cluster.requestJobResult(id);
            }
        }).thenApply(new Function() {
            public Object apply(Object result) {
                try {
                    return ((JobResult) result).toJobExecutionResult(loader);
                } catch (Throwable t) {
                    throw new CompletionException(new ProgramInvocationException("Job failed", id, t));
                }
            }
        });
    }

    private void pollUntilEnded(final CompletableFuture ended) {
        getJobStatus().whenComplete(new BiConsumer() {
            public void accept(Object status, Object failure) {
                if (failure != null) {
                    ended.completeExceptionally((Throwable) failure);
                } else if (((JobStatus) status).isGloballyTerminalState()) {
                    ended.complete(status);
                } else {
                    timer.schedule(new Runnable() {
                        public void run() {
                            pollUntilEnded(ended);
                        }
                    }, pollMillis(), TimeUnit.MILLISECONDS);
                }
            }
        });
    }
}

/**
 * What the row pump needs to know of Flink's collect fetcher, by reflection (its fields are private): whether a
 * fetch answered rows, and how to switch off its 100 ms sleep between two fetches when our JobClient paces them.
 * Where a field is not found (another Flink version), nothing changes: Flink's own pacing stays.
 */
class FlinklabRows {
    private static final String FETCHER = "org.apache.flink.streaming.api.operators.collect.CollectResultFetcher";

    static boolean hasRows(Object response) {
        if (response == null) {
            return false;
        }
        try {
            java.lang.reflect.Field field = response.getClass().getDeclaredField("serializedResults");
            field.setAccessible(true);
            return !((List) field.get(response)).isEmpty();
        } catch (Exception e) {
            return true;  // unknown: answer at once, as Flink's gateway would
        }
    }

    /** Sets the retry sleep of the collect fetcher inside `rows` (a few fields deep) to 0; true when done. */
    static boolean paceByJobClient(Object rows) {
        Object fetcher = find(rows, 4);
        if (fetcher == null) {
            return false;
        }
        try {
            java.lang.reflect.Field retry = fetcher.getClass().getDeclaredField("retryMillis");
            retry.setAccessible(true);
            retry.setInt(fetcher, 0);
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    private static Object find(Object from, int depth) {
        if (from == null || depth < 0) {
            return null;
        }
        if (FETCHER.equals(from.getClass().getName())) {
            return from;
        }
        for (Class type = from.getClass(); type != null && type != Object.class; type = type.getSuperclass()) {
            java.lang.reflect.Field[] fields = type.getDeclaredFields();
            for (int i = 0; i < fields.length; i++) {
                java.lang.reflect.Field field = fields[i];
                if (field.getType().isPrimitive() || java.lang.reflect.Modifier.isStatic(field.getModifiers())) {
                    continue;
                }
                try {
                    field.setAccessible(true);
                    Object value = field.get(from);
                    if (value == null || value.getClass().getName().startsWith("java.")) {
                        continue;  // the JDK's own objects (strings, collections, futures) hold no fetcher
                    }
                    Object found = find(value, depth - 1);
                    if (found != null) {
                        return found;
                    }
                } catch (Exception e) {
                    // a field we may not read: not the way to the fetcher
                }
            }
        }
        return null;
    }
}

/**
 * TCP_NODELAY on every connection of the JVM's py4j gateway server, those open now and those to come (a listener).
 * py4j writes an answer through an 8 KB buffer: an answer over 8 KB is two writes, and the second waited for the
 * first's acknowledgement, which the Python side delays by 40 ms (Nagle's algorithm meeting delayed ACKs), so
 * every page of rows, plan or explanation over 8 KB cost 44 ms more than its bytes. py4j is reached through the
 * server object's own package (PyFlink shades it), by reflection.
 */
class FlinklabNoDelay {
    /** Switches Nagle's algorithm off on `server`'s connections, now and as they start. */
    public void install(Object server) throws Exception {
        Class type = server.getClass();
        ClassLoader loader = type.getClassLoader();
        String py4j = type.getPackage().getName();
        Class listener = Class.forName(py4j + ".GatewayServerListener", true, loader);
        Method getSocket = Class.forName(py4j + ".Py4JServerConnection", true, loader).getMethod("getSocket",
                new Class[0]);
        Object proxy = Proxy.newProxyInstance(loader, new Class[] {listener}, new FlinklabNoDelayListener(getSocket));
        type.getMethod("addListener", new Class[] {listener}).invoke(server, new Object[] {proxy});
        java.lang.reflect.Field field = type.getDeclaredField("connections");
        field.setAccessible(true);
        List connections = (List) field.get(server);
        ArrayList open;
        synchronized (connections) {
            open = new ArrayList(connections);
        }
        for (int i = 0; i < open.size(); i++) {
            FlinklabNoDelayListener.noDelay(getSocket, open.get(i));
        }
    }
}

/**
 * The JVM's own `jcmd PID VM.cds dynamic_dump PATH`, through the DiagnosticCommand MBean (py4j cannot reach the
 * platform MBean server's class): the gateway's class-data archive, flinklab/gateway/jvm_archive.py. Returns what the
 * command printed.
 */
class FlinklabCds {
    public String dynamicDump(String path) throws Exception {
        javax.management.MBeanServer server = java.lang.management.ManagementFactory.getPlatformMBeanServer();
        Object said = server.invoke(new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"),
                "vmCds", new Object[] {new String[] {"dynamic_dump " + path}},
                new String[] {String[].class.getName()});
        return String.valueOf(said);
    }
}

/** py4j's GatewayServerListener, as a proxy's handler: connectionStarted(connection) sets TCP_NODELAY. */
class FlinklabNoDelayListener implements InvocationHandler {
    private final Method getSocket;

    FlinklabNoDelayListener(Method getSocket) {
        this.getSocket = getSocket;
    }

    /** connectionStarted sets TCP_NODELAY; the other events are no-ops. */
    public Object invoke(Object proxy, Method method, Object[] args) {
        String name = method.getName();
        if ("connectionStarted".equals(name) && args != null && args.length == 1) {
            noDelay(getSocket, args[0]);
        } else if ("hashCode".equals(name)) {
            return Integer.valueOf(System.identityHashCode(proxy));
        } else if ("equals".equals(name)) {
            return Boolean.valueOf(args != null && args.length == 1 && proxy == args[0]);
        } else if ("toString".equals(name)) {
            return "FlinklabNoDelay";
        }
        return null;
    }

    static void noDelay(Method getSocket, Object connection) {
        try {
            Socket socket = (Socket) getSocket.invoke(connection, new Object[0]);
            if (socket != null) {
                socket.setTcpNoDelay(true);
            }
        } catch (Exception e) {
            // a closed connection: nothing to send on
        }
    }
}

/** Starts a FlinklabRowPump over a statement's result (one py4j call). */
class FlinklabRowPumps {
    public FlinklabRowPump start(TableResultInternal result) {
        FlinklabRowPump pump = new FlinklabRowPump(result);
        Thread thread = new Thread(pump, "flinklab-rows");
        thread.setDaemon(true);
        thread.start();
        return pump;
    }
}

/**
 * Drains a result iterator on its own thread into each row's two encodings of the SQL Gateway protocol:
 * {"kind":"INSERT","fields":[...flink-json values...]} for rowFormat=JSON, and the same with each field as Flink's
 * RowDataToStringConverter renders it (null for NULL) for rowFormat=PLAIN_TEXT. Python takes them in pages with
 * take(), which waits on this object's monitor for the first row (or the end), so a waiting fetch is one py4j call,
 * and the result's description with describe(), one call too.
 */
class FlinklabRowPump implements Runnable {
    private final TableResultInternal result;
    private final CloseableIterator rows;
    private final RowDataToStringConverter text;
    private final RowDataToJsonConverters.RowDataToJsonConverter[] json;
    private final RowData.FieldGetter[] getters;
    private final ObjectMapper mapper = new ObjectMapper();
    // guarded by this; every change that can end a wait in take() notifies
    private final ArrayList readyJson = new ArrayList();
    private final ArrayList readyText = new ArrayList();
    private boolean done = false;
    private Throwable failure = null;
    private volatile boolean closed = false;
    private final boolean paced;

    FlinklabRowPump(TableResultInternal result) {
        this.result = result;
        this.rows = result.collectInternal();
        Optional job = result.getJobClient();
        this.paced = job.isPresent() && job.get() instanceof FlinklabJobClient && FlinklabRows.paceByJobClient(rows);
        this.text = result.getRowDataToStringConverter();
        List columns = result.getResolvedSchema().getColumns();
        RowDataToJsonConverters converters = new RowDataToJsonConverters(
                TimestampFormat.ISO_8601, JsonFormatOptions.MapNullKeyMode.LITERAL, "null", false);
        this.json = new RowDataToJsonConverters.RowDataToJsonConverter[columns.size()];
        this.getters = new RowData.FieldGetter[columns.size()];
        for (int i = 0; i < columns.size(); i++) {
            LogicalType type = ((Column) columns.get(i)).getDataType().getLogicalType();
            json[i] = converters.createConverter(type);
            getters[i] = RowData.createFieldGetter(type, i);
        }
    }

    /**
     * The result as the fetch API describes it: {"columns": [{"name", "logicalType", "comment": null}], "jobId":
     * id or null, "resultKind"}, each logicalType as Flink's SQL Gateway serializes it (LogicalTypeJsonSerializer):
     * type root and nullable, plus length (CHAR, VARCHAR, BINARY, VARBINARY), precision and scale (DECIMAL),
     * precision (TIME, TIMESTAMP*), fields (ROW: name, fieldType, description), elementType (ARRAY, MULTISET),
     * keyType and valueType (MAP); any other type as its root only.
     */
    public String describe() throws Exception {
        ObjectNode out = mapper.createObjectNode();
        ArrayNode columns = out.putArray("columns");
        Iterator each = result.getResolvedSchema().getColumns().iterator();
        while (each.hasNext()) {
            Column column = (Column) each.next();
            ObjectNode item = columns.addObject();
            item.put("name", column.getName());
            item.set("logicalType", typeJson(column.getDataType().getLogicalType()));
            item.putNull("comment");
        }
        Optional job = result.getJobClient();
        if (job.isPresent()) {
            out.put("jobId", ((JobClient) job.get()).getJobID().toString());
        } else {
            out.putNull("jobId");
        }
        out.put("resultKind", result.getResultKind().name());
        return mapper.writeValueAsString(out);
    }

    private ObjectNode typeJson(LogicalType type) {
        ObjectNode out = mapper.createObjectNode();
        String root = type.getTypeRoot().name();
        out.put("type", root);
        out.put("nullable", type.isNullable());
        if (type instanceof CharType) {
            out.put("length", ((CharType) type).getLength());
        } else if (type instanceof VarCharType) {
            out.put("length", ((VarCharType) type).getLength());
        } else if (type instanceof BinaryType) {
            out.put("length", ((BinaryType) type).getLength());
        } else if (type instanceof VarBinaryType) {
            out.put("length", ((VarBinaryType) type).getLength());
        } else if (type instanceof DecimalType) {
            out.put("precision", ((DecimalType) type).getPrecision());
            out.put("scale", ((DecimalType) type).getScale());
        } else if (type instanceof TimeType) {
            out.put("precision", ((TimeType) type).getPrecision());
        } else if (type instanceof TimestampType) {
            out.put("precision", ((TimestampType) type).getPrecision());
        } else if (type instanceof ZonedTimestampType) {
            out.put("precision", ((ZonedTimestampType) type).getPrecision());
        } else if (type instanceof LocalZonedTimestampType) {
            out.put("precision", ((LocalZonedTimestampType) type).getPrecision());
        } else if (type instanceof RowType) {
            ArrayNode fields = out.putArray("fields");
            Iterator each = ((RowType) type).getFields().iterator();
            while (each.hasNext()) {
                RowType.RowField field = (RowType.RowField) each.next();
                ObjectNode item = fields.addObject();
                item.put("name", field.getName());
                item.set("fieldType", typeJson(field.getType()));
                Optional description = field.getDescription();
                if (description.isPresent()) {
                    item.put("description", (String) description.get());
                }
            }
        } else if (type instanceof ArrayType) {
            out.set("elementType", typeJson(((ArrayType) type).getElementType()));
        } else if (type instanceof MultisetType) {
            out.set("elementType", typeJson(((MultisetType) type).getElementType()));
        } else if (type instanceof MapType) {
            out.set("keyType", typeJson(((MapType) type).getKeyType()));
            out.set("valueType", typeJson(((MapType) type).getValueType()));
        }
        return out;
    }

    public void run() {
        Throwable failed = null;
        try {
            while (!closed && rows.hasNext()) {
                RowData row = (RowData) rows.next();
                String kind = row.getRowKind().name();
                ObjectNode asJson = mapper.createObjectNode();
                ObjectNode asText = mapper.createObjectNode();
                asJson.put("kind", kind);
                asText.put("kind", kind);
                String[] cells = text.convert(row);
                ArrayNode j = asJson.putArray("fields");
                ArrayNode t = asText.putArray("fields");
                for (int i = 0; i < cells.length; i++) {
                    Object field = getters[i].getFieldOrNull(row);
                    if (field == null) {
                        j.addNull();
                        t.addNull();
                    } else {
                        j.add(json[i].convert(mapper, null, field));
                        t.add(cells[i]);
                    }
                }
                String encodedJson = mapper.writeValueAsString(asJson);
                String encodedText = mapper.writeValueAsString(asText);
                synchronized (this) {
                    readyJson.add(encodedJson);
                    readyText.add(encodedText);
                    notifyAll();
                }
            }
        } catch (Throwable t) {
            if (!closed) {
                failed = t;
            }
        } finally {
            synchronized (this) {
                failure = failed;
                done = true;
                notifyAll();
            }
        }
    }

    /**
     * Up to max rows, waiting up to waitMillis for the first one (or the end): "N S\n", then the JSON-format rows
     * joined by commas, a \u0001, and the PLAIN_TEXT-format rows joined by commas. S is what follows this page:
     * R (more rows may come), E (the end: every row was taken) or F (the end by a failure, see getFailure). JSON
     * escapes control characters, so \u0001 only separates.
     */
    public synchronized String take(int max, long waitMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + waitMillis;
        long left = waitMillis;
        while (readyJson.isEmpty() && !done && !closed && left > 0) {
            wait(left);
            left = deadline - System.currentTimeMillis();
        }
        int n = Math.min(max, readyJson.size());
        StringBuilder out = new StringBuilder();
        out.append(n).append(' ');
        if (!done || n < readyJson.size()) {
            out.append('R');
        } else {
            out.append(failure == null ? 'E' : 'F');
        }
        out.append('\n');
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                out.append(',');
            }
            out.append((String) readyJson.get(i));
        }
        out.append('\u0001');
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                out.append(',');
            }
            out.append((String) readyText.get(i));
        }
        readyJson.subList(0, n).clear();
        readyText.subList(0, n).clear();
        return out.toString();
    }

    /** Are the result's fetches paced by our JobClient (Flink's fixed 100 ms sleep between them off)? */
    public boolean isPaced() {
        return paced;
    }

    public synchronized Throwable getFailure() {
        return failure;
    }

    /** Stops the drain, wakes a waiting take() and closes the iterator (which cancels an unfinished job). */
    public void close() throws Exception {
        closed = true;
        synchronized (this) {
            notifyAll();
        }
        rows.close();
    }
}
