#!/usr/bin/env python3
"""Benchmark: prints figures, asserts nothing (the machines are shared and noisy; compare ratios within one run).
One script on purpose (~410 lines): one run boots one cluster and prints every figure beside its floor from that run;
the gateway, cluster-start and shell sections are their own modules (bench_gateway, bench_cluster, shell_bench).

    .venv/bin/python scripts/bench.py [--backend local|docker] [--labs joins windows] [--skip-per-step] [--learners N]
                                      [--no-attach]
                                      [--only cluster grader cli] [--grader-scales 1 10 100] [--json FILE]

Uses its own temporary workspace, data and state dirs and a free REST port, so it never touches a running
cluster or a learner's files. Figures:
- `flink-up` cold (no gateway, and with it) beside the Flink distribution's own jobmanager.sh + taskmanager.sh
  start to the same readiness (`--start-rounds`, local backend); flink-up warm (already running), flink-down;
- the first 3-statement `sql-client.sh` call right after a fresh install's first `flink-up` (after install.sh's
  `flinklab prepare`), and once the gateway's warm-ups ended; the same after a cold start;
- the gateway: a 50k-row streaming result; the 3-statement call through the warm gateway (median of 20) beside its
  job's REST duration, vs the same call `embedded` (a JVM per call, the old way) vs `sql-client.sh --help` beside
  `python -c pass`; where a warm call's time goes, phase by phase (client start, session, DDL, SETs, planning and
  upload, scheduling, the job, end-of-stream, close: the client's own request times and the JobManager's job
  timestamps);
- `flink-up --backend remote` attaching to the bench's cluster beside its gateway's own start (`--no-attach`);
- per lab: the steps as separate `sql-client.sh -i ddl.sql -f STEP.sql` calls through the gateway vs
  `flinklab run LAB --solution` vs the sum of the Flink job durations (REST);
- resident memory of the JobManager, TaskManagers and the gateway's JVM (after the labs, after the learners);
- N learners at once (`--learners`, default 20): each runs the joins lab through its own sessions; every workspace
  is graded, each session must see only its own view, and the step latency p50/p95 is printed;
- the grader: `flinklab check joins` at scale 1, 10 and 100 (synthetic outputs from the reference, no Flink) next to
  the time to just read the files, and the ratio between scales;
- CLI start of `flinklab --help`, `flinklab check joins` and `sql-client.sh --help` next to `python -c pass`;
- the interactive shell (scripts/shell_bench.py, its own cluster): start to prompt beside `sql-client.sh --help`,
  the completion round trip p50/p95, one query through the shell and through `-f`, and the table view's refresh
  over 10,000 changing rows.
"""

from __future__ import annotations

import argparse
import functools
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from flinklab.course.registry import get_lab
from flinklab.environment.select import backend_for
from flinklab.settings import Settings
from flinklab.usecases.cluster import bring_down, bring_up, prepare
from flinklab.usecases.provision import lab_data_files
from flinklab.usecases.run import run_lab


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


#: Every figure printed, for `--json FILE`: {"section", "figure", "value"[, "floor", "unit"]}.
FIGURES: list[dict] = []
_SECTION = ["cluster"]


def row(label: str, value: str) -> None:
    print(f"  {label:<52} {value}")
    FIGURES.append({"section": _SECTION[0], "figure": label, "value": value})


def section(name: str) -> None:
    """Print a section header; the figures after it are recorded under `name`."""
    _SECTION[0] = name
    print(name)


def figure(label: str, seconds: float, floor: float | None = None, floor_label: str = "floor") -> None:
    """A time next to its floor, measured in the same run, and their ratio."""
    text = f"{seconds:.3f}" + (f"  ({floor_label} {floor:.3f}, {seconds / floor:.1f}x)" if floor else "")
    print(f"  {label:<52} {text}")
    FIGURES.append({"section": _SECTION[0], "figure": label, "value": round(seconds, 4), "unit": "s",
                    **({"floor": round(floor, 4), "floor_is": floor_label} if floor else {})})


