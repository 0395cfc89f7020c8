"""The local backend's first start without Flink's scripts (flinklab.cluster.launch.Composer), its archive dumps at
the lowest priority, and the start options it relies on (issue 18).

Speed is measured by scripts/bench_cluster.py, never here: these tests check that the composed command is the one
the scripts run, that it is used only for inputs it knows, and (live) that a cluster it starts works.
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest
from helpers.env import free_port, make_settings

from flinklab.cluster.launch import LaunchCache
from flinklab.cluster.local import LocalBackend, find_ours
from flinklab.flink.procs import find_processes, process_args
from flinklab.flink.waiting import Wait

#: What bash itself changes in the environment of what it execs (not the scripts' doing, read by no JVM).
_SHELL_OWN = {"SHLVL", "_", "OLDPWD"}


def _prepared(tmp_path: Path) -> LocalBackend:
    """A backend whose preflight ran and whose config.yaml is written, nothing started."""
    backend = LocalBackend(make_settings(tmp_path, rest_port=free_port(), gateway_port=0, backend="local"))
    backend.jvms.env = backend._preflight()  # noqa: SLF001 - the start's first steps, without its spawns
    backend._write_config(None)  # noqa: SLF001
    return backend


def test_composing_is_only_for_flinklabs_config_and_a_plain_environment(tmp_path: Path) -> None:
    backend = _prepared(tmp_path)
    composer = backend.jvms.composer
    config = (backend.conf_dir / "config.yaml").read_text()
    env = dict(backend.jvms.env or {})
    for key in ("JVM_ARGS", "FLINK_ENV_JAVA_OPTS", "FLINK_ENV_JAVA_OPTS_TM", "HADOOP_CLASSPATH", "YARN_CONF_DIR"):
        env.pop(key, None)
    assert composer.usable(env, config)
    lib = str(backend.home / "lib")
    assert composer.usable({**env, "FLINK_LIB_DIR": lib}, config)  # as pyflink sets it: the scripts' own
    for key in ("JVM_ARGS", "FLINK_ENV_JAVA_OPTS_TM", "HADOOP_CLASSPATH", "HBASE_CONF_DIR", "ROOT_LOG_LEVEL",
                "FLINK_LIB_DIR"):
        assert not composer.usable({**env, key: "/x"}, config), key
    assert not composer.usable(env, config + 'env.log.max: "3"\n')  # an option the scripts read themselves
    assert not composer.usable(env, config + 'env.java.home: "/opt/jdk"\n')
    assert not composer.usable(env, config.replace("--add-exports", "$HOME/--add-exports", 1))  # `eval echo`
    assert not composer.usable(env, "rest.port: 8081\n")  # not flinklab's config


def test_a_composed_command_that_failed_is_not_composed_again_for_the_same_inputs(tmp_path: Path) -> None:
    cache = LaunchCache(tmp_path / "launch")
    assert cache.may_compose("jobmanager", "k1")
    cache.composed_failed("jobmanager", "k1")
    assert not cache.may_compose("jobmanager", "k1")
    assert cache.may_compose("jobmanager", "k2")  # other inputs (a setting changed): composed again
    assert cache.may_compose("taskmanager-1", "k1")


def _wait_exec(pid: int, timeout: float = 120.0) -> None:
    """Until the script `pid` runs has exec'd the JVM (its helper JVMs are children, not `pid` itself)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        args = process_args(pid) or []
        if args and args[0].endswith("java"):
            return
        time.sleep(0.1)
    raise AssertionError(f"the script (pid {pid}) did not exec a JVM: {process_args(pid)}")


@pytest.mark.live
@pytest.mark.parametrize(("component", "script"),
                         [("jobmanager", "jobmanager.sh"), ("taskmanager-1", "taskmanager.sh")])
