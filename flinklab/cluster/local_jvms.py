"""The local cluster's JVMs: which processes are ours, launching one through Flink's scripts (or the command they
computed before, flinklab.cluster.launch) with its class-data-sharing options (flinklab.cluster.local_cds), and killing
what a failed start spawned. See flinklab/cluster/local.py for why the scripts run in the foreground."""

from __future__ import annotations

import os
import signal
import subprocess
from functools import cached_property
from pathlib import Path

from flinklab.cluster.base import tm_name
from flinklab.cluster.launch import Composer, Launch, LaunchCache, launch_key
from flinklab.cluster.local_cds import archive_path, cds_options, start_dump, stop_dumps
from flinklab.cluster.local_config import flink_home
from flinklab.cluster.local_rpc import rpc_classpath
from flinklab.flink.java import find_java, java_env
from flinklab.flink.procs import find_processes, process_args, stop_processes
from flinklab.flink.readiness import JOBMANAGER, TASKMANAGER

STOP_TIMEOUT = 30.0  # seconds a JVM gets to exit on SIGTERM before SIGKILL
IDENT = "flinklab"  # FLINK_IDENT_STRING: names the scripts' pid and log files


def is_ours(pid: int | None, conf_dir: Path) -> bool:
    """Whether `pid` is alive and one of our cluster's JVMs (`... --configDir CONF_DIR ...`, as Flink's scripts
    launch them). A process that merely names the config dir (`tail -f conf/config.yaml`, an editor) is not."""
    if not pid:
        return False
    args = process_args(pid) or []
    return any(a == "--configDir" and b == str(conf_dir) for a, b in zip(args, args[1:]))


def find_ours(conf_dir: Path) -> list[int]:
    """Every live process whose arguments name `conf_dir` (strays a crashed `up` may have left)."""
    return find_processes(lambda pid: is_ours(pid, conf_dir))


def stop_ours(pids: list[int], conf_dir: Path, timeout: float = STOP_TIMEOUT) -> list[int]:
    """SIGTERM each pid that is still ours, wait, SIGKILL what is left; return the pids that were stopped."""
    return stop_processes(pids, lambda pid: is_ours(pid, conf_dir), timeout)


