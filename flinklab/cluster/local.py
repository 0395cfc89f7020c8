"""The local backend: a JobManager and N TaskManagers as background JVMs from the Flink inside `apache-flink`.

Layout under `state_dir/local/`: `conf/` (generated config.yaml + the package's log4j files), `log/<component>/`
(Flink's log, .out/.err and our launch.log), `pid/<component>/` (the scripts' own pid files), `tmp/`.
The pids flinklab relies on are the ones in the cluster record (state_dir/cluster.json).

How the JVMs are launched, and why: we run the distribution's `bin/jobmanager.sh start-foreground` /
`taskmanager.sh start-foreground` with Popen in a new session. The scripts compute the JVM memory flags and the
TaskManager's dynamic memory options (BashJavaUtils) exactly as Flink expects, which is fragile to redo by hand;
`start-foreground` `exec`s the JVM, so the pid Popen returns IS the JVM's pid (no pid-file parsing, no daemon
double-fork race), and a new session keeps Ctrl-C in the user's terminal from reaching the cluster.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from flinklab.cluster.base import (
    BackendDetails,
    ClusterRecord,
    ClusterStatus,
    ProgressFn,
    UpResult,
    check_rest_port_free,
    fill_from_overview,
    read_record,
    remove_record,
    select_components,
    tm_name,
    write_record,
)
from flinklab.cluster.cds import archive_path, cds_options, start_dump
from flinklab.cluster.launch import LaunchCache, launch_key
from flinklab.cluster.waits import (
    JOBMANAGER,
    TASKMANAGER,
    Diagnostics,
    NewTaskManagers,
    RestAnswers,
    TaskManagersRegistered,
    wait_until,
)
from flinklab.errors import ClusterError
from flinklab.flink.java import find_java, java_env
from flinklab.flink.options import cluster_options
from flinklab.flink.procs import find_processes, free_port, process_args, stop_processes
from flinklab.flink.rest import FlinkRest, RestUnavailable
from flinklab.flink.waits import tail_lines
from flinklab.settings import Settings
from flinklab.version import FLINK_VERSION

STOP_TIMEOUT = 30.0  # seconds a JVM gets to exit on SIGTERM before SIGKILL
IDENT = "flinklab"  # FLINK_IDENT_STRING: names the scripts' pid and log files


# ---------------------------------------------------------------------------------------------- environment


def flink_home() -> Path:
    """The Flink distribution shipped inside the installed `apache-flink` package (bin/, lib/, opt/, conf/)."""
    try:
        import pyflink
    except ImportError:  # pragma: no cover - apache-flink is a dependency
        raise ClusterError(
            "PyFlink (apache-flink) is not installed.", "pip install apache-flink==" + FLINK_VERSION
        ) from None
    home = Path(pyflink.__file__).resolve().parent
    if not (home / "bin" / "jobmanager.sh").is_file() or not (home / "lib").is_dir():
        raise ClusterError(f"No Flink distribution in {home} (bin/jobmanager.sh missing).",
                           f"Reinstall apache-flink=={FLINK_VERSION}.")
    return home


# ------------------------------------------------------------------------------------------------ processes


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


# ------------------------------------------------------------------------------------------------- backend


@dataclass
class LocalDetails(BackendDetails):
    """The local cluster's record: where its config and logs are, and the pid of each JVM."""

    conf_dir: str
    log_dir: str
    flink_home: str
    rpc_port: int
    jobmanager_pid: int = 0
    taskmanager_pids: dict[str, int] = field(default_factory=dict)  # `taskmanager-<i>` -> pid

    def pids(self) -> list[int]:
        """Every recorded pid (JobManager first), zeros left out."""
        return [p for p in (self.jobmanager_pid, *self.taskmanager_pids.values()) if p]


def _details(record: ClusterRecord) -> LocalDetails:
    assert isinstance(record.details, LocalDetails), record.details  # read_record types it by the backend name
    return record.details


