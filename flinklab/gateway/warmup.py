"""The gateway's warm-up: a new JVM plans a learner's first statement in over a second, a new TaskManager runs its
first task in two more; these run the same code paths first, so a learner's first call is as quick as the next.

- `warm_planner` (on a thread, from the gateway's start: it answers before) plans statements of the kinds the labs
  use (window TVF aggregation and Top-N, a GROUP BY, interval and temporal joins, a batch GROUP BY), each built
  into its job (StreamGraph, user code serialized) by the dry-run executor (FlinklabDryRun): nothing is submitted,
  so it needs no cluster, logs no error, and runs while the cluster starts.
- `warm_cluster` (on a thread, when flink-up asks, the cluster being ready) runs two tiny jobs over a CSV file in
  the data dir flink-up names (a streaming GROUP BY, then a batch one, through the collect sink every query
  uses; the batch one planned while the streaming one runs) and reads their rows, as a learner's query does;
  flink-up waits for them.

Both give way to a learner: before each step they wait for a quiet moment on the gateway (`Traffic`: no learner
statement executing, none ended in the last second), so a statement that comes while they run competes with at
most the one step in progress, never with the rest of the warm-up; and the planner's runs on a Java thread at the
lowest CPU priority (nice 19, `Session.lower_priority`), so even that step takes only the CPU a learner leaves (the
first call right after a cold flink-up 0.42 -> 0.39 s, flink-up 4.96 -> 4.85 s: medians of 10 starts each, 2
cores). The planner's warm-up also gives way to the cluster's planning, which flink-up waits for, and plans while
the cluster runs the jobs (the cluster's JVMs are busy then, not the gateway's): by the time flink-up returns,
little of it is left.

Neither names a lab: the statements use connectors every Flink has (filesystem + csv, datagen without a file).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence

from flinklab.flink.waiting import Wait
from flinklab.gateway.jvm import Jvm
from flinklab.gateway.results import ResultSource
from flinklab.gateway.session import Session

log = logging.getLogger("flinklab.gateway")

#: Flink's `execution.target` for the dry-run executor (FlinklabExecutors.DRY_TARGET).
DRY_TARGET = "flinklab-dry-run"

_EVENTS = ("CREATE TEMPORARY TABLE flinklab_warm_{name} (id STRING, k STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3),"
           " WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'filesystem',"
           " 'path' = 'file:///flinklab-warm-up-never-read', 'format' = 'csv')")
_VERSIONS = ("CREATE TEMPORARY TABLE flinklab_warm_rates (k STRING, rate DECIMAL(10, 4), ts TIMESTAMP(3),"
             " WATERMARK FOR ts AS ts, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'filesystem',"
             " 'path' = 'file:///flinklab-warm-up-never-read', 'format' = 'csv')")
_TOTALS = ("SELECT window_start, window_end, k, COUNT(*) AS n, SUM(amount) AS total FROM TABLE(TUMBLE(TABLE "
           "flinklab_warm_a, DESCRIPTOR(ts), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end, k")

PLANNER_TABLES: tuple[str, ...] = (_EVENTS.format(name="a"), _EVENTS.format(name="b"), _VERSIONS)
#: Streaming statements, then (after SET batch) a batch one: the kinds of plan a lab's steps make. One of each
#: kind: the first plan of a kind loads and compiles most of what it needs (seconds on a new JVM, a fraction of one
#: after).
STREAMING: tuple[str, ...] = (
    _TOTALS,
    f"SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY total DESC) AS rn "
    f"FROM ({_TOTALS})) WHERE rn <= 3",
    "SELECT k, COUNT(*) AS n, SUM(amount) AS total FROM flinklab_warm_a GROUP BY k",
    "SELECT a.id, b.id, TIMESTAMPDIFF(SECOND, a.ts, b.ts) AS delay_s FROM flinklab_warm_a AS a, flinklab_warm_b AS b "
    "WHERE a.id = b.id AND b.ts BETWEEN a.ts AND a.ts + INTERVAL '2' HOUR",
    "SELECT a.id, r.rate, a.amount * r.rate AS converted FROM flinklab_warm_a AS a "
    "JOIN flinklab_warm_rates FOR SYSTEM_TIME AS OF a.ts AS r ON a.k = r.k",
)
BATCH: tuple[str, ...] = ("SELECT k, COUNT(*) AS n FROM flinklab_warm_a GROUP BY k",
                          "SELECT 'all' AS t, COUNT(*) AS n FROM flinklab_warm_a UNION ALL "
                          "SELECT 'some', COUNT(*) FROM flinklab_warm_b WHERE amount > 0")

#: The cluster's warm-up jobs, over a CSV file the TaskManagers read (`warm_up_rows`, in the data dir flink-up
#: gives): a streaming GROUP BY, then a batch one, both through the collect sink every query uses, so the first
#: query of each kind meets a TaskManager that has run a filesystem source, the CSV format and both aggregations.
CSV_TABLE = ("CREATE TEMPORARY TABLE flinklab_warm_rows (k INT, v BIGINT) WITH ('connector' = 'filesystem', "
             "'path' = '{path}', 'format' = 'csv')")
#: Without a file (a gateway asked with none): bounded datagen rows, on every Flink.
CLUSTER_TABLE = ("CREATE TEMPORARY TABLE flinklab_warm_rows (k INT, v BIGINT) WITH ('connector' = 'datagen', "
                 "'number-of-rows' = '200', 'fields.k.min' = '1', 'fields.k.max' = '5')")
CLUSTER_QUERY = "SELECT k, COUNT(*) AS n, SUM(v) AS total FROM flinklab_warm_rows GROUP BY k"
#: The batch job: counts over the CSV file, one of them filtered, in a UNION ALL: what a lab's first batch step does
#: (the joins lab's `count`: a COUNT(*) per table), whose global aggregation is other code than a GROUP BY's
CLUSTER_BATCH_QUERY = ("SELECT 'all' AS t, COUNT(*) AS n FROM flinklab_warm_rows UNION ALL "
                       "SELECT 'some', COUNT(*) FROM flinklab_warm_rows WHERE k > 2")
#: The warm-up file's name in the data dir, and its rows
WARM_UP_FILE = "flinklab-warm-up.csv"


def warm_up_rows(rows: int = 200) -> str:
    """The warm-up file's text: `rows` lines of `k,v` (k in 1..5)."""
    return "".join(f"{i % 5 + 1},{i}\n" for i in range(rows))