class Jvms:
    """The JVMs one backend object launches under `local_dir` (conf/, log/<component>/, pid/<component>/)."""

    def __init__(self, local_dir: Path, rpc_dir: Path | None = None):
        self.local_dir = local_dir
        #: where the RPC system's jar is extracted for the class path (flinklab.cluster.local_rpc); None: Flink's way
        self.rpc_dir = rpc_dir
        self.conf_dir = local_dir / "conf"
        self.log_dir = local_dir / "log"
        self.pid_dir = local_dir / "pid"
        self.procs: dict[str, subprocess.Popen] = {}
        self.env: dict[str, str] | None = None  # the scripts' environment, set by preflight (or a repair)
        self._home: Path | None = None  # flink_home(), resolved once
        self.java: tuple[str, int] | None = None  # (java, major version), checked once
        self.launches = LaunchCache(local_dir / "launch")  # the scripts' commands (flinklab.cluster.launch)
        # component -> (key, env, how: "scripts", "replayed" (a recorded command) or "composed" (Composer's))
        self.launching: dict[str, tuple[str, dict[str, str], str]] = {}
        self._composer: Composer | None = None

    @property
    def home(self) -> Path:
        """The Flink distribution (flink_home()), resolved once per backend."""
        if self._home is None:
            self._home = flink_home()
        return self._home

    def kill_spawned(self) -> None:
        """Kill every JVM this backend spawned (after a failed start or repair), nothing else."""
        for proc in self.procs.values():
            if proc.poll() is None:
                try:
                    # The whole session: the script may not have exec'd the JVM yet (BashJavaUtils still running).
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        for proc in self.procs.values():
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass

    def inputs(self, component: str) -> tuple[dict[str, str], str, str]:
        """The scripts' environment for `component`, the config they read and the key of both."""
        if self.env is None or self.java is None:  # a repair: no full preflight (its ports are in use by design)
            self.java = find_java()
            self.env = java_env(self.java[0])
        env = {
            **self.env,
            "FLINK_HOME": str(self.home),
            "FLINK_CONF_DIR": str(self.conf_dir),
            "FLINK_LOG_DIR": str(self.log_dir / component),
            "FLINK_PID_DIR": str(self.pid_dir / component),
            "FLINK_IDENT_STRING": IDENT,
            "STD_REDIRECT_TO_FILE": "true",  # the JVM's stdout/stderr go to .out/.err next to its log
            **self.rpc_env(),
            **self.cds_env(component),
        }
        try:
            config_text = (self.conf_dir / "config.yaml").read_text()
        except OSError:
            config_text = ""
        return env, config_text, launch_key(component, config_text, env, self.java[0], self.home)

    @property
    def composer(self) -> Composer:
        if self._composer is None:
            assert self.java is not None
            self._composer = Composer(self.home, self.conf_dir, self.java[1])
        return self._composer

    def _composing(self, component: str, config_text: str, key: str) -> bool:
        """Whether `component` is launched from Composer's command (no recorded one; inputs Composer knows)."""
        assert self.env is not None
        return (self.launches.get(component, key) is None and self.launches.may_compose(component, key)
                and self.composer.usable(self.env, config_text))

    def prepare(self, components: dict[str, str]) -> None:
        """Before spawning `components` (component -> script): start, all at once, the helper JVMs of those
        whose command will be composed, so that none waits for another's."""
        for component, script in components.items():
            env, config_text, key = self.inputs(component)
            if self._composing(component, config_text, key):
                self.composer.start_params(script, env)

    def spawn(self, component: str, script: str) -> subprocess.Popen:
        """Launch one JVM detached into its own session: the command recorded for the same inputs, else the one
        Composer builds, else through Flink's script in the foreground mode."""
        env, config_text, key = self.inputs(component)
        log_dir = self.log_dir / component
        log_dir.mkdir(parents=True, exist_ok=True)
        (self.pid_dir / component).mkdir(parents=True, exist_ok=True)
        launch: Launch | None = self.launches.get(component, key)
        how = "replayed" if launch is not None else "scripts"
        if launch is None and self._composing(component, config_text, key):
            launch = self.composer.compose(script, env, log_dir, self.local_dir)
            how = "composed" if launch is not None else "scripts"
        with open(log_dir / "launch.log", "ab") as launch_log:
            if launch is None:
                proc = subprocess.Popen(
                    ["bash", str(self.home / "bin" / script), "start-foreground"],
                    env=env, cwd=str(self.local_dir), stdin=subprocess.DEVNULL, stdout=launch_log,
                    stderr=subprocess.STDOUT, start_new_session=True,
                )
            else:  # the scripts' command without their helper JVMs: recorded last time, or composed now
                why = (f"the command {script} computed before ({self.launches.directory / component}.json)"
                       if how == "replayed" else f"the command {script} computes (its memory flags from BashJavaUtils)")
                launch_log.write(f"flinklab: running {why}\n".encode())
                with open(launch.out, "wb") as out, open(launch.err, "wb") as err:
                    proc = subprocess.Popen(
                        launch.argv, env={**env, **launch.env}, cwd=str(self.local_dir), stdin=subprocess.DEVNULL,
                        stdout=out, stderr=err, start_new_session=True,
                    )
        self.procs[component] = proc
        self.launching[component] = (key, env, how)
        return proc

    def remember_launches(self, started: bool) -> None:
        """After a start or repair: record the commands of the JVMs that `started` (the scripts' or composed);
        forget replayed ones that did not, and compose no more for the inputs of composed ones that died (the
        next start goes through the scripts)."""
        for component, (key, env, how) in self.launching.items():
            if not started and how == "replayed":
                self.launches.forget(component)
            elif not started and how == "composed" and self.procs[component].poll() is not None:
                # only a composed JVM that died: an interrupted start (Ctrl-C, a closed pipe) says nothing of it
                self.launches.composed_failed(component, key)
            elif started and how != "replayed" and self.procs[component].poll() is None:
                self.launches.record(component, key, self.procs[component].pid, env)
        self.launching.clear()
        if self._composer is not None:
            self._composer.close()

    @cached_property
    def rpc_classpath(self) -> str:
        """The class path entries of the RPC system (flinklab.cluster.local_rpc), written once; '' without them."""
        return rpc_classpath(self.home, self.rpc_dir) if self.rpc_dir is not None else ""

    def rpc_env(self) -> dict[str, str]:
        """HADOOP_CLASSPATH with the RPC system's jars first (Flink's scripts append it to the class path)."""
        if not self.rpc_classpath:
            return {}
        theirs = (self.env or {}).get("HADOOP_CLASSPATH")
        return {"HADOOP_CLASSPATH": f"{self.rpc_classpath}:{theirs}" if theirs else self.rpc_classpath}

    def archive(self, component: str) -> Path:
        """The class-data-sharing archive of `component`'s kind (flinklab.cluster.local_cds), named after the RPC
        system's class path too (an archive made without it does not hold the RPC system's classes)."""
        assert self.java is not None
        kind = JOBMANAGER if component == JOBMANAGER else TASKMANAGER
        return archive_path(self.local_dir / "cds", kind, self.java[0], self.home, extra=self.rpc_classpath)

    def start_cds_dumps(self) -> None:
        """Once the cluster is ready: dump, in the background, the archives whose classes the recording JVMs
        listed during this start (the next start maps them)."""
        for component in (JOBMANAGER, tm_name(1)):
            proc = self.procs.get(component)
            argv = process_args(proc.pid) if proc is not None else None
            if argv:
                start_dump(self.archive(component), argv[0], argv)

    def stop_cds_dumps(self) -> None:
        """End the archive dumpers this cluster started that are still at work (flinklab.cluster.local_cds)."""
        stop_dumps(self.local_dir / "cds")

    def cds_env(self, component: str) -> dict[str, str]:
        """The class-data-sharing options of `component` (flinklab.cluster.local_cds) in the scripts' per-component
        variable; the first TaskManager alone lists the TaskManagers' classes (one writer per file)."""
        kind = JOBMANAGER if component == JOBMANAGER else TASKMANAGER
        archive = self.archive(component)
        cds_dir = archive.parent
        options = cds_options(archive, self.java[1], record=component in (JOBMANAGER, tm_name(1)))
        if not options:
            return {}
        cds_dir.mkdir(parents=True, exist_ok=True)
        variable = "FLINK_ENV_JAVA_OPTS_JM" if kind == JOBMANAGER else "FLINK_ENV_JAVA_OPTS_TM"
        return {variable: f"{(self.env or {}).get(variable, '')} {options}".strip()}  # after the user's own