def main() -> int:
    import bench_cluster
    import bench_gateway

    from flinklab.environment.client import LabSqlClient  # here: the grader and CLI sections must run without it

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", default="local", choices=["local", "docker"])
    ap.add_argument("--labs", nargs="+", default=["joins", "windows"])
    ap.add_argument("--learners", type=int, default=20, help="concurrent sessions running the joins lab (0: skip)")
    ap.add_argument("--skip-per-step", action="store_true", help="skip the one-call-per-step comparison")
    ap.add_argument("--no-attach", dest="attach", action="store_false",
                    help="skip `flink-up --backend remote` beside the gateway's own start")
    ap.add_argument("--start-rounds", type=int, default=2,
                    help="rounds of flink-up vs the distribution's own start (0: skip)")
    ap.add_argument("--cold-rounds", type=int, default=3, choices=range(1, 11), metavar="1..10",
                    help="cold starts whose first call is timed (the figure is their median)")
    args = ap.parse_args()

    root = Path(tempfile.mkdtemp(prefix="flinklab-bench-"))
    settings = Settings.from_env(
        workspace_root=root / "workspace",
        data_dir=root / "data",
        state_dir=root / "state",
        cache_dir=root / "cache",  # a fresh install: its archives are made by install.sh's `flinklab prepare`
        rest_port=free_port(),
        gateway_port=free_port(),
        backend=args.backend,
        slots=max(4, 2 * args.learners + 4),  # a learner may hold two (a closing query, the next step)
    )
    backend, reason = backend_for(settings)
    print(f"flinklab benchmark: backend {backend.name} ({reason}), {os.cpu_count()} cores, dirs under {root}")
    figures: dict = {}
    if args.start_rounds and args.backend == "local":
        section("cluster start")
        bench_cluster.flink_up_vs_distribution(row, figures, rounds=args.start_rounds)
    try:
        data = lab_data_files()
        if args.backend == "local":  # what install.sh does once: the first flink-up below is a fresh install's
            prepare(settings, data_files=data)
        t0 = time.monotonic()
        bring_up(settings, data_files=data)  # what flink-up does: provision the data, start the gateway and the cluster
        cold = time.monotonic() - t0
        section("first call")
        bench_gateway.first_call(settings, row, figures)  # before anything else runs on the new cluster
        if args.backend == "local":  # and after cold starts: their class-data archives made while the first ran
            bench_cluster.wait_for_dumps(settings)

            def restart() -> None:
                bring_down(settings)
                bring_up(settings, data_files=data)

            bench_gateway.first_call(settings, row, figures, start="cold", restart=restart, rounds=args.cold_rounds)
        t0 = time.monotonic()
        bring_up(settings, data_files=data)
        warm = time.monotonic() - t0
        section("cluster")
        figure("flink-up cold, cluster and gateway to ready (s)", cold)
        figure("flink-up warm, already running (s)", warm)

        section("gateway")
        with LabSqlClient(settings) as client:
            rows = 50_000
            script = (
                "SET 'sql-client.execution.result-mode' = 'tableau';\n"
                f"CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '{rows}',"
                f" 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '{rows}');\n"
                "SELECT id FROM gen;\n"
            )
            with open(os.devnull, "w") as sink:
                t0 = time.monotonic()
                client.new_session().run_script(script, sink)
                big = time.monotonic() - t0
        row(f"{rows} streaming rows printed: wall (s)", f"{big:.1f}  ({rows / big:.0f} rows/s incl. job start)")
        bench_gateway.per_call(settings, row, figures)
        bench_gateway.py4j_answers(settings, row, figures)
        if args.attach:
            section("attach")
            bench_gateway.attach(settings, root, row, figures)

        for name in args.labs:
            section(f"lab {name}")
            if args.skip_per_step:
                with LabSqlClient(settings) as client:
                    t0 = time.monotonic()
                    run = run_lab(settings, get_lab(name), solution=True, client=client)
                    wall = time.monotonic() - t0
                figure("flinklab run --solution (s)", wall, run.job_seconds, "its Flink jobs")
            else:
                bench_gateway.lab_per_step(settings, name, row, figures)
        section("memory")
        bench_cluster.jvm_memory(settings, row, figures, " after the labs")
        if args.learners:
            section("concurrent sessions")
            bench_gateway.concurrent_sessions(settings, args.learners, row, figures)
            section("memory")
            bench_cluster.jvm_memory(settings, row, figures, f" after {args.learners} learners")
        status = backend.status()
        row("jobs finished / failed", f"{status.jobs_finished} / {status.jobs_failed}")
        FIGURES.append({"section": "all", "figure": "named figures", "value": figures})
    finally:
        t0 = time.monotonic()
        bring_down(settings)
        section("cluster")
        figure("flink-down (s)", time.monotonic() - t0)
        shutil.rmtree(root, ignore_errors=True)
    return 0