#: The warm-up job's name on the cluster (`pipeline.name`)
JOB_NAME = "flinklab warm-up"


class Traffic:
    """The learners' statements on a gateway, as a warm-up sees them: `busy()` wraps one statement's execution
    (planning, submission), `wait_quiet()` returns once none executes and none ended in the last `quiet` seconds
    (the gaps between one client's statements are milliseconds: a call's statements pass as one)."""

    def __init__(self, quiet: float = 1.0):
        self.quiet = quiet
        self._changed = threading.Condition()
        self._executing = 0
        # its making counts as traffic: a warm-up begins `quiet` seconds after the gateway's start, so the first
        # statement that comes at once (flink-up's attach probe, its cluster warm-up) has the JVM to itself
        self._last_end = time.monotonic()

    @contextlib.contextmanager
    def busy(self) -> Iterator[None]:
        with self._changed:
            self._executing += 1
        try:
            yield
        finally:
            with self._changed:
                self._executing -= 1
                self._last_end = time.monotonic()
                self._changed.notify_all()

    def wait_quiet(self, quiet: float | None = None) -> float:
        """Block until quiet (for `quiet` seconds instead of the traffic's own, if given); the seconds waited."""
        started = time.monotonic()
        quiet = self.quiet if quiet is None else quiet
        with self._changed:
            while True:
                if self._executing:
                    self._changed.wait()
                    continue
                left = self._last_end + quiet - time.monotonic()
                if left <= 0:
                    return time.monotonic() - started
                self._changed.wait(left)


#: for a warm-up run with no gateway around it (tests, benchmarks): always quiet
ALWAYS_QUIET = Traffic(quiet=0.0)


def warm_planner(jvm: Jvm, rounds: int = 1, traffic: Traffic = ALWAYS_QUIET,
                 yield_to: Traffic = ALWAYS_QUIET) -> float:
    """Plan and build (never submit) the statements above `rounds` times, each in a quiet moment of `traffic`
    and of `yield_to` (the cluster's warm-up, which flink-up waits for: it goes first); returns the seconds it
    took."""
    started = time.monotonic()
    session = Session(jvm, {"execution.target": DRY_TARGET})  # not registered: no client can see it
    try:
        # the lowest CPU priority for its planning: a learner's statement that comes meanwhile takes the CPU first
        if not session.lower_priority():
            log.debug("planner warm-up: its thread keeps its CPU priority (no /proc, or a JVM in a container)")
        for statement in PLANNER_TABLES:
            session.execute(statement)
        for _ in range(rounds):
            _plan_all(session, STREAMING, "streaming", (yield_to, traffic))
            _plan_all(session, BATCH, "batch", (yield_to, traffic))
    finally:
        session.close()
    return time.monotonic() - started