def test_the_composed_command_is_the_one_the_scripts_run(tmp_path: Path, component: str, script: str) -> None:
    """Argv, added variables and output files: what Composer builds is what `script start-foreground` execs for
    the same config and environment (its class-list option included: a first start's)."""
    backend = _prepared(tmp_path)
    jvms = backend.jvms
    env, config, key = jvms.inputs(component)
    assert jvms.composer.usable(jvms.env or {}, config)
    composed = jvms.composer.compose(script, env, jvms.log_dir / component, jvms.local_dir)
    jvms.composer.close()
    assert composed is not None
    assert any(a.startswith("-XX:DumpLoadedClassList=") for a in composed.argv), composed.argv
    jvms.launches.composed_failed(component, key)  # so that this spawn runs the script
    proc = jvms.spawn(component, script)
    try:
        _wait_exec(proc.pid)
        assert jvms.launches.record(component, key, proc.pid, env)
        recorded = jvms.launches.get(component, key)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert recorded is not None
    assert recorded.argv == composed.argv
    scripts_env = {k: v for k, v in recorded.env.items() if k not in _SHELL_OWN}
    assert scripts_env == composed.env
    assert (recorded.out, recorded.err) == (composed.out, composed.err)


def _dumps(conf_dir: Path) -> list[int]:
    """The running `java -Xshare:dump` of this cluster's archives."""
    cds = str(conf_dir.parent / "cds")
    return find_processes(lambda pid: "-Xshare:dump" in (args := process_args(pid) or [])
                          and any(cds in a for a in args) and args[0].endswith("java"))


@pytest.mark.live
def test_a_first_start_is_composed_and_dumps_its_archives_at_the_lowest_priority_once_ready(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, rest_port=free_port(), gateway_port=0, backend="local", slots=2,
                             taskmanagers=2)
    local = settings.state_dir / "local"
    backend = LocalBackend(settings)
    try:
        result = backend.up()
        assert result.status.slots_total == 4 and result.status.problems == []
        # each dumper waits until its JVM's class list stops growing (LIST_QUIET s without a new class), then dumps
        # at the lowest priority: seconds of work, seen here while it runs
        dumping = Wait("the archives' dumps to begin", 120, 0.05).poll(lambda: _dumps(local / "conf") or None)
        for component in ("jobmanager", "taskmanager-1", "taskmanager-2"):
            launch_log = (local / "log" / component / "launch.log").read_text()
            assert "computes (its memory flags from BashJavaUtils)" in launch_log, launch_log[-500:]
            text = next((local / "log" / component).glob("*.log")).read_text()
            assert " ERROR " not in text, component
            # started together, a TaskManager may ask before the ResourceManager is up: then again 200 ms later
            assert "retrying in 10000 ms" not in text, component
        config = (local / "conf" / "config.yaml").read_text()
        assert 'cluster.registration.error-delay: "200ms"' in config
        assert dumping, sorted((local / "cds").iterdir())
        for pid in dumping:
            assert os.getpriority(os.PRIO_PROCESS, pid) == 19  # nice
            ioprio = os.popen(f"ionice -p {pid}").read()
            assert ioprio.startswith("idle"), ioprio
        # both TaskManagers have the memory flags of one helper JVM (each TaskManager's are the same)
        details = json.loads((settings.state_dir / "cluster.json").read_text())["details"]
        flags = [[a for a in process_args(pid) or [] if a.startswith(("-Xm", "-XX:Max"))]
                 for pid in details["taskmanager_pids"].values()]
        assert len(flags) == 2 and flags[0] == flags[1] and flags[0], flags
        assert (local / "launch" / "taskmanager-2.json").is_file()  # recorded: the next such start replays it
        # Flink's RPC system comes from the class path (flinklab.cluster.local_rpc), extracted once into the cache
        # dir, not copied out of flink-dist into each JVM's tmp dir under a new name
        rpc = settings.cache_dir / "rpc"
        for pid in [details["jobmanager_pid"], *details["taskmanager_pids"].values()]:
            args = process_args(pid) or []
            classpath = args[args.index("-classpath") + 1].split(":")
            assert [p for p in classpath if p.startswith(f"{rpc}/")] == \
                [str(p) for p in sorted(rpc.glob("*/*.jar"), key=lambda p: p.name != "flinklab-rpc-loader.jar")]
        assert not list((local / "tmp").rglob("flink-rpc-akka*.jar"))
        assert len(list(rpc.glob("*/flink-rpc-akka.jar"))) == 1
    finally:
        backend.down()
    assert find_ours(local / "conf") == []

