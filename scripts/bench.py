#!/usr/bin/env python3
"""Benchmark: prints figures, asserts nothing (the machines are shared and noisy; compare ratios within one run).

    .venv/bin/python scripts/bench.py [--backend local|docker] [--labs joins windows] [--skip-per-step]

Uses its own temporary workspace, data and state dirs and a free REST port, so it never touches a running
cluster or a learner's files. Figures:
- flink-up cold (to ready) and warm (already running), flink-down;
- per lab: `flinklab run LAB --solution` wall time in one runner JVM vs the sum of the Flink job durations;
- the same steps as separate `sql-client.sh -i ddl.sql -f STEP.sql` processes (one JVM per step), and the ratio;
- resident memory of the cluster JVMs and of the runner JVM.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from flinklab.sqlclient.runner import SqlClient

from flinklab.cluster.base import read_record
from flinklab.cluster.lifecycle import bring_up
from flinklab.cluster.select import backend_for
from flinklab.labs import get_lab
from flinklab.labs.runner import run_lab
from flinklab.settings import Settings


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mib(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def java_children(pid: int) -> list[int]:
    """Java processes whose parent is `pid` (the PyFlink gateway JVM of this process)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            stat = (proc / "stat").read_text()
            cmd = (proc / "cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == pid and cmd.endswith("java"):
            found.append(int(proc.name))
    return found


def row(label: str, value: str) -> None:
    print(f"  {label:<52} {value}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", default="local", choices=["local", "docker"])
    ap.add_argument("--labs", nargs="+", default=["joins", "windows"])
    ap.add_argument("--skip-per-step", action="store_true", help="skip the one-JVM-per-step comparison")
    args = ap.parse_args()

    root = Path(tempfile.mkdtemp(prefix="flinklab-bench-"))
    settings = Settings.from_env(
        workspace_root=root / "workspace",
        data_dir=root / "data",
        state_dir=root / "state",
        rest_port=free_port(),
        backend=args.backend,
    )
    backend, reason = backend_for(settings)
    print(f"flinklab benchmark: backend {backend.name} ({reason}), {os.cpu_count()} cores, dirs under {root}")
    try:
        t0 = time.monotonic()
        bring_up(settings)  # what flink-up does: provision the data, then up
        cold = time.monotonic() - t0
        t0 = time.monotonic()
        bring_up(settings)  # what flink-up does: provision the data, then up
        warm = time.monotonic() - t0
        print("cluster")
        row("flink-up cold, to ready (s)", f"{cold:.1f}")
        row("flink-up warm, already running (s)", f"{warm:.2f}")

        print("runner")
        with SqlClient(settings) as client:
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

        for name in args.labs:
            lab = get_lab(name)
            print(f"lab {name}")
            with SqlClient(settings) as client:
                t0 = time.monotonic()
                run = run_lab(settings, lab, solution=True, client=client)
                one_jvm = time.monotonic() - t0
                runner_rss = sum(rss_mib(p) or 0 for p in java_children(os.getpid()))
            jobs = run.job_seconds or 0.0
            row("steps ok", f"{sum(s.ok for s in run.steps)}/{len(run.steps)}")
            row("run --solution, one runner JVM: wall (s)", f"{one_jvm:.1f}")
            row("sum of Flink job durations, REST API (s)", f"{jobs:.1f}  ({len(run.job_ids)} jobs)")
            row("wall / job time", f"{one_jvm / jobs:.1f}x" if jobs else "n/a")
            row("runner JVM resident memory (MiB)", f"{runner_rss:.0f}")
            if args.skip_per_step:
                continue
            workspace = settings.workspace(name)
            sql_client = shutil.which("sql-client.sh") or str(Path(sys.executable).parent / "sql-client.sh")
            t0 = time.monotonic()
            for step in lab.steps:
                for f in step.writes:
                    (workspace / f).unlink(missing_ok=True)
                cmd = [sql_client, "-f", step.sql_file]
                if step.uses_init:
                    cmd[1:1] = ["-i", lab.init_file]
                env = {**os.environ, "FLINKLAB_STATE_DIR": str(settings.state_dir)}
                with open(workspace / f"{step.id}.bench.out", "w") as out:
                    subprocess.run(cmd, cwd=workspace, stdout=out, stderr=subprocess.STDOUT, env=env, check=False)
            per_step = time.monotonic() - t0
            row("same steps, one sql-client.sh JVM per step: wall (s)", f"{per_step:.1f}")
            row("per-step JVMs / one JVM", f"{per_step / one_jvm:.2f}x")

        status = backend.status()
        print("cluster memory")
        record = read_record(settings)
        pids: dict[str, int] = {}
        if record and record.backend == "local":
            pids["jobmanager"] = record.details.jobmanager_pid
            pids.update(record.details.taskmanager_pids)
        for comp, pid in sorted(pids.items()):
            mib = rss_mib(int(pid))
            row(f"{comp} resident memory (MiB)", f"{mib:.0f}" if mib else "n/a")
        if not pids:
            row("(per-process memory)", "not available for this backend")
        row("jobs finished / failed", f"{status.jobs_finished} / {status.jobs_failed}")
    finally:
        t0 = time.monotonic()
        backend.down()
        print("cluster")
        row("flink-down (s)", f"{time.monotonic() - t0:.1f}")
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
