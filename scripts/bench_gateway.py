"""The SQL gateway's figures for scripts/bench.py (issue 8): per call, per lab, memory, concurrent sessions.

Each figure is printed beside the floor it is compared with, measured in the same run.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from bench_cluster import env_of

from flinklab.cluster.base import resolve_rest_url
from flinklab.course.grader import grade_lab
from flinklab.course.registry import get_lab
from flinklab.course.runner import run_lab
from flinklab.environment.client import SqlClient
from flinklab.flink.rest import FlinkRest
from flinklab.settings import Settings

Row = Callable[[str, str], None]

ORDERS = "1,a,1.50\n2,a,2.25\n3,b,10.00\n4,a,4.00\n5,c,0.00\n"
DDL = "CREATE TABLE orders (id INT, k STRING, amount DECIMAL(10, 2)) WITH ('connector' = 'filesystem', " \
      "'path' = 'file://{path}', 'format' = 'csv');\n"
THREE = "SET 'sql-client.execution.result-mode' = 'tableau';\nSET 'execution.runtime-mode' = 'batch';\n" \
        "SELECT COUNT(*) AS n FROM orders;\n"


def sql_client_sh() -> str:
    return str(Path(sys.executable).with_name("sql-client.sh"))


def timed_call(args: list[str], settings: Settings, cwd: Path) -> float:
    started = time.monotonic()
    done = subprocess.run(args, cwd=cwd, env=env_of(settings), capture_output=True, text=True, check=False)
    seconds = time.monotonic() - started
    if done.returncode != 0:
        raise RuntimeError(f"{args} failed: {done.stdout[-500:]} {done.stderr[-500:]}")
    return seconds


def per_call(settings: Settings, row: Row, figures: dict) -> None:
    """A 3-statement `sql-client.sh -i ddl.sql -f q.sql` through the warm gateway vs in-process (`embedded`)."""
    work = settings.workspace_root / "bench-calls"
    work.mkdir(parents=True, exist_ok=True)
    (work / "orders.csv").write_text(ORDERS)
    (work / "ddl.sql").write_text(DDL.format(path=work / "orders.csv"))
    (work / "q.sql").write_text(THREE)
    base = [sql_client_sh()]
    args = ["-i", "ddl.sql", "-f", "q.sql"]
    timed_call(base + args, settings, work)  # the first call of this process tree warms the page cache
    via_gateway = [timed_call(base + args, settings, work) for _ in range(5)]
    embedded = [timed_call(base + ["embedded", *args], settings, work) for _ in range(2)]
    help_floor = [timed_call(base + ["--help"], settings, work) for _ in range(3)]
    figures["call_gateway_s"] = statistics.median(via_gateway)
    figures["call_embedded_s"] = statistics.median(embedded)
    figures["call_help_s"] = statistics.median(help_floor)
    row("3-statement sql-client.sh call, warm gateway (s, median of 5)", f"{figures['call_gateway_s']:.2f}")
    row("  the same call, embedded: a JVM per call (s, median of 2)",
        f"{figures['call_embedded_s']:.2f}  ({figures['call_embedded_s'] / figures['call_gateway_s']:.1f}x)")
    row("  floor: sql-client.sh --help, no gateway call (s)", f"{figures['call_help_s']:.2f}")
    door_cost(settings, work, row, figures)


def door_cost(settings: Settings, work: Path, row: Row, figures: dict) -> None:
    """What the gateway's token check (flinklab/gateway/auth.py) adds to the warm call above: its time per request,
    with the token and by the peer-owner rule, times the requests that call makes, beside the call."""
    import socket
    import timeit

    from flinklab.access import bearer, read_token
    from flinklab.gateway.auth import TokenGate
    from flinklab.sqlclient.protocol import GatewayClient

    token = read_token(settings.state_dir)
    gate = TokenGate(None, token)  # type: ignore[arg-type] - only its check runs here
    with_token = {"path": "/v3/sessions/s/statements", "headers": [(b"authorization", bearer(token).encode())]}
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        with socket.create_connection(server.getsockname()) as client:
            by_owner = {"path": "/v3/sessions", "headers": [], "client": client.getsockname(),
                        "server": server.getsockname()}
            assert gate.allowed(with_token) and gate.allowed(by_owner)
            per_token = min(timeit.repeat(lambda: gate.allowed(with_token), number=20_000, repeat=3)) / 20_000
            per_owner = min(timeit.repeat(lambda: gate.allowed(by_owner), number=2_000, repeat=3)) / 2_000
    sent = []
    original = GatewayClient._send

    def counting(self, *args, **kwargs):
        sent.append(args[1])
        return original(self, *args, **kwargs)

    GatewayClient._send = counting  # type: ignore[method-assign] - counts the requests of one call
    try:
        script = (work / "ddl.sql").read_text() + THREE
        with SqlClient(settings) as client, open("/dev/null", "w") as sink:
            client.new_session().run_script(script, sink)
    finally:
        GatewayClient._send = original  # type: ignore[method-assign]
    call = figures["call_gateway_s"]
    added = per_token * len(sent)
    figures["door_per_request_us"] = per_token * 1e6
    figures["door_by_owner_per_request_us"] = per_owner * 1e6
    row("gateway door: token check per request (us)", f"{per_token * 1e6:.1f}  (peer-owner rule, no token: "
        f"{per_owner * 1e6:.0f} us, /proc/net/tcp read)")
    row(f"  x {len(sent)} requests of the warm call above (ms)",
        f"{added * 1e3:.3f}  ({added / call:.6f} of the call's {call:.2f} s)")


def busy_seconds(settings: Settings, job_ids: list[str]) -> float:
    """How long at least one of the jobs was running (the union of their REST start/end times), in seconds."""
    rest = FlinkRest(resolve_rest_url(settings))
    jobs = [rest.job(job_id) for job_id in job_ids]
    spans = sorted((j["start-time"], j["end-time"]) for j in jobs if j.get("end-time", -1) > 0)
    busy, end = 0, None
    for start, stop in spans:
        if end is None or start > end:
            busy += stop - start
            end = stop
        elif stop > end:
            busy += stop - end
            end = stop
    return busy / 1000.0


def lab_per_step(settings: Settings, lab_name: str, row: Row, figures: dict) -> None:
    """The lab as one `sql-client.sh` process per step through the gateway, vs `flinklab run` (one client), one
    step at a time and with its default steps at once, each beside the Flink job time of that same run."""
    lab = get_lab(lab_name)
    runs = {}
    with SqlClient(settings) as client:
        for parallel in (1, settings.run_parallel):
            started = time.monotonic()
            run = run_lab(settings, lab, solution=True, client=client, parallel=parallel)
            runs[parallel] = (time.monotonic() - started, run)
    workspace = settings.workspace(lab_name)
    started = time.monotonic()
    for step in lab.steps:
        for name in step.writes:
            (workspace / name).unlink(missing_ok=True)
        args = [sql_client_sh(), *(["-i", lab.init_file] if step.uses_init else []), "-f", step.sql_file]
        with open(workspace / f"{step.id}.bench.out", "w") as out:
            subprocess.run(args, cwd=workspace, env=env_of(settings), stdout=out, stderr=subprocess.STDOUT,
                           check=False)
    per_step = time.monotonic() - started
    row(f"{lab_name}: one sql-client.sh call per step, via the gateway (s)", f"{per_step:.1f}")
    figures[f"{lab_name}_per_step_calls_s"] = per_step
    for parallel, (wall, run) in runs.items():
        jobs = run.job_seconds or 0.0
        busy = busy_seconds(settings, run.job_ids)
        key = f"{lab_name}_run_p{parallel}"
        figures.update({f"{key}_s": wall, f"{key}_job_s": jobs, f"{key}_busy_s": busy, f"{key}_ok": run.ok})
        row(f"{lab_name}: flinklab run --solution --parallel {parallel} (s)",
            f"{wall:.1f}  ({wall / jobs:.2f}x its jobs' {jobs:.1f} s; target <= 1.5x)" if jobs else f"{wall:.1f}")
        row("  floor: the sum of its Flink job durations / the time any of them ran (s)", f"{jobs:.1f} / {busy:.1f}")
    figures[f"{lab_name}_run_s"] = runs[settings.run_parallel][0]
    figures[f"{lab_name}_job_s"] = runs[settings.run_parallel][1].job_seconds or 0.0


def concurrent_sessions(settings: Settings, n: int, row: Row, figures: dict) -> None:
    """`n` learners at once, each running the joins lab's reference through its own sessions on one gateway and
    cluster: every workspace is graded, every statement's latency counted, and each learner's own view must be
    the only one it sees."""
    lab = get_lab("joins")
    latencies: list[float] = []
    graded: list[tuple[int, int]] = []
    leaks: list[str] = []
    errors: list[str] = []
    lock = threading.Lock()
    barrier = threading.Barrier(n)

    def learner(i: int) -> None:
        mine = replace(settings, workspace_root=settings.workspace_root / f"learner{i:02d}")
        try:
            with SqlClient(mine) as client:
                session = client.new_session()
                api = client.api
                view = api.execute(session.handle, f"CREATE TEMPORARY VIEW mine_{i} AS SELECT {i} AS x")
                list(api.pages(session.handle, view))
                barrier.wait(timeout=600)
                shown = [r["fields"][0] for p in api.pages(session.handle, api.execute(session.handle, "SHOW VIEWS"))
                         for r in p.rows]
                if shown != [f"mine_{i}"]:
                    with lock:
                        leaks.append(f"learner {i} sees {shown}")
                session.close()
                run = run_lab(mine, lab, solution=True, client=client, parallel=1)  # a learner, call by call
            report = grade_lab(mine, lab)
            with lock:
                latencies.extend(step.seconds for step in run.steps if step.ran)
                graded.append((len(report.results) - len(report.failures), len(report.results)))
                failed_steps = [f"{s.step.id}: {s.error}" for s in run.steps if not s.ok]
                if report.failures:
                    errors.append(f"learner {i}: failed checks {[f.name for f in report.failures][:4]}; "
                                  f"failed steps {failed_steps[:2]}")
        except Exception as exc:  # noqa: BLE001 - reported below
            with lock:
                errors.append(f"learner {i}: {type(exc).__name__}: {exc}")

    started = time.monotonic()
    threads = [threading.Thread(target=learner, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.monotonic() - started
    correct = sum(1 for passed, total in graded if passed == total)
    figures.update(concurrent_learners=n, concurrent_correct=correct, concurrent_wall_s=wall,
                   concurrent_leaks=len(leaks), concurrent_errors=errors[:3])
    row(f"{n} learners at once, joins lab each: all checks pass", f"{correct}/{n}")
    row(f"{n} learners at once: sessions that saw another's view", f"{len(leaks)}")
    runs = sorted(latencies)
    if runs:
        p50 = statistics.median(runs)
        p95 = runs[min(len(runs) - 1, int(0.95 * len(runs)))]
        figures.update(concurrent_step_p50_s=p50, concurrent_step_p95_s=p95)
        row(f"{n} learners at once: one step (an sql-client.sh call), p50 / p95 (s)", f"{p50:.1f} / {p95:.1f}")
    row(f"{n} learners at once: wall (s)", f"{wall:.1f}")
    for error in errors[:5]:
        row("  problem", error[:300])
