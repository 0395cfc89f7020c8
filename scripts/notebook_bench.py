#!/usr/bin/env python3
"""Benchmark of the notebook door (issue 30); prints figures, asserts nothing.

    .venv/bin/python scripts/notebook_bench.py         # its own cluster, on free ports and temporary dirs

Called by scripts/bench.py as its `notebook` section; standalone it prints the same lines. A real Jupyter kernel
(ipykernel, started by jupyter_client) runs the cells. Figures:
- the same bounded statements as a `%%flink` cell (execute to idle, the kernel's session warm) and as a warm
  `sql-client.sh -f` call (process start included), each beside its Flink job's duration (REST): the cell must
  cost no more over its job than the call;
- a source of 1,000 changes a second in a `--display append` and a `--display update` cell (`--max-rows 1000`,
  the default refresh): the kernel's CPU (target: under half a core) and its resident memory at 10, 20 and 30 s
  (target: flat once `--max-rows` is reached), the redraws the kernel sent beside the changes it received.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

Figure = Callable[..., None]

BOUNDED = ("CREATE TEMPORARY TABLE IF NOT EXISTS nums (n BIGINT) WITH ('connector' = 'datagen', "
           "'number-of-rows' = '20000', 'fields.n.kind' = 'sequence', "
           "'fields.n.start' = '1', 'fields.n.end' = '20000');\n"
           "SELECT COUNT(*) AS c, SUM(n) AS s FROM nums;\n")
# random ids: a datagen `sequence` keeps its whole range in memory (a long one fails its job with OutOfMemoryError)
FAST_SOURCE = ("SET 'execution.runtime-mode' = 'streaming';\n"
               "CREATE TEMPORARY TABLE IF NOT EXISTS ticks (id BIGINT, v INT) WITH ('connector' = 'datagen', "
               "'rows-per-second' = '1000', 'fields.id.min' = '1', 'fields.id.max' = '1000000000');\n")
STREAMS = {
    "append": "SELECT id, v FROM ticks",
    "update": "SELECT id % 100000 AS k, COUNT(*) AS n, MAX(v) AS top FROM ticks GROUP BY id % 100000",
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _print_figure(label: str, seconds: float, floor: float | None = None, floor_label: str = "floor") -> None:
    text = f"{seconds * 1000:8.1f} ms"
    if floor is not None:
        text += f"  ({seconds - floor:+.3f} s over {floor_label})"
    print(f"  {label:<52} {text}")


def _newest_job_seconds(rest_url: str) -> float:
    from flinklab.flink.rest import FlinkRest

    jobs = FlinkRest(rest_url).get("/jobs/overview")["jobs"]
    newest = max(jobs, key=lambda j: j["start-time"])
    return newest["duration"] / 1000


def _run(kc, code: str, timeout: float = 300) -> list[dict]:
    msg_id = kc.execute(code)
    seen = []
    while True:
        msg = kc.get_iopub_msg(timeout=timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        seen.append(msg)
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            kc.get_shell_msg(timeout=timeout)
            return seen


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def cell_vs_file(kc, env: dict[str, str], rest_url: str, base: Path, runs: int = 5) -> dict[str, list[float]]:
    """Walls and job durations of the bounded statements as a cell and as `sql-client.sh -f` (after one of each)."""
    script = base / "bounded.sql"
    script.write_text("SET 'sql-client.execution.result-mode' = 'tableau';\n"
                      "SET 'execution.runtime-mode' = 'batch';\n" + BOUNDED)
    _run(kc, "%%flink\nSET 'execution.runtime-mode' = 'batch';")
    client = shutil.which("sql-client.sh", path=env["PATH"]) or "sql-client.sh"
    out: dict[str, list[float]] = {"cell": [], "cell job": [], "file": [], "file job": []}
    for i in range(runs + 1):
        t0 = time.perf_counter()
        seen = _run(kc, "%%flink --as r\n" + BOUNDED)
        cell = time.perf_counter() - t0
        printed = "".join(m["content"]["text"] for m in seen if m["msg_type"] == "stream")
        if "[ERROR]" in printed:
            raise RuntimeError(printed)
        cell_job = _newest_job_seconds(rest_url)
        t0 = time.perf_counter()
        subprocess.run([client, "-f", str(script)], env=env, stdout=subprocess.DEVNULL, check=True)
        file = time.perf_counter() - t0
        file_job = _newest_job_seconds(rest_url)
        if i:  # the first of each warms up
            out["cell"].append(cell)
            out["cell job"].append(cell_job)
            out["file"].append(file)
            out["file job"].append(file_job)
    return out


def fast_source(km, kc, display: str, seconds: int = 30) -> tuple[float, list[float], int, int]:
    """Kernel CPU (cores, from 10 s to the end), RSS (MB) at 10, 20, 30 s, redraws sent and changes received."""
    pid = km.provisioner.process.pid
    msg_id = kc.execute(f"%%flink --display {display} --max-rows 1000\n{FAST_SOURCE}{STREAMS[display]}")
    started = time.monotonic()
    marks = {10: None, 20: None, 30: None}
    rss: list[float] = []
    cpu0 = 0.0
    redraws = 0
    received = 0
    while time.monotonic() - started < seconds:
        try:
            msg = kc.get_iopub_msg(timeout=0.2)
        except Exception:  # noqa: BLE001 - queue.Empty: nothing this moment
            msg = None
        if msg is not None and msg["parent_header"].get("msg_id") == msg_id and \
                msg["msg_type"] in ("display_data", "update_display_data"):
            redraws += 1
            found = re.search(r"received (\d+) rows", msg["content"]["data"].get("text/plain", ""))
            received = int(found.group(1)) if found else received
        elapsed = time.monotonic() - started
        for mark in marks:
            if marks[mark] is None and elapsed >= mark:
                marks[mark] = elapsed
                rss.append(_rss_mb(pid))
                if mark == 10:
                    cpu0 = _cpu_seconds(pid)
        if msg is not None and msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "stream" and \
                "[ERROR]" in msg["content"]["text"]:
            print(f"  ({display} cell printed: {msg['content']['text'].strip()})")
        if msg is not None and msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "status" and \
                msg["content"]["execution_state"] == "idle":
            kc.get_shell_msg(timeout=60)
            return 0.0, rss, redraws, received  # the cell ended on its own (a failed job): no figure
    cpu = (_cpu_seconds(pid) - cpu0) / (time.monotonic() - started - 10)
    if len(rss) < 3:
        rss.append(_rss_mb(pid))
    km.interrupt_kernel()
    while True:
        msg = kc.get_iopub_msg(timeout=60)
        if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "status" and \
                msg["content"]["execution_state"] == "idle":
            kc.get_shell_msg(timeout=60)
            break
    return cpu, rss, redraws, received


def bench_notebook(root: Path, figure: Figure = _print_figure, section: Callable[[str], None] = print) -> None:
    """Bring up a cluster of its own under `root`, print the notebook's figures, bring it down."""
    from jupyter_client.manager import start_new_kernel

    from flinklab.settings import Settings
    from flinklab.usecases.cluster import bring_down, bring_up
    from flinklab.usecases.provision import lab_data_files

    section("The notebook (issue 30)")
    base = root / "notebook"
    for sub in ("ws", "data", "state", "home", "jupyter"):
        (base / sub).mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "FLINKLAB_WORKSPACE": str(base / "ws"), "FLINKLAB_DATA_DIR": str(base / "data"),
           "FLINKLAB_STATE_DIR": str(base / "state"), "FLINKLAB_REST_PORT": str(_free_port()),
           "FLINKLAB_GATEWAY_PORT": str(_free_port()), "FLINKLAB_BACKEND": "local", "HOME": str(base / "home"),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "JUPYTER_RUNTIME_DIR": str(base / "jupyter"), "IPYTHONDIR": str(base / "jupyter" / "ipython")}
    os.environ["JUPYTER_RUNTIME_DIR"] = env["JUPYTER_RUNTIME_DIR"]  # the connection file this process writes
    settings = Settings.from_env(env)
    bring_up(settings, data_files=lab_data_files())
    km = kc = None
    try:
        km, kc = start_new_kernel(kernel_name="python3", env=env)
        _run(kc, "%load_ext flinklab.notebook\n%flink_connect")
        rest_url = settings.rest_url
        times = cell_vs_file(kc, env, rest_url, base)
        cell, cell_job = statistics.median(times["cell"]), statistics.median(times["cell job"])
        file, file_job = statistics.median(times["file"]), statistics.median(times["file job"])
        figure("warm sql-client.sh -f, 2 statements, median", file, file_job, "its job")
        figure("  the same as a %%flink cell, median (target: no more over its job)", cell, cell_job, "its job")
        for display in STREAMS:
            cpu, rss, redraws, received = fast_source(km, kc, display)
            print(f"  {'1,000 changes/s, --display ' + display + ': kernel CPU':<52} {cpu:8.2f} cores "
                  "(target < 0.5)")
            print(f"  {'  kernel RSS at 10 / 20 / 30 s (MB)':<52} " + " / ".join(f"{m:.0f}" for m in rss)
                  + " (target: flat)")
            print(f"  {'  redraws sent / changes received':<52} {redraws} / {received}")
    finally:
        if kc is not None:
            kc.stop_channels()
        if km is not None:
            km.shutdown_kernel(now=True)
        bring_down(settings)


def main() -> int:
    root = Path(tempfile.mkdtemp(prefix="flinklab-notebook-bench-"))
    try:
        bench_notebook(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