# ---- the grader at scale 1, 10 and 100, and CLI start --------------------------------------------------------------

CAPTURED = Path(__file__).resolve().parent.parent / "tests" / "data" / "joins" / "outputs" / "solution"


def _table(columns: list[str], rows: list[list[str]], ops: list[str] | None, footer: str) -> list[str]:
    """A result as sql-client prints it (tableau), one line per element."""
    from flinklab.sqlclient.tableau import border_line, format_row

    head = (["op"] if ops is not None else []) + columns
    widths = [max(len(h), 6) for h in head]
    for r in rows:
        for i, cell in enumerate(([""] if ops is not None else []) + r):
            widths[i] = max(widths[i], len(cell))
    border = border_line(widths)
    lines = [border, format_row(head, widths), border]
    for i, r in enumerate(rows):
        lines.append(format_row(([ops[i]] if ops is not None else []) + r, widths))
    if ops is None:
        lines.append(border)
    lines.append(footer)
    return lines


def _changelog(events: list[tuple[str, tuple]]) -> tuple[list[str], list[list[str]]]:
    """(ops, rows) of a GROUP BY result: each (key, new values) event updates its key (-U/+U, or +I the first
    time)."""
    ops: list[str] = []
    rows: list[list[str]] = []
    last: dict[str, list[str]] = {}
    for key, values in events:
        new = [key, *(str(v) for v in values)]
        if key in last:
            ops += ["-U", "+U"]
            rows += [last[key], new]
        else:
            ops.append("+I")
            rows.append(new)
        last[key] = new
    return ops, rows


def _latest_events(data, faithful: bool) -> list[tuple[str, tuple]]:
    """The aggregate updates of latest.sql (orders JOIN rates_v without AS OF, GROUP BY currency).

    Faithful: every rate change retracts and re-adds every past order of its currency, one update each, as a real
    run prints it (quadratic: 1.9k rows at scale 1, 141k at 10, 13.8M at 100). Otherwise only the orders of the
    change's own day are retracted and re-added, which keeps scale 1's density per day and grows linearly."""
    from decimal import Decimal

    events: list[tuple[str, tuple]] = []
    for currency in sorted({o.currency for o in data.orders}):
        timeline = sorted([(o.order_time, 0, o.amount) for o in data.orders if o.currency == currency]
                          + [(r.update_time, 1, r.rate) for r in data.rates if r.currency == currency])
        amounts: list[tuple] = []
        rate = None
        for when, kind, value in timeline:
            if kind == 0:
                amounts.append((when.date(), value))
                if rate is not None:
                    events.append((currency, (len(amounts), sum(a for _, a in amounts) * rate)))
                continue
            redo = [a for d, a in amounts if faithful or d == when.date()]
            total = sum((a for _, a in amounts), Decimal(0)) * (rate or 0)
            for i, amount in enumerate(redo):  # the retractions at the old rate, then the re-adds at the new
                if rate is not None:
                    events.append((currency, (len(amounts) - i - 1, total - amount * rate)))
            rate = value
            for _ in redo:
                events.append((currency, (len(amounts), sum((a for _, a in amounts), Decimal(0)) * rate)))
    return events


