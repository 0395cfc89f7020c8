"""`flinklab prepare`, what scripts/install.sh runs once (issue 32, item 7): it makes what a first start would make
at the learner's expense (the cluster's and the gateway's class-data archives, the recorded JVM command lines), so
the first `flink-up` after it maps every archive and replays the recorded commands, as a cold start does; nothing
of it is left running. Its speed is the bench's (scripts/bench_cluster.py), never asserted here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.env import free_port, make_settings, settings_env

from flinklab.environment.gateway import GatewayProcess
from flinklab.flink.procs import find_processes, process_args

pytestmark = pytest.mark.live


def _script(name: str) -> str:
    return str(Path(sys.executable).with_name(name))


def _ours(state_dir: Path) -> list[int]:
    return find_processes(lambda pid: str(state_dir) in " ".join(process_args(pid) or []))


def _args(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")


def test_prepare_makes_the_first_start_a_cold_one_and_leaves_nothing_running(tmp_path: Path) -> None:
    # a cache of its own (not the session's): the gateway records its archive here, and prepare waits for it
    settings = make_settings(tmp_path, rest_port=free_port(), gateway_port=free_port(), backend="local",
                             cache_dir=tmp_path / "cache")
    env = settings_env(settings)
    local = settings.state_dir / "local"
    try:
        done = subprocess.run([_script("flinklab"), "prepare"], env=env, capture_output=True, text=True,
                              timeout=600, check=False)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        assert "prepared in" in done.stdout and "Traceback" not in done.stderr, done.stdout + done.stderr
        assert sorted(path.name.split("-")[0] for path in (local / "cds").glob("*.jsa")) == \
            ["jobmanager", "taskmanager"]
        assert not list((local / "cds").glob("*.classlist*")), sorted((local / "cds").iterdir())
        gateway_archive = list((settings.cache_dir / "cds").glob("gateway-*.jsa"))
        assert len(gateway_archive) == 1, sorted((settings.cache_dir / "cds").iterdir())
        assert {path.name for path in (local / "launch").iterdir()} == {"jobmanager.json", "taskmanager-1.json"}
        assert _ours(settings.state_dir) == [], "prepare left processes running"
        assert not (settings.state_dir / "cluster.json").exists()

        up = subprocess.run([_script("flink-up"), "--backend", "local"], env=env, capture_output=True, text=True,
                            timeout=600, check=False)
        assert up.returncode == 0, up.stdout[-3000:] + up.stderr[-3000:]
        details = json.loads((settings.state_dir / "cluster.json").read_text())["details"]
        for component, pid in (("jobmanager", details["jobmanager_pid"]),
                               ("taskmanager-1", details["taskmanager_pids"]["taskmanager-1"])):
            kind = component.split("-")[0]
            archive = next((local / "cds").glob(f"{kind}-*.jsa"))
            assert f"-XX:SharedArchiveFile={archive}" in _args(pid), component
            launch_log = (local / "log" / component / "launch.log").read_text().rstrip()
            assert launch_log.endswith(f"({local / 'launch' / component}.json)"), launch_log[-300:]  # replayed
        gateway = GatewayProcess(settings).status()
        assert gateway.healthy and gateway.pid is not None
        jvm = [pid for pid in find_processes(lambda pid: (process_args(pid) or [""])[0].endswith("java"))
               if str(settings.state_dir / "client-logs") in " ".join(process_args(pid) or [])]
        assert jvm and any(f"-XX:SharedArchiveFile={gateway_archive[0]}" in _args(pid) for pid in jvm), jvm

        again = subprocess.run([_script("flinklab"), "prepare"], env=env, capture_output=True, text=True,
                               timeout=120, check=False)
        assert again.returncode == 0 and "nothing to do" in again.stdout, again.stdout + again.stderr
        assert GatewayProcess(settings).status().healthy, "prepare stopped a running cluster's gateway"
    finally:
        subprocess.run([_script("flink-down")], env=env, capture_output=True, timeout=120, check=False)
    assert _ours(settings.state_dir) == []
