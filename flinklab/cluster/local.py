"""The local backend: a JobManager and N TaskManagers as background JVMs from the Flink inside `apache-flink`.

Layout under `state_dir/local/`: `conf/` (generated config.yaml + the package's log4j files), `log/<component>/`
(Flink's log, .out/.err and our launch.log), `pid/<component>/` (the scripts' own pid files), `tmp/`.
The pids flinklab relies on are the ones in the cluster record (state_dir/cluster.json).

How the JVMs are launched, and why: each JVM is the one the distribution's `bin/jobmanager.sh start-foreground` /
`taskmanager.sh start-foreground` would exec, started with Popen in a new session. The JVM memory flags and the
TaskManager's dynamic memory options always come from Flink's own BashJavaUtils, exactly as Flink expects (fragile
to redo by hand). The command is the one recorded from the scripts' JVM for the same inputs, else the one
flinklab.cluster.launch.Composer builds like flink-console.sh (BashJavaUtils run directly, once per kind), else
the scripts run: their helper JVMs are most of a start on 2 cores. Either way the pid Popen returns IS the JVM's
pid (`start-foreground` `exec`s it: no pid-file parsing, no daemon double-fork race), and a new session keeps
Ctrl-C in the user's terminal from reaching the cluster. The JobManager and TaskManagers start at once; a
TaskManager that asks before the ResourceManager is up asks again 200 ms later (local_config.py).

This module is the backend (start, repair, stop, status, logs); the config it writes is local_config.py's, the
launching and stopping of the JVMs local_jvms.py's.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from flinklab.cluster.base import (
    BackendDetails,
    ClusterRecord,
    ClusterStatus,
    UpResult,
    check_rest_port_free,
    finish_status,
    read_record,
    remove_record,
    select_components,
    tm_name,
    write_record,
)
from flinklab.cluster.local_cds import dumps_underway
from flinklab.cluster.local_config import flink_home, write_config
from flinklab.cluster.local_jvms import Jvms, find_ours, is_ours, stop_ours
from flinklab.cluster.local_logs import follow_log_files, latest_log
from flinklab.cluster.progress import ProgressFn, Step, quiet, waits_to
from flinklab.errors import ClusterError
from flinklab.flink.java import find_java, java_env
from flinklab.flink.procs import free_port
from flinklab.flink.readiness import (
    JOBMANAGER,
    TASKMANAGER,
    Diagnostics,
    NewTaskManagers,
    RestAnswers,
    TaskManagersRegistered,
    wait_until,
)
from flinklab.flink.rest import RestUnavailable
from flinklab.flink.tls import RestTls, cluster_rest, ensure, keytool_beside
from flinklab.flink.waiting import tail_lines
from flinklab.settings import Settings
from flinklab.version import FLINK_VERSION


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
    mutual_tls = True

    def __init__(self, settings: Settings):
        self.settings = settings
        self.local_dir = settings.state_dir / "local"
        self.conf_dir = self.local_dir / "conf"
        self.log_dir = self.local_dir / "log"
        self.pid_dir = self.local_dir / "pid"
        self.tmp_dir = self.local_dir / "tmp"
        # the JVMs this object launches (flinklab.cluster.local_jvms), Flink's RPC system on their class path
        self.jvms = Jvms(self.local_dir, rpc_dir=self.settings.cache_dir / "rpc")
        self._failed: str | None = None  # the component whose process died during a wait

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
        say = progress or quiet
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
                taskmanagers=record.taskmanagers, slots=record.slots, shared=record.shared)
        self._start_all(say)
        return UpResult(status=self.status(), repaired=repaired, seconds=time.monotonic() - start)

    def _refuse_other_shape(self, record: ClusterRecord) -> None:
        """ClusterError when the recorded cluster's port or shape is not the asked one (no in-place reshaping)."""
        s = self.settings
        if s.shared and not record.shared:
            # the other way round (shared recorded, not asked) keeps it shared: TLS is never dropped unasked
            raise ClusterError(f"A local cluster is recorded on port {record.rest_port} without --shared (its REST "
                               "API is plain HTTP).", "Stop it with `flink-down` first, then `flink-up --shared`.")
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
            say(Step("the JobManager is not running: restarting the whole cluster"))
            self._stop_everything(record)
            return None
        rest = cluster_rest(record.rest_url, self.settings.state_dir)
        if not dead_tms:
            # Alive; wait in case it is still starting (a second `up` right after the first).
            wait_until(rest, RestAnswers(), timeout=self.settings.startup_timeout,
                       diagnostics=self._diagnostics, abort=self._abort_if_dead(record))
            say(Step(f"already running at {record.rest_url}"))
            return UpResult(status=self.status(), already_running=True)
        say(Step(f"restarting {', '.join(dead_tms)}"))
        try:
            before = {tm.get("id", "") for tm in rest.taskmanagers()}
        except RestUnavailable:
            before = set()
        try:
            for name in dead_tms:
                tms[name] = self.jvms.spawn(name, "taskmanager.sh").pid
            write_record(self.settings, record)
            wait_until(rest, RestAnswers() & NewTaskManagers(before, len(dead_tms)),
                       timeout=self.settings.startup_timeout, diagnostics=self._diagnostics,
                       abort=self._abort_if_dead(record), progress=waits_to(say))
            self.jvms.remember_launches(started=True)
        except BaseException:
            self.jvms.remember_launches(started=False)
            # Only what this repair spawned; the JobManager and the healthy TaskManagers keep running, and the
            # record still names the new pids, so `up` tries again and `flink-down` finds whatever is left.
            say(Step("repair failed: stopping the TaskManager(s) it started"))
            self.jvms.kill_spawned()
            raise
        return UpResult(status=self.status(), repaired=dead_tms)

    def _preflight(self) -> dict[str, str]:
        """Check Java, the state dir, the REST port; return the environment for Flink's scripts."""
        self.jvms.home  # noqa: B018 - resolves the distribution now: a ClusterError before anything starts
        self.jvms.java = java, _major = find_java()
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
        say(Step("checking Java, the state dir and the REST port"))
        self.jvms.env = self._preflight()
        tls = None
        if s.shared:
            say(Step("the REST API's TLS key and certificate (--shared)"))
            tls = ensure(s.state_dir, keytool_beside(self.jvms.java[0]))
        self._write_config(tls)
        say(Step(f"starting the JobManager and {s.taskmanagers} TaskManager(s) ({s.slots} slots each)"))
        record = ClusterRecord(
            backend=self.name, rest_host=s.rest_host, rest_port=s.rest_port, taskmanagers=s.taskmanagers,
            slots=s.slots, flink_version=FLINK_VERSION, data_dir=str(s.data_dir),
            workspace_root=str(s.workspace_root), shared=s.shared,
            details=LocalDetails(conf_dir=str(self.conf_dir), log_dir=str(self.log_dir),
                                 flink_home=str(self.home), rpc_port=self._rpc_port),
        )
        details = _details(record)
        try:
            # All JVMs at once, like start-cluster.sh: TaskManagers retry until the JobManager's RPC port answers.
            self.jvms.prepare({JOBMANAGER: "jobmanager.sh", **{tm_name(i): "taskmanager.sh"
                                                               for i in range(1, s.taskmanagers + 1)}})
            details.jobmanager_pid = self.jvms.spawn(JOBMANAGER, "jobmanager.sh").pid
            for i in range(1, s.taskmanagers + 1):
                details.taskmanager_pids[tm_name(i)] = self.jvms.spawn(tm_name(i), "taskmanager.sh").pid
            # Recorded before waiting: an interrupted `up` still leaves `flink-down` something to stop.
            write_record(s, record)
            rest = cluster_rest(record.rest_url, s.state_dir)
            wait_until(rest, RestAnswers(), timeout=s.startup_timeout, diagnostics=self._diagnostics,
                       abort=self._abort_if_dead(record), progress=waits_to(say))
            wait_until(rest, TaskManagersRegistered(s.taskmanagers, s.slots), timeout=s.startup_timeout,
                       diagnostics=self._diagnostics, abort=self._abort_if_dead(record), progress=waits_to(say))
            self.jvms.remember_launches(started=True)
            self.jvms.start_cds_dumps()
        except BaseException:
            self.jvms.remember_launches(started=False)
            say(Step("start-up failed: stopping what was started"))
            self.jvms.kill_spawned()
            stop_ours(find_ours(self.conf_dir), self.conf_dir, timeout=5)  # strays of this config, too
            remove_record(s)
            raise

    @property
    def home(self) -> Path:
        """The Flink distribution (flink_home()), resolved once per backend."""
        return self.jvms.home

    def _write_config(self, tls: RestTls | None) -> None:
        """config.yaml for this cluster (flinklab.cluster.local_config); `tls`: its REST API's (--shared)."""
        # Only the JobManager's RPC port must be fixed (TaskManagers are told where it is); a free one is picked so
        # several flinklab clusters (the test suite runs a few) never collide. Every other port is 0 = any free one.
        self._rpc_port = free_port(self.settings.bind_host)
        write_config(self.conf_dir, self.home, self.settings, self.tmp_dir, self._rpc_port, tls)

    def _abort_if_dead(self, record: ClusterRecord):
        """An abort check for the waits: a JVM we recorded has exited."""

        def check() -> tuple[str, str] | None:
            details = _details(record)
            components = {JOBMANAGER: details.jobmanager_pid, **details.taskmanager_pids}
            for component, pid in components.items():
                proc = self.jvms.procs.get(component)
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
        return latest_log(self.log_dir, component)

    # -------------------------------------------------------------- down
    def down(self) -> bool:
        """Stop the recorded JVMs (each checked to still be ours) and any stray of this config; False if none ran."""
        record = read_record(self.settings)
        pids: list[int] = []
        if record is not None and record.backend == self.name:
            details = _details(record)
            pids = details.pids()
        pids += [p for p in find_ours(self.conf_dir) if p not in pids]
        stopped = stop_ours(pids, self.conf_dir)
        self.jvms.stop_cds_dumps()  # no process of ours stays: an archive not made yet is made by the next start
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
                           state_dir=str(self.settings.state_dir), shared=bool(record and record.shared))
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
        return finish_status(st, jm_alive, record.taskmanagers, timeout=5.0)

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

    def settling(self) -> bool:
        """An archive dumper this cluster's start began is still at work (flinklab.cluster.local_cds)."""
        return dumps_underway(self.local_dir / "cds")

    def follow_logs(self, component: str | None, follow: bool) -> Iterator[str]:
        """The last 200 lines of each selected log, then (with `follow`) new lines as they are written."""
        files = self.log_files()
        if not files:
            raise ClusterError(f"No cluster logs in {self.log_dir}.", "Start a cluster with `flink-up`.")
        yield from follow_log_files(self.log_dir, select_components(files, component), follow)