def _plan_all(session: Session, statements: Sequence[str], mode: str, traffic: Sequence[Traffic]) -> None:
    session.set("execution.runtime-mode", mode)
    for statement in statements:
        for each in traffic:
            each.wait_quiet()
        session.plan(statement)


def warm_cluster(jvm: Jvm, cluster_conf: Mapping[str, str], timeout: float = 120.0,
                 traffic: Traffic = ALWAYS_QUIET, csv_path: str | None = None,
                 planning: Traffic | None = None) -> float:
    """Run the tiny jobs on the cluster `cluster_conf` names, each in a quiet moment of `traffic`, and read their
    rows; over the CSV file `csv_path` (a path the TaskManagers read) a streaming then a batch job, else one
    streaming job over datagen rows; `planning` is busy while they are planned and submitted. Returns the seconds
    it took. Raises what a statement raised (the caller logs
    it: a warm-up never fails a gateway)."""
    started = time.monotonic()
    session = Session(jvm, cluster_conf)
    try:
        session.set("pipeline.name", JOB_NAME)  # so the Web UI (and a test) can tell it from a learner's
        if csv_path is None:
            session.execute(CLUSTER_TABLE)
            modes: tuple[str, ...] = ("streaming",)
        else:
            session.execute(CSV_TABLE.format(path=csv_path.replace("'", "''")))
            modes = ("streaming", "batch")
        # both jobs at once: the batch job is planned while the streaming one runs, and the two take their first
        # task's costs (class loading, code generation) together; one after the other took ~1 s longer on 2 cores
        sources: list[ResultSource] = []
        try:
            # `planning` is busy while the jobs are planned and submitted: the planner's warm-up waits for that,
            # then plans while the cluster runs them (its JVMs, not the gateway's, are busy then)
            with (planning or Traffic(quiet=0.0)).busy():
                for mode in modes:
                    traffic.wait_quiet()
                    session.set("execution.runtime-mode", mode)
                    sources.append(session.execute(CLUSTER_BATCH_QUERY if mode == "batch" else CLUSTER_QUERY))
            for source in sources:
                _read_all(source, timeout)
        finally:
            for source in sources:
                with contextlib.suppress(Exception):  # read ones are closed already; this is for a failure's rest
                    source.close()
    finally:
        session.close()
    return time.monotonic() - started


def _read_all(source: ResultSource, timeout: float) -> None:
    def drained() -> bool:
        if source.finished():
            return True
        source.take(1000, 1.0)  # blocks up to a second for rows: the wait needs no sleep of its own
        return False

    try:
        Wait("the warm-up job's rows", timeout, interval=0.0).poll(drained)
        failure = source.failure()
        if failure is not None:
            raise RuntimeError(str(failure.toString()))
    finally:
        source.close()


class WarmUp:
    """One warm-up of a gateway (`work(**options)`, returning its seconds), run at most once, on a thread of its own:
    `start()` begins it, `state` says how far it is (idle, running, done, failed). A warm-up that fails only says
    so in the log (INFO): a cold planner or cluster is slower, not broken."""

    def __init__(self, what: str, work: Callable[..., float]):
        self.what = what
        self._work = work
        self._lock = threading.Lock()
        self.state = "idle"
        self.seconds: float | None = None

    def start(self, **options: object) -> str:
        """Start it (`work(**options)`) unless it ran or runs; the state after the call."""
        with self._lock:
            if self.state == "idle":
                self.state = "running"
                threading.Thread(target=self._run, args=(options,), name=f"flinklab-warm-up-{self.what}",
                                 daemon=True).start()
            return self.state

    def _run(self, options: dict[str, object]) -> None:
        try:
            self.seconds = self._work(**options)
        except Exception as exc:  # noqa: BLE001 - see the class docstring
            log.info("%s warm-up did not run: %s", self.what, first_words(exc))
            self.state = "failed"
            return
        log.info("%s warmed up in %.1f s", self.what, self.seconds)
        self.state = "done"


def first_words(exc: BaseException) -> str:
    text = str(exc).strip()
    return (text.splitlines()[0] if text else type(exc).__name__)[:300]
