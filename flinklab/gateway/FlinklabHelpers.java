// Compiled at run time by Janino (shipped inside flink-table-runtime), so no JDK is needed: see jvm.py.
// Janino's Java subset: raw types and casts instead of generics, anonymous classes instead of lambdas.

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

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.dag.Pipeline;
import org.apache.flink.client.deployment.StandaloneClusterId;
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

    private Object run(Callable task) throws Throwable {
        try {
            return executor.submit(task).get();
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

    public void shutdown() {
        executor.shutdownNow();
    }
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

    public PipelineExecutorFactory getExecutorFactory(Configuration conf) throws Exception {
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
 * A submitted job, through its cluster's shared RestClusterClient; answers as Flink's ClusterClientJobClientAdapter
 * does. Savepoints, which no statement of ours takes, go to the adapter Flink returned.
 */
class FlinklabJobClient implements JobClient, CoordinationRequestGateway {
    /** The longest wait between two status polls of getJobExecutionResult. */
    private static final long MAX_POLL_MILLIS = 100;

    private final RestClusterClient cluster;
    private final JobClient submitted;
    private final JobID id;
    private final ClassLoader loader;
    private final ScheduledExecutorService timer;

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
        return cluster.getJobStatus(id);
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

    public CompletableFuture sendCoordinationRequest(String operatorUid, CoordinationRequest request) {
        return cluster.sendCoordinationRequest(id, operatorUid, request);
    }

    /**
     * Waits for the job's end by its status, polled at most MAX_POLL_MILLIS apart, then asks for its result once.
     * RestClusterClient.requestJobResult alone polls from the start with a wait that doubles up to 2 s, so a job
     * that ends after 0.7 s is seen at 1.27 s (an INSERT waits for this).
     */
    public CompletableFuture getJobExecutionResult() {
        final CompletableFuture ended = new CompletableFuture();
        pollUntilEnded(ended, 10);
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

    private void pollUntilEnded(final CompletableFuture ended, final long delayMillis) {
        cluster.getJobStatus(id).whenComplete(new BiConsumer() {
            public void accept(Object status, Object failure) {
                if (failure != null) {
                    ended.completeExceptionally((Throwable) failure);
                } else if (((JobStatus) status).isGloballyTerminalState()) {
                    ended.complete(status);
                } else {
                    timer.schedule(new Runnable() {
                        public void run() {
                            pollUntilEnded(ended, Math.min(2 * delayMillis, MAX_POLL_MILLIS));
                        }
                    }, delayMillis, TimeUnit.MILLISECONDS);
                }
            }
        });
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

    FlinklabRowPump(TableResultInternal result) {
        this.result = result;
        this.rows = result.collectInternal();
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