class LocalBackend:
    """JobManager + N TaskManagers as local JVMs; see the module docstring for the layout."""

    name = "local"
    Details = LocalDetails
    reads_local_data = True
    owns_cluster = True

    def __init__(self, settings: Settings):
        self.settings = settings
        self.local_dir = settings.state_dir / "local"
        self.conf_dir = self.local_dir / "conf"
        self.log_dir = self.local_dir / "log"
        self.pid_dir = self.local_dir / "pid"
        self.tmp_dir = self.local_dir / "tmp"
        self._procs: dict[str, subprocess.Popen] = {}
        self._env: dict[str, str] | None = None  # the scripts' environment, set by preflight (or a repair)
        self._home: Path | None = None  # flink_home(), resolved once
        self._failed: str | None = None  # the component whose process died during a wait
        self._java: tuple[str, int] | None = None  # (java, major version), checked once
        self._launches = LaunchCache(self.local_dir / "launch")  # the scripts' commands (flinklab.cluster.launch)
        self._launching: dict[str, tuple[str, dict[str, str], bool]] = {}  # component -> (key, env, replayed)

    @classmethod
    def usable(cls, settings: Settings) -> tuple[bool, str]:
        """(True, why) when Java 11+ and the PyPI Flink distribution are here."""
        try:
            flink_home()
            java, major = find_java()
        except ClusterError as exc:
            return False, exc.message
        return True, f"Java {major} ({java}) and the PyPI Flink distribution are here"

    # ---------------------------------------------------------------- up
    def up(self, progress: ProgressFn | None = None) -> UpResult:
        """Start (or repair) the cluster; return once REST answers and every TaskManager's slots are registered."""
        say = progress or (lambda message: None)
        start = time.monotonic()
        record = read_record(self.settings)
        if record is not None and record.backend != self.name:
            raise ClusterError(f"A {record.backend} cluster is recorded in {self.settings.state_dir}.",
                               "Stop it with `flink-down` first.")
        if record is not None:
            self._refuse_other_shape(record)
        repaired: list[str] = []
        if record is not None:
            result = self._reuse(record, say)
            if result is not None:
                result.seconds = time.monotonic() - start
                return result
            # The JobManager is gone: everything starts afresh on the recorded endpoint (its shape is the asked one).
            repaired = [JOBMANAGER] + [tm_name(i) for i in range(1, record.taskmanagers + 1)]
            self.settings = self.settings.with_overrides(
                rest_host=record.rest_host, rest_port=record.rest_port,
                taskmanagers=record.taskmanagers, slots=record.slots)
        self._start_all(say)
        return UpResult(status=self.status(), repaired=repaired, seconds=time.monotonic() - start)

    def _refuse_other_shape(self, record: ClusterRecord) -> None:
        """ClusterError when the recorded cluster's port or shape is not the asked one (no in-place reshaping)."""
        s = self.settings
        recorded = (record.rest_port, record.taskmanagers, record.slots)
        if recorded == (s.rest_port, s.taskmanagers, s.slots):
            return
        raise ClusterError(
            f"A local cluster is recorded on port {record.rest_port} with {record.taskmanagers} TaskManager(s) x "
            f"{record.slots} slots; asked for port {s.rest_port} with {s.taskmanagers} TaskManager(s) x "
            f"{s.slots} slots.",
            f"Stop it with `flink-down` first, or ask for the same: `--port {record.rest_port} "
            f"--taskmanagers {record.taskmanagers} --slots {record.slots}`.")

    def _reuse(self, record: ClusterRecord, say: ProgressFn) -> UpResult | None:
        """Healthy → already_running; TMs missing → restart them; JM gone → stop the rest and return None."""
        details = _details(record)
        jm_pid = details.jobmanager_pid
        tms = details.taskmanager_pids
        dead_tms = [name for name, pid in tms.items() if not is_ours(pid, self.conf_dir)]
        if not is_ours(jm_pid, self.conf_dir):
            say("the JobManager is not running: restarting the whole cluster")
            self._stop_everything(record)
            return None
        rest = FlinkRest(record.rest_url)
        if not dead_tms:
            # Alive; wait in case it is still starting (a second `up` right after the first).
            wait_until(rest, RestAnswers(), timeout=self.settings.startup_timeout,
                       diagnostics=self._diagnostics, abort=self._abort_if_dead(record))
            say(f"already running at {record.rest_url}")
            return UpResult(status=self.status(), already_running=True)
        say(f"restarting {', '.join(dead_tms)}")
        try:
            before = {tm.get("id", "") for tm in rest.taskmanagers()}
        except RestUnavailable:
            before = set()
        try:
            for name in dead_tms:
                tms[name] = self._spawn(name, "taskmanager.sh").pid
            write_record(self.settings, record)
            wait_until(rest, RestAnswers() & NewTaskManagers(before, len(dead_tms)),
                       timeout=self.settings.startup_timeout, diagnostics=self._diagnostics,
                       abort=self._abort_if_dead(record), progress=say)
            self._remember_launches(started=True)
        except BaseException:
            self._remember_launches(started=False)
            # Only what this repair spawned; the JobManager and the healthy TaskManagers keep running, and the
            # record still names the new pids, so `up` tries again and `flink-down` finds whatever is left.
            say("repair failed: stopping the TaskManager(s) it started")
            self._kill_spawned()
            raise
        return UpResult(status=self.status(), repaired=dead_tms)

    def _preflight(self) -> dict[str, str]:
        """Check Java, the state dir, the REST port; return the environment for Flink's scripts."""
        self._home = flink_home()
        self._java = java, _major = find_java()
        for path in (self.local_dir, self.log_dir, self.pid_dir, self.tmp_dir):
            try:
                path.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise self._state_dir_error(exc) from None
        probe = self.local_dir / ".write-test"
        try:
            probe.write_text("ok")
            probe.unlink()
        except OSError as exc:
            raise self._state_dir_error(exc) from None
        check_rest_port_free(self.settings)
        return java_env(java)  # the scripts use the same java we checked

    def _state_dir_error(self, exc: OSError) -> ClusterError:
        return ClusterError(f"The state dir {self.settings.state_dir} is not writable ({exc.strerror or exc}).",
                            "Set FLINKLAB_STATE_DIR to a writable directory.")

    def _start_all(self, say: ProgressFn) -> None:
        s = self.settings
        say("checking Java, the state dir and the REST port")
        self._env = self._preflight()
        self._write_config()
        say(f"starting the JobManager and {s.taskmanagers} TaskManager(s) ({s.slots} slots each)")
        record = ClusterRecord(
            backend=self.name, rest_host=s.rest_host, rest_port=s.rest_port, taskmanagers=s.taskmanagers,
            slots=s.slots, flink_version=FLINK_VERSION, data_dir=str(s.data_dir),
            workspace_root=str(s.workspace_root),
            details=LocalDetails(conf_dir=str(self.conf_dir), log_dir=str(self.log_dir),
                                 flink_home=str(self.home), rpc_port=self._rpc_port),
        )
        details = _details(record)
        try:
            # All JVMs at once, like start-cluster.sh: TaskManagers retry until the JobManager's RPC port answers.
            details.jobmanager_pid = self._spawn(JOBMANAGER, "jobmanager.sh").pid
            for i in range(1, s.taskmanagers + 1):
                details.taskmanager_pids[tm_name(i)] = self._spawn(tm_name(i), "taskmanager.sh").pid
            # Recorded before waiting: an interrupted `up` still leaves `flink-down` something to stop.
            write_record(s, record)
            rest = FlinkRest(s.rest_url)
            wait_until(rest, RestAnswers(), timeout=s.startup_timeout, diagnostics=self._diagnostics,
                       abort=self._abort_if_dead(record), progress=say)
            wait_until(rest, TaskManagersRegistered(s.taskmanagers, s.slots), timeout=s.startup_timeout,
                       diagnostics=self._diagnostics, abort=self._abort_if_dead(record), progress=say)
            self._remember_launches(started=True)
            self._start_cds_dumps()
        except BaseException:
            self._remember_launches(started=False)
            say("start-up failed: stopping what was started")
            self._kill_spawned()
            stop_ours(find_ours(self.conf_dir), self.conf_dir, timeout=5)  # strays of this config, too
            remove_record(s)
            raise

    @property
    def home(self) -> Path:
        """The Flink distribution (flink_home()), resolved once per backend."""
        if self._home is None:
            self._home = flink_home()
        return self._home

    def _kill_spawned(self) -> None:
        """Kill every JVM this backend spawned (after a failed start or repair), nothing else."""
        for proc in self._procs.values():
            if proc.poll() is None:
                try:
                    # The whole session: the script may not have exec'd the JVM yet (BashJavaUtils still running).
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        for proc in self._procs.values():
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass

    def _write_config(self) -> None:
        """config.yaml for this cluster: loopback only, our ports, the settings' shape and memory."""
        s = self.settings
        home = self.home
        self.conf_dir.mkdir(parents=True, exist_ok=True)
        for src in (home / "conf").iterdir():
            if src.is_file() and src.name != "config.yaml":
                shutil.copyfile(src, self.conf_dir / src.name)
        # Only the JobManager's RPC port must be fixed (TaskManagers are told where it is); a free one is picked so
        # several flinklab clusters (the test suite runs a few) never collide. Every other port is 0 = any free one.
        self._rpc_port = free_port(s.bind_host)
        options: dict[str, object] = {
            "env.java.opts.all": default_java_opts(home),  # the --add-opens Java 17 needs
            "jobmanager.bind-host": s.bind_host,
            "jobmanager.rpc.address": s.bind_host,
            "jobmanager.rpc.port": self._rpc_port,
            "taskmanager.bind-host": s.bind_host,
            "taskmanager.host": s.bind_host,
            "taskmanager.rpc.port": "0",
            "taskmanager.data.port": 0,
            "blob.server.port": "0",
            "metrics.internal.query-service.port": "0",
            "rest.address": s.rest_host,
            "rest.bind-address": s.bind_host,
            "rest.port": s.rest_port,
            **cluster_options(s),  # the options every flinklab cluster shares (flinklab.flink.options)
            "io.tmp.dirs": str(self.tmp_dir),
            "web.tmpdir": str(self.tmp_dir / "web"),
        }
        # Flat keys are valid in Flink's config.yaml; JSON strings are valid YAML scalars (quotes the --add-opens).
        lines = ["# Generated by flinklab for the local backend; rewritten by every fresh `flink-up`."]
        lines += [f"{key}: {json.dumps(value)}" for key, value in options.items()]
        (self.conf_dir / "config.yaml").write_text("\n".join(lines) + "\n")

    def _spawn(self, component: str, script: str) -> subprocess.Popen:
        """Launch one JVM through Flink's script in the foreground mode, detached into its own session."""
        if self._env is None or self._java is None:  # a repair: no full preflight (its ports are in use by design)
            self._java = find_java()
            self._env = java_env(self._java[0])
        log_dir = self.log_dir / component
        pid_dir = self.pid_dir / component
        log_dir.mkdir(parents=True, exist_ok=True)
        pid_dir.mkdir(parents=True, exist_ok=True)
        env = {
            **self._env,
            "FLINK_HOME": str(self.home),
            "FLINK_CONF_DIR": str(self.conf_dir),
            "FLINK_LOG_DIR": str(log_dir),
            "FLINK_PID_DIR": str(pid_dir),
            "FLINK_IDENT_STRING": IDENT,
            "STD_REDIRECT_TO_FILE": "true",  # the JVM's stdout/stderr go to .out/.err next to its log
            **self._cds_env(component),
        }
        try:
            config_text = (self.conf_dir / "config.yaml").read_text()
        except OSError:
            config_text = ""
        key = launch_key(component, config_text, env, self._java[0], self.home)
        launch = self._launches.get(component, key)
        with open(log_dir / "launch.log", "ab") as launch_log:
            if launch is None:
                proc = subprocess.Popen(
                    ["bash", str(self.home / "bin" / script), "start-foreground"],
                    env=env, cwd=str(self.local_dir), stdin=subprocess.DEVNULL, stdout=launch_log,
                    stderr=subprocess.STDOUT, start_new_session=True,
                )
            else:  # the command the scripts computed last time for the same inputs, without their helper JVMs
                launch_log.write(f"flinklab: running the command {script} computed before "
                                 f"({self._launches.directory / component}.json)\n".encode())
                with open(launch.out, "wb") as out, open(launch.err, "wb") as err:
                    proc = subprocess.Popen(
                        launch.argv, env={**env, **launch.env}, cwd=str(self.local_dir), stdin=subprocess.DEVNULL,
                        stdout=out, stderr=err, start_new_session=True,
                    )
        self._procs[component] = proc
        self._launching[component] = (key, env, launch is not None)
        return proc

    def _remember_launches(self, started: bool) -> None:
        """After a start or repair: record the scripts' commands of the JVMs that `started`; forget replayed ones
        that did not (the next start goes through the scripts)."""
        for component, (key, env, replayed) in self._launching.items():
            if not started and replayed:
                self._launches.forget(component)
            elif started and not replayed and self._procs[component].poll() is None:
                self._launches.record(component, key, self._procs[component].pid, env)
        self._launching.clear()

    def _archive(self, component: str) -> Path:
        """The class-data-sharing archive of `component`'s kind (flinklab.cluster.cds)."""
        assert self._java is not None
        kind = JOBMANAGER if component == JOBMANAGER else TASKMANAGER
        return archive_path(self.local_dir / "cds", kind, self._java[0], self.home)

    def _start_cds_dumps(self) -> None:
        """Once the cluster is ready: dump, in the background, the archives whose classes the recording JVMs
        listed during this start (the next start maps them)."""
        for component in (JOBMANAGER, tm_name(1)):
            proc = self._procs.get(component)
            argv = process_args(proc.pid) if proc is not None else None
            if argv:
                start_dump(self._archive(component), argv[0], argv)

    def _cds_env(self, component: str) -> dict[str, str]:
        """The class-data-sharing options of `component` (flinklab.cluster.cds) in the scripts' per-component
        variable; the first TaskManager alone lists the TaskManagers' classes (one writer per file)."""
        kind = JOBMANAGER if component == JOBMANAGER else TASKMANAGER
        archive = self._archive(component)
        cds_dir = archive.parent
        options = cds_options(archive, self._java[1], record=component in (JOBMANAGER, tm_name(1)))
        if not options:
            return {}
        cds_dir.mkdir(parents=True, exist_ok=True)
        variable = "FLINK_ENV_JAVA_OPTS_JM" if kind == JOBMANAGER else "FLINK_ENV_JAVA_OPTS_TM"
        return {variable: f"{(self._env or {}).get(variable, '')} {options}".strip()}  # after the user's own

    def _abort_if_dead(self, record: ClusterRecord):
        """An abort check for the waits: a JVM we recorded has exited."""

        def check() -> tuple[str, str] | None:
            details = _details(record)
            components = {JOBMANAGER: details.jobmanager_pid, **details.taskmanager_pids}
            for component, pid in components.items():
                proc = self._procs.get(component)
                if proc is not None and proc.pid == pid:
                    code = proc.poll()
                    if code is not None:
                        self._failed = component
                        return component, f"The {component} process exited (code {code})"
                elif not is_ours(pid, self.conf_dir):
                    self._failed = component
                    return component, f"The {component} process (pid {pid}) is gone"
            return None

        return check

    def _diagnostics(self, component: str) -> Diagnostics:
        """The log of `component`; for 'taskmanager', the TM that failed if one did, else the first."""
        failed = self._failed
        if component == TASKMANAGER:
            component = failed if failed and failed.startswith(TASKMANAGER) else tm_name(1)
        elif component == JOBMANAGER and failed:
            component = failed
        log = self._log_file(component)
        tail = tail_lines(log) if log else []
        if not tail:  # the JVM never started (script error, bad memory config): the launch output says why
            launch = self.log_dir / component / "launch.log"
            launch_tail = tail_lines(launch)
            if launch_tail:
                log, tail = launch, launch_tail
        return Diagnostics(log=str(log or self.log_dir / component), tail=tail)

    def _log_file(self, component: str) -> Path | None:
        logs = sorted((self.log_dir / component).glob("*.log"), key=lambda p: p.stat().st_mtime)
        logs = [p for p in logs if p.name != "launch.log"]
        return logs[-1] if logs else None

    # -------------------------------------------------------------- down
    def down(self) -> bool:
        """Stop the recorded JVMs (each checked to still be ours) and any stray of this config; False if none ran."""
        record = read_record(self.settings)
        pids: list[int] = []
        if record is not None and record.backend == self.name:
            pids = _details(record).pids()
        pids += [p for p in find_ours(self.conf_dir) if p not in pids]
        stopped = stop_ours(pids, self.conf_dir)
        if record is not None and record.backend == self.name:
            remove_record(self.settings)
        return bool(stopped)

    def _stop_everything(self, record: ClusterRecord) -> None:
        stop_ours(_details(record).pids() + find_ours(self.conf_dir), self.conf_dir)
        remove_record(self.settings)

    # ------------------------------------------------------------ status
    def status(self) -> ClusterStatus:
        """Processes from the record, the rest from REST /overview; `problems` says what is wrong."""
        record = read_record(self.settings)
        rest_url = record.rest_url if record else self.settings.rest_url
        st = ClusterStatus(backend=self.name, running=False, rest_url=rest_url,
                           state_dir=str(self.settings.state_dir))
        if record is None or record.backend != self.name:
            st.problems.append(f"no local cluster recorded in {self.settings.state_dir}")
            return st
        st.expected_taskmanagers = record.taskmanagers
        details = _details(record)
        jm_alive = is_ours(details.jobmanager_pid, self.conf_dir)
        if not jm_alive:
            st.problems.append("the JobManager is not running")
        for name, pid in details.taskmanager_pids.items():
            if not is_ours(pid, self.conf_dir):
                st.problems.append(f"TaskManager {name} (pid {pid}) is not running")
        try:
            ov = FlinkRest(rest_url).overview()
        except RestUnavailable:
            if jm_alive:
                st.problems.append(f"the REST endpoint {rest_url} does not answer")
            return st
        fill_from_overview(st, ov)
        st.running = jm_alive
        if st.taskmanagers < record.taskmanagers:
            st.problems.append(f"{st.taskmanagers} of {record.taskmanagers} TaskManagers registered")
        return st

    # -------------------------------------------------------------- logs
    def _components(self) -> list[str]:
        """The recorded JVMs' names, else every component with a log dir (logs outlive `flink-down`)."""
        record = read_record(self.settings)
        if record is not None and record.backend == self.name:
            return [JOBMANAGER, *_details(record).taskmanager_pids]
        if not self.log_dir.is_dir():
            return []
        names = sorted(p.name for p in self.log_dir.iterdir() if p.is_dir())
        return sorted(names, key=lambda n: (n != JOBMANAGER, n))

    def log_files(self) -> dict[str, Path]:
        """component -> its Flink log (the current one)."""
        files = {}
        for component in self._components():
            log = self._log_file(component)
            if log is not None:
                files[component] = log
        return files

    def follow_logs(self, component: str | None, follow: bool) -> Iterator[str]:
        """The last 200 lines of each selected log, then (with `follow`) new lines as they are written."""
        files = self.log_files()
        if not files:
            raise ClusterError(f"No cluster logs in {self.log_dir}.", "Start a cluster with `flink-up`.")
        chosen = select_components(files, component)
        prefix = len(chosen) > 1
        positions: dict[str, tuple[Path, int]] = {}
        for name, path in chosen.items():
            if prefix:
                yield f"==> {name}: {path} <=="
            yield from tail_lines(path, 200, skip_stack_frames=False)
            positions[name] = (path, path.stat().st_size)
        while follow:
            time.sleep(0.5)
            for name, (path, pos) in list(positions.items()):
                current = self._log_file(name) or path
                if current != path:
                    path, pos = current, 0  # rolled over or restarted
                try:
                    size = current.stat().st_size
                    if size < pos:
                        pos = 0
                    with open(current, "rb") as fh:
                        fh.seek(pos)
                        chunk = fh.read()
                except OSError:
                    continue
                # Only whole lines; a partial last line waits for its newline.
                cut = chunk.rfind(b"\n") + 1
                for line in chunk[:cut].decode("utf-8", "replace").splitlines():
                    yield f"[{name}] {line}" if prefix else line
                positions[name] = (current, pos + cut)


_FALLBACK_JAVA_OPTS = " ".join(
    ["--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED"]
    + [f"--add-opens=java.base/{p}=ALL-UNNAMED" for p in (
        "java.lang", "java.net", "java.io", "java.nio", "sun.nio.ch", "java.lang.reflect", "java.text",
        "java.time", "java.util", "java.util.concurrent", "java.util.concurrent.atomic",
        "java.util.concurrent.locks")]
)


def default_java_opts(home: Path) -> str:
    """`env.java.opts.all` from the distribution's own config.yaml (the --add-opens Flink needs on Java 17)."""
    try:
        text = (home / "conf" / "config.yaml").read_text()
    except OSError:
        return _FALLBACK_JAVA_OPTS
    # The default file nests it as env: java: opts: all: <one line>; the only `all:` whose value is --add-*.
    m = re.search(r"^\s*all:\s*(--add-\S.*)$", text, re.MULTILINE)
    return m.group(1).strip() if m else _FALLBACK_JAVA_OPTS
