"""The cluster's figures for scripts/bench.py (issue 12): `flink-up` to ready beside the distribution's own start,
and the resident memory of every JVM (JobManager, TaskManagers, the SQL gateway's).

Each figure is printed beside its floor, measured in the same run, with the ratio; values go into `figures` for
JSON. The floor is Flink's own `bin/jobmanager.sh start` + `bin/taskmanager.sh start` (the PyPI distribution,
one after the other as `start-cluster.sh` does) with a FLINK_CONF_DIR holding the config.yaml flinklab writes,
timed to the readiness flinklab waits for: REST /overview shows every TaskManager and its slots.

Standalone: `.venv/bin/python scripts/bench_cluster.py [--rounds N] [--lab joins] [--json FILE]`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from flinklab.cluster.local import LocalBackend, flink_home
from flinklab.flink.java import find_java, java_env
from flinklab.flink.procs import find_processes, process_args
from flinklab.flink.waiting import Wait
from flinklab.settings import QUICK_JIT, Settings

Row = Callable[[str, str], None]
POLL = 0.05  # seconds between readiness polls while timing (finer than flinklab's, so the floor is not rounded up)
TIMEOUT = 180.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def bench_settings(root: Path, gateway: bool = False) -> Settings:
    """Settings under `root` with free ports (the gateway's only when asked for), the local backend."""
    return Settings.from_env(workspace_root=root / "workspace", data_dir=root / "data", state_dir=root / "state",
                             cache_dir=root / "cache", rest_port=free_port(),
                             gateway_port=free_port() if gateway else 0, backend="local")


def env_of(settings: Settings) -> dict[str, str]:
    """The environment a `flink-up`/`flinklab` subprocess needs to act on `settings`' cluster."""
    return {**os.environ, "FLINKLAB_STATE_DIR": str(settings.state_dir),
            "FLINKLAB_REST_PORT": str(settings.rest_port), "FLINKLAB_GATEWAY_PORT": str(settings.gateway_port),
            "FLINKLAB_WORKSPACE": str(settings.workspace_root), "FLINKLAB_DATA_DIR": str(settings.data_dir),
            "FLINKLAB_CACHE_DIR": str(settings.cache_dir), "FLINKLAB_BACKEND": "local"}


def script(name: str) -> str:
    """A console script of this environment (flink-up, flink-down, flinklab)."""
    return str(Path(sys.executable).with_name(name))


def cluster_ready(rest_url: str, taskmanagers: int, slots: int) -> bool:
    """What flinklab waits for: /overview answers with every TaskManager and all its slots registered and free."""
    try:
        ov = httpx.get(f"{rest_url}/overview", timeout=2.0).json()
    except (httpx.HTTPError, ValueError):
        return False
    want = taskmanagers * slots
    return ov.get("taskmanagers", 0) >= taskmanagers and ov.get("slots-available", 0) >= want


def wait_ready(rest_url: str, taskmanagers: int, slots: int, started: float) -> float:
    while not cluster_ready(rest_url, taskmanagers, slots):
        if time.monotonic() - started > TIMEOUT:
            raise RuntimeError(f"no cluster ready at {rest_url} after {TIMEOUT:.0f}s")
        time.sleep(POLL)
    return time.monotonic() - started


# ------------------------------------------------------------------------------------------- the floor


def distribution_start(root: Path) -> tuple[float, float]:
    """Seconds from `jobmanager.sh start` to ready, and from `taskmanager.sh stop` + `jobmanager.sh stop` to their
    JVMs gone: the distribution's own start and stop, with the config.yaml flinklab writes, minus flinklab's JVM
    tuning (its class-data-sharing options and its quick JIT, settings.QUICK_JIT: the distribution has neither)."""
    settings = bench_settings(root)
    backend = LocalBackend(settings)
    backend._write_config(None)  # noqa: SLF001 - exactly the config flinklab writes, in a dir of our own
    conf = root / "dist-conf"
    shutil.copytree(backend.conf_dir, conf)
    config = conf / "config.yaml"
    config.write_text(config.read_text().replace(f" {QUICK_JIT}", ""))
    home = flink_home()
    env = {**java_env(find_java()[0]), "FLINK_CONF_DIR": str(conf), "FLINK_LOG_DIR": str(root / "dist-log"),
           "FLINK_PID_DIR": str(root / "dist-pid")}
    (root / "dist-log").mkdir(parents=True)  # the daemon script writes its .out there but does not create it
    for key in ("FLINK_ENV_JAVA_OPTS", "FLINK_ENV_JAVA_OPTS_JM", "FLINK_ENV_JAVA_OPTS_TM", "JVM_ARGS"):
        env.pop(key, None)
    started = time.monotonic()
    try:
        for name in ("jobmanager.sh", "taskmanager.sh"):
            subprocess.run(["bash", str(home / "bin" / name), "start"], env=env, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        ready = wait_ready(settings.rest_url, settings.taskmanagers, settings.slots, started)
    finally:
        jvms = find_processes(lambda pid: str(conf) in " ".join(process_args(pid) or []))
        stopping = time.monotonic()
        for name in ("taskmanager.sh", "jobmanager.sh"):
            subprocess.run(["bash", str(home / "bin" / name), "stop"], env=env, check=False,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        Wait("the distribution's JVMs to exit", 60, 0.05).poll(lambda: not any(process_args(p) for p in jvms))
        stopped = time.monotonic() - stopping
        _wait_port_free(settings.rest_port)
    return ready, stopped


def _wait_port_free(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) != 0:
                return
        time.sleep(0.2)


# ------------------------------------------------------------------------------------------- flink-up


def flink_up(settings: Settings) -> float:
    """Seconds `flink-up --backend local` takes, as a learner runs it (a new Python process, to its exit)."""
    started = time.monotonic()
    done = subprocess.run([script("flink-up"), "--backend", "local"], env=env_of(settings), capture_output=True,
                          text=True, check=False)
    seconds = time.monotonic() - started
    if done.returncode != 0:
        raise RuntimeError(f"flink-up failed: {done.stdout[-800:]} {done.stderr[-800:]}")
    return seconds


def prepare(settings: Settings) -> float:
    """Seconds `flinklab prepare` takes (what scripts/install.sh runs once: the archives and recorded commands)."""
    started = time.monotonic()
    done = subprocess.run([script("flinklab"), "prepare"], env=env_of(settings), capture_output=True, text=True,
                          check=False)
    seconds = time.monotonic() - started
    if done.returncode != 0:
        raise RuntimeError(f"flinklab prepare failed: {done.stdout[-800:]} {done.stderr[-800:]}")
    return seconds


def wait_for_dumps(settings: Settings, timeout: float = 600.0) -> float:
    """Seconds until the archives the first start began are made (none: 0): the cluster's (its dumpers wait until
    its class lists stop growing), and the gateway's (it dumps once warm and quiet), as they are while a learner
    works; a flink-down before ends them, and the next start records again."""
    cds = settings.state_dir / "local" / "cds"
    gateway_cds = settings.cache_dir / "cds"
    recording = settings.gateway_port and not list(gateway_cds.glob("gateway-*.jsa"))

    def made() -> bool:
        cluster = not list(cds.glob("*.classlist.dump"))
        return cluster and (not recording or bool(list(gateway_cds.glob("gateway-*.jsa"))))

    started = time.monotonic()
    Wait("the class-data archives", timeout, 0.5).poll(made)
    return time.monotonic() - started


def ours_left(settings: Settings) -> int:
    """Processes whose command line names the state dir (JVMs, the gateway, an archive dumper): none after
    flink-down (each one left is printed)."""
    left = find_processes(lambda pid: str(settings.state_dir) in " ".join(process_args(pid) or []))
    for pid in left:
        print(f"    left after flink-down: {pid} {' '.join(process_args(pid) or [])[:200]}", flush=True)
    return len(left)


def flink_down(settings: Settings, left: list[int] | None = None) -> float:
    """Seconds `flink-down` takes, as a learner runs it; what it left running goes into `left`."""
    started = time.monotonic()
    subprocess.run([script("flink-down")], env=env_of(settings), capture_output=True, check=False)
    seconds = time.monotonic() - started
    if left is not None:
        left.append(ours_left(settings))
    return seconds


def flink_up_vs_distribution(row: Row, figures: dict, rounds: int = 3) -> None:
    """`flink-up` beside the distribution's start, each round in the same minute: the first start in a new state
    dir (no class-data-sharing archive, no recorded command: the scripts run and the JVMs list their classes, dumped
    into archives in the background once ready, waited for here before the next start), the second (maps the
    archives; the scripts run once more and are recorded), then a cold start (cluster stopped, archives and
    recorded commands there: what every later `flink-up` is; flinklab.cluster.local_cds, .launch). All without the SQL
    gateway (`flink-up` to its exit: the backend's start and the CLI around it), then the first and a cold start
    with it (`flink-up` waits for both; the gateway's JVM starts beside the cluster's), and the first start after
    install.sh's `flinklab prepare` (which made the archives and recorded the commands: a fresh install's first
    flink-up). Medians of `rounds`."""
    root = Path(tempfile.mkdtemp(prefix="flinklab-bench-cluster-"))
    runs: dict[str, list[float]] = {key: [] for key in (
        "dist", "dist_stop", "first", "second", "cold", "first_gw", "cold_gw", "dumps", "down", "down_first",
        "down_gw", "down_first_gw", "prepare", "installed_gw")}
    left: list[int] = []
    started: list[Settings] = []
    try:
        for i in range(rounds):
            start, stop = distribution_start(root / f"dist{i}")
            runs["dist"].append(start)
            runs["dist_stop"].append(stop)
            plain = bench_settings(root / f"plain{i}")
            started.append(plain)
            runs["first"].append(flink_up(plain))
            runs["dumps"].append(wait_for_dumps(plain))
            runs["down_first"].append(flink_down(plain, left))
            runs["second"].append(flink_up(plain))
            flink_down(plain)
            runs["cold"].append(flink_up(plain))
            runs["down"].append(flink_down(plain, left))
            with_gw = bench_settings(root / f"gateway{i}", gateway=True)
            started.append(with_gw)
            runs["first_gw"].append(flink_up(with_gw))
            wait_for_dumps(with_gw)
            runs["down_first_gw"].append(flink_down(with_gw, left))
            flink_up(with_gw)
            flink_down(with_gw)
            runs["cold_gw"].append(flink_up(with_gw))
            runs["down_gw"].append(flink_down(with_gw, left))
            installed = bench_settings(root / f"installed{i}", gateway=True)  # a fresh install: install.sh's step
            started.append(installed)
            runs["prepare"].append(prepare(installed))
            runs["installed_gw"].append(flink_up(installed))
            flink_down(installed, left)
    finally:
        for settings in started:
            flink_down(settings)
        shutil.rmtree(root, ignore_errors=True)
    med = {key: statistics.median(values) for key, values in runs.items()}
    floor = med["dist"]
    figures.update(
        dist_start_s=floor, dist_start_runs_s=runs["dist"], flink_up_first_s=med["first"],
        flink_up_first_runs_s=runs["first"], flink_up_second_s=med["second"], cds_dump_s=med["dumps"],
        flink_up_cold_s=med["cold"], flink_up_cold_runs_s=runs["cold"],
        flink_up_first_gateway_s=med["first_gw"], flink_up_first_gateway_runs_s=runs["first_gw"],
        flink_up_cold_gateway_s=med["cold_gw"], flink_up_cold_gateway_runs_s=runs["cold_gw"],
        prepare_s=med["prepare"], flink_up_installed_gateway_s=med["installed_gw"],
        flink_up_installed_gateway_runs_s=runs["installed_gw"],
        flink_down_s=med["down"], flink_down_first_s=med["down_first"],
    )
    row(f"floor: jobmanager.sh + taskmanager.sh start, to ready (s, median of {rounds})",
        f"{floor:.1f}  (runs {_runs(runs['dist'])})")
    for label, key, target in (
            ("flink-up first start in a new state dir, no gateway (s)", "first", 1.0),
            ("flink-up second start, no gateway (s)", "second", None),
            ("flink-up cold start, no gateway (s)", "cold", 0.8),
            ("flink-up first start in a new state dir, no `flinklab prepare`, with the SQL gateway (s)", "first_gw",
             None),
            ("flink-up first start after install.sh (its `flinklab prepare`), with the SQL gateway (s)",
             "installed_gw", 1.1),
            ("flink-up cold start, with the SQL gateway (s)", "cold_gw", 0.8)):
        ratio = f"{med[key] / floor:.2f}x the floor" + (f"; target <= {target}x" if target else "")
        row(label, f"{med[key]:.1f}  ({ratio}; runs {_runs(runs[key])})")
    stop_floor = med["dist_stop"]
    figures.update(dist_stop_s=stop_floor, flink_down_gateway_s=med["down_gw"],
                   flink_down_first_gateway_s=med["down_first_gw"], left_after_flink_down=max(left, default=0))
    row(f"floor: taskmanager.sh + jobmanager.sh stop, to JVMs gone (s, median of {rounds})",
        f"{stop_floor:.1f}  (runs {_runs(runs['dist_stop'])})")
    for label, key in (("flink-down after a cold start, no gateway (s)", "down"),
                       ("flink-down after a first start, no gateway (s)", "down_first"),
                       ("flink-down after a cold start, with the SQL gateway (s)", "down_gw"),
                       ("flink-down after a first start, with the SQL gateway (s)", "down_first_gw")):
        row(label, f"{med[key]:.1f}  ({med[key] / stop_floor:.2f}x the floor; target <= 1.5x; runs "
                   f"{_runs(runs[key])})")
    row("processes of ours left after any flink-down (target 0)", str(max(left, default=0)))
    row("class-data-sharing archives dumped after the first start (s, background)", f"{med['dumps']:.1f}")
    row("install.sh's `flinklab prepare`, once per machine (s)", f"{med['prepare']:.1f}  (runs "
        f"{_runs(runs['prepare'])})")


def _runs(values: list[float]) -> str:
    return " ".join(f"{v:.1f}" for v in values)


# ------------------------------------------------------------------------------------------- memory


def rss_mib(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def java_children(pid: int) -> list[int]:
    """The java processes whose parent is `pid` (the gateway process's JVM)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            exe = (proc / "cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
        except (OSError, ValueError, IndexError):
            continue
        if ppid == pid and exe.endswith("java"):
            found.append(int(proc.name))
    return found


def cluster_jvms(settings: Settings) -> dict[str, int]:
    """The local cluster's JVMs by role (found by the config dir in their arguments, as `flink-down` finds them)."""
    from flinklab.cluster.local import find_ours
    from flinklab.flink.procs import process_args

    found: dict[str, int] = {}
    tms = 0
    for pid in sorted(find_ours(settings.state_dir / "local" / "conf")):
        args = " ".join(process_args(pid) or [])
        if "StandaloneSessionClusterEntrypoint" in args:
            found["jobmanager"] = pid
        elif "TaskManagerRunner" in args:
            tms += 1
            found[f"taskmanager-{tms}"] = pid
    return found


def jvm_memory(settings: Settings, row: Row, figures: dict, label: str = "") -> None:
    """Resident memory (VmRSS) of the JobManager, each TaskManager and the gateway's JVM, beside the target."""
    from flinklab.environment import gateway

    pids = cluster_jvms(settings)
    gw = gateway.running_pid(settings)
    if gw is not None:
        for i, child in enumerate(java_children(gw)):
            pids["gateway JVM" + (f" {i + 1}" if i else "")] = child
    for name, pid in pids.items():
        mib = rss_mib(pid)
        figures[f"rss_{name.replace(' ', '_')}{label.replace(' ', '_')}_mib"] = mib
        row(f"{name} resident memory{label} (MiB; target <= 700)", f"{mib:.0f}")
    if not pids:
        row("(per-process memory)", "not available for this backend")


def memory_after_lab(row: Row, figures: dict, lab: str = "joins") -> None:
    """Up with the gateway, `flinklab run LAB --solution` + `flinklab check LAB`, then every JVM's memory."""
    root = Path(tempfile.mkdtemp(prefix="flinklab-bench-memory-"))
    settings = bench_settings(root, gateway=True)
    try:
        flink_up(settings)
        started = time.monotonic()
        run = subprocess.run([script("flinklab"), "run", lab, "--solution"], env=env_of(settings),
                             capture_output=True, text=True, check=False)
        figures[f"{lab}_run_cli_s"] = time.monotonic() - started
        check = subprocess.run([script("flinklab"), "check", lab], env=env_of(settings), capture_output=True,
                               text=True, check=False)
        figures[f"{lab}_check_exit"] = check.returncode
        row(f"flinklab run {lab} --solution; check (exit codes)", f"{run.returncode}; {check.returncode}")
        jvm_memory(settings, row, figures, label=f" after {lab}")
    finally:
        flink_down(settings)
        shutil.rmtree(root, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--lab", default="joins")
    ap.add_argument("--skip-memory", action="store_true")
    ap.add_argument("--skip-start", action="store_true")
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args()

    def row(label: str, value: str) -> None:
        print(f"  {label:<66} {value}", flush=True)

    figures: dict = {"cores": os.cpu_count(), "loadavg": os.getloadavg()[0]}
    print(f"flinklab cluster benchmark: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    if not args.skip_start:
        print("cluster start")
        flink_up_vs_distribution(row, figures, rounds=args.rounds)
    if not args.skip_memory:
        print("memory")
        memory_after_lab(row, figures, lab=args.lab)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