def _joins_workspace(workspace: Path, data_dir: Path, scale: int, faithful: bool) -> int:
    """The joins lab's outputs at `scale` as a correct run would print them, from the reference; returns the rows
    of latest.out."""
    import json

    from flinklab.course.registry import get_lab
    from flinklab.labs.joins import reference as ref
    from flinklab.labs.joins.fixtures import fmt
    from flinklab.usecases.fixtures import write_fixtures

    write_fixtures(get_lab("joins"), data_dir, scale=scale)
    data = ref.load(data_dir)
    workspace.mkdir(parents=True, exist_ok=True)

    def save(name: str, columns: list[str], rows: list[list[str]], ops: list[str] | None) -> None:
        footer = f"{len(rows)} rows in set" if ops is None else f"Received a total of {len(rows)} rows"
        (workspace / name).write_text("\n".join(_table(columns, rows, ops, footer)) + "\n", encoding="utf-8")

    save("count.out", ["tbl", "n"], [[t, str(n)] for t, n in ref.counts(data).items()], None)
    tier_of = {u.user_id: u.tier for u in data.users}
    running: dict[str, tuple] = {}
    tier_events = []
    for o in sorted(data.orders, key=lambda o: o.order_time):
        if o.user_id in tier_of:
            n, a = running.get(tier_of[o.user_id], (0, 0))
            running[tier_of[o.user_id]] = (n + 1, a + o.amount)
            tier_events.append((tier_of[o.user_id], running[tier_of[o.user_id]]))
    ops, rows = _changelog(tier_events)
    save("regular.out", ["tier", "orders", "amount"], rows, ops)
    interval = sorted(ref.interval_rows(data))
    save("interval.out", ["order_id", "ship_id", "delay_s"], [[a, b, str(c)] for a, b, c in interval],
         ["+I"] * len(interval))
    unshipped = sorted(ref.unshipped(data))
    save("unshipped.out", ["order_id", "order_time"], [[a, fmt(t)] for a, t in unshipped], ["+I"] * len(unshipped))
    temporal = [[o, c, str(r), str(k)] for o, (c, r, k) in ref.temporal(data).items()]
    save("temporal.out", ["order_id", "currency", "rate", "amount_krw"], temporal, ["+I"] * len(temporal))
    ops, rows = _changelog(_latest_events(data, faithful))
    save("latest.out", ["currency", "orders", "total_krw"], rows, ops)
    for plan in CAPTURED.glob("*-plan.json"):
        shutil.copy(plan, workspace / plan.name)
    lab = get_lab("joins")
    for name in lab.solution_files:  # the SQL beside its outputs, as a learner's workspace has it (check holds each
        shutil.copy(lab.solution_dir / name, workspace / name)  # output against its SQL; these echo none)
    (workspace / "report.json").write_text(json.dumps(ref.report(data)), encoding="utf-8")
    return len(rows)


def _best(fn, repeat: int) -> float:
    """The fastest of `repeat` runs of `fn()` (the machines are shared: the minimum is the least disturbed)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def _read_all(paths: list[Path]) -> None:
    for path in paths:
        path.read_bytes().decode("utf-8")


def bench_grader(root: Path, scales: list[int]) -> None:
    """`flinklab check joins` at each scale (grading in this process, then the whole command), next to the floor:
    reading the same files."""
    from flinklab.course.registry import get_lab
    from flinklab.usecases.check import grade_lab

    section("grader (joins, synthetic outputs from the reference)")
    lab = get_lab("joins")
    per_scale: dict[str, float] = {}
    cases = [(s, False) for s in scales] + ([(10, True)] if 10 in scales else [])
    for scale, faithful in cases:
        tag = f"scale {scale}" + (", faithful latest.out" if faithful else "")
        case_root = root / f"grader-{scale}-{faithful}"
        settings = Settings.from_env(workspace_root=case_root / "ws", data_dir=case_root / "data",
                                     state_dir=case_root / "state", rest_port=free_port())
        latest_rows = _joins_workspace(settings.workspace("joins"), settings.data_dir, scale, faithful)
        files = [p for p in settings.workspace("joins").iterdir()] + list(settings.data_dir.iterdir())
        megabytes = sum(p.stat().st_size for p in files) / 1e6
        repeat = 3 if scale <= 10 else 1
        report = grade_lab(settings, lab)
        assert report.all_passed, [r.message for r in report.failures]
        floor = _best(functools.partial(_read_all, files), repeat)
        grade = _best(functools.partial(grade_lab, settings, lab), repeat)
        figure(f"{tag}: grade ({latest_rows} rows in latest.out, {megabytes:.1f} MB)", grade, floor,
               "reading the files")
        env = {**os.environ, "FLINKLAB_WORKSPACE": str(settings.workspace_root),
               "FLINKLAB_DATA_DIR": str(settings.data_dir), "FLINKLAB_STATE_DIR": str(settings.state_dir)}
        cli = _best(functools.partial(subprocess.run, _script("flinklab", "check", "joins"), env=env, check=False,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL), repeat)
        figure(f"{tag}: `flinklab check joins`, whole command", cli)
        if not faithful:
            per_scale[str(scale)] = grade
        shutil.rmtree(case_root, ignore_errors=True)
    for low, high in zip(scales, scales[1:]):
        if str(low) in per_scale and str(high) in per_scale:
            ratio = per_scale[str(high)] / per_scale[str(low)]
            row(f"grade time ratio scale {high} / scale {low} (data x{high // low})", f"{ratio:.1f}x")


def _script(name: str, *args: str) -> list[str]:
    """A console script of this environment (it runs the checkout on PYTHONPATH, as the suite does)."""
    entry = {"flinklab": "main", "sql-client.sh": "sql_client_main", "flink-up": "flink_up_main"}[name]
    code = f"import sys; sys.argv[0] = {name!r}; from flinklab.cli import {entry}; {entry}()"
    return [sys.executable, "-c", code, *args]


def bench_cli_start(root: Path, runs: int = 7) -> None:
    """How long the commands that need neither Docker nor PyFlink take to start, next to `python -c pass`."""
    section("CLI start (median of runs)")
    settings_root = root / "cli"
    settings = Settings.from_env(workspace_root=settings_root / "ws", data_dir=settings_root / "data",
                                 state_dir=settings_root / "state", rest_port=free_port())
    _joins_workspace(settings.workspace("joins"), settings.data_dir, 1, False)
    env = {**os.environ, "FLINKLAB_WORKSPACE": str(settings.workspace_root),
           "FLINKLAB_DATA_DIR": str(settings.data_dir), "FLINKLAB_STATE_DIR": str(settings.state_dir)}

    def median(cmd: list[str]) -> float:
        times = []
        for _ in range(runs + 1):  # the first run warms the file cache and is not counted
            t0 = time.perf_counter()
            subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            times.append(time.perf_counter() - t0)
        return sorted(times[1:])[runs // 2]

    floor = median([sys.executable, "-c", "pass"])
    figure("python -c pass (the floor)", floor)
    # What running any typer command with a typed option costs before it does anything (typer then loads its
    # pydantic adapters), rich loaded as our commands load it: the floor this project's code sits on.
    typer_floor = median([sys.executable, "-c", "import pathlib, typer, rich.console\n"
                          "def cmd(out: pathlib.Path = typer.Option(None)): rich.console.Console().print('')\n"
                          "app = typer.Typer(); app.command()(cmd); app([], standalone_mode=False)"])
    figure("a one-command typer app with a Path option, run", typer_floor, floor, "python -c pass")
    for label, cmd in (("flinklab --help", _script("flinklab", "--help")),
                       ("flinklab check --help", _script("flinklab", "check", "--help")),
                       ("flinklab check joins (scale 1, grading included)", _script("flinklab", "check", "joins")),
                       ("sql-client.sh --help", _script("sql-client.sh", "--help"))):
        seconds = median(cmd)
        figure(label, seconds, floor, "python -c pass")
        figure(f"  {label}, over the typer app", seconds, typer_floor, "typer floor")
    shutil.rmtree(settings_root, ignore_errors=True)


def entry() -> int:
    """`--only` picks sections (default: all); `--json FILE` also writes every figure as JSON. Other options go to
    the cluster section (`main`)."""
    import json

    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--only", nargs="+", choices=["cluster", "grader", "cli", "shell", "notebook"],
                    default=["cluster", "grader", "cli", "shell", "notebook"])
    ap.add_argument("--json", metavar="FILE", type=Path)
    ap.add_argument("--grader-scales", nargs="+", type=int, default=[1, 10, 100])
    ours, rest = ap.parse_known_args()
    status = 0
    if "cluster" in ours.only:
        sys.argv = [sys.argv[0], *rest]
        status = main()
    root = Path(tempfile.mkdtemp(prefix="flinklab-bench-"))
    try:
        if "grader" in ours.only:
            bench_grader(root, ours.grader_scales)
        if "cli" in ours.only:
            bench_cli_start(root)
        bench_grade_image(root, ours.only)
        if "shell" in ours.only:
            sys.path.insert(0, str(Path(__file__).resolve().parent))
            from shell_bench import bench_shell

            bench_shell(root, figure, section)
        bench_notebook_section(root) if "notebook" in ours.only else None
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if ours.json is not None:
        ours.json.write_text(json.dumps({"cores": os.cpu_count(), "figures": FIGURES}, indent=2) + "\n")
        print(f"wrote {ours.json}")
    return status


def bench_grade_image(root: Path, only: list[str]) -> None:
    """`flinklab grade` of the joins reference: in the grader image (`docker run --network none` -> results.json,
    Gradescope's layout, 2 cores) beside the same grading on this host, which boots its own local cluster too."""
    if "grader" not in only:
        return
    import json

    from flinklab.cluster.grader_image import build_grader_image
    from flinklab.course.registry import get_lab
    from flinklab.errors import FlinklabError
    from flinklab.usecases.grade import grade_submission

    section("grade (joins reference: boot a cluster, rerun the SQL, grade)")
    lab = get_lab("joins")
    sub = root / "grade" / "submission"
    sub.mkdir(parents=True)
    for name in lab.solution_files:
        shutil.copyfile(lab.solution_dir / name, sub / name)
    settings = Settings.from_env(workspace_root=root / "grade" / "ws", data_dir=root / "grade" / "data",
                                 state_dir=root / "grade" / "state", cache_dir=root / "cache", backend="local",
                                 rest_port=free_port(), gateway_port=free_port())
    t0 = time.monotonic()
    host = grade_submission(settings, lab, sub)
    host_seconds = time.monotonic() - t0
    figure(f"flinklab grade on this host, {host.score:g}/{host.max_score:g} (s)", host_seconds)
    try:
        image = build_grader_image(["joins"]).tag
    except FlinklabError as exc:
        row("grader image", f"not measured: {exc.message}")
        return
    results = root / "grade" / "results"
    results.mkdir()
    results.chmod(0o777)
    (root / "grade" / "source").mkdir()
    (root / "grade" / "source" / "lab").write_text("joins\n")
    t0 = time.monotonic()
    source = root / "grade" / "source"
    subprocess.run(["docker", "run", "--rm", "--network", "none", "--cpus", "2", "--user", "root",
                    "-v", f"{sub}:/autograder/submission:ro", "-v", f"{source}:/autograder/source:ro",
                    "-v", f"{results}:/autograder/results", "--entrypoint", "/autograder/run_autograder", image],
                   check=False, capture_output=True)
    seconds = time.monotonic() - t0
    answer = results / "results.json"
    score = json.loads(answer.read_text())["score"] if answer.is_file() else 0
    figure(f"grader image: docker run -> results.json, score {score:g} (s)", seconds, host_seconds,
           "the same grading on this host")
    row("PrairieLearn's default timeout / its maximum", "30 s / 600 s")


def bench_notebook_section(root: Path) -> None:
    """The notebook door (scripts/notebook_bench.py, its own cluster and a real Jupyter kernel)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from notebook_bench import bench_notebook

    bench_notebook(root, figure, section)


if __name__ == "__main__":
    sys.exit(entry())
