"""The gateway as a background process of `flink-up` (:class:`GatewayProcess`): start, wait until warm, status,
stop, logs, the shape of a cluster backend.

It runs on this machine whatever the backend (its JVM in a container when the host has no Java, see
flinklab/gateway/java_shim.py), binds `settings.bind_host` (127.0.0.1 unless asked) on `settings.gateway_port`,
and keeps its pid and log in the state dir. Each start writes a new token there (flinklab/access.py), which the
process reads from the file and every request must carry (flinklab/gateway/auth.py). A pid is only ever signalled
when its command line is this state dir's gateway: a stale pid file that now names another process is ignored.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from flinklab.access import read_token, token_path, write_token
from flinklab.cluster.progress import ProgressFn
from flinklab.errors import ClusterError, FlinklabError, UsageError
from flinklab.flink.java import host_java
from flinklab.flink.procs import find_processes, port_is_free, process_args, stop_processes
from flinklab.flink.rest import FlinkRest, RestUnavailable
from flinklab.flink.tls import cluster_rest
from flinklab.flink.waiting import ClusterStartError, Wait, tail_lines
from flinklab.settings import Settings

_MODULE = "flinklab.environment.serve_gateway"
STOP_SECONDS = 15.0


def pid_file(settings: Settings) -> Path:
    return settings.state_dir / "gateway.pid"


def log_file(settings: Settings) -> Path:
    return settings.state_dir / "logs" / "gateway.log"


def _ours(pid: int, settings: Settings) -> bool:
    """Is `pid` this state dir's gateway (`python -m flinklab.environment.serve_gateway ... --state-dir DIR`)?
    Never signal a process that only inherited a recycled pid, or one that merely names the state dir (an editor,
    `tail -f`)."""
    args = process_args(pid) or []
    return (
        _MODULE in args and args.index(_MODULE) > 0 and args[args.index(_MODULE) - 1] == "-m"
        and "--state-dir" in args[:-1] and args[args.index("--state-dir") + 1] == str(settings.state_dir)
    )


def strays(settings: Settings) -> list[int]:
    """Every live gateway process of this state dir (one interrupted before its pid file was written, too)."""
    return find_processes(lambda pid: _ours(pid, settings))


def _alive(pid: int) -> bool:
    """Does `pid` run (a zombie does not)?"""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except OSError:
        return None


def running_pid(settings: Settings) -> int | None:
    """The pid of this state dir's gateway while it runs, else None."""
    try:
        pid = int(pid_file(settings).read_text().strip())
    except (OSError, ValueError):
        return None
    return pid if _ours(pid, settings) else None


@dataclass
class GatewayState:
    url: str
    pid: int | None
    answering: bool
    log: str
    token: str  # the token file's path (never the token)

    @property
    def healthy(self) -> bool:
        return self.pid is not None and self.answering


def answers(url: str, timeout: float = 2.0) -> bool:
    """Does Flink's SQL Gateway API answer at `url` (`GET /v1/info` with productName Apache Flink)? Asked through
    the standard library's http.client (FlinkRest): `flink-up` asks every 50 ms while the gateway starts, and an
    httpx request built a TLS context each time, loading the CA bundle (38 ms of CPU, 0.46 s of a cold start's)."""
    try:
        info = FlinkRest(url, timeout=timeout).get("/v1/info")
    except RestUnavailable:
        return False
    return isinstance(info, dict) and info.get("productName") == "Apache Flink"


class GatewayProcess:
    """This state dir's SQL gateway process, managed through the same shape as a cluster backend
    (flinklab.cluster.base.Lifecycle): `up` (start unless a healthy one runs, then wait until it answers), `down`,
    `status`, `follow_logs`. `up` is `start` (returns at once) then `ready` (waits): flink-up calls them apart, so the
    gateway's JVM warms up while the cluster starts."""

    name = "gateway"

    def __init__(self, settings: Settings, rest_url: str | None = None):
        """The gateway of `settings`' state dir, for the cluster at `rest_url`, or, by default, for the cluster
        recorded in the state dir, whichever it is when a session opens."""
        self.settings, self.rest_url = settings, rest_url
        self._proc: subprocess.Popen | None = None  # the process this object started, until it answered

    # ---- the lifecycle ----------------------------------------------------------------------------------------

    @property
    def starting(self) -> bool:
        """This object started a gateway that has not answered yet (:meth:`ready` waits for it)."""
        return self._proc is not None

    def up(self, progress: ProgressFn | None = None) -> bool:
        """Start the gateway unless a healthy one runs (a running one that does not answer is restarted), and wait
        until it answers; True when one was started."""
        started = self.start()
        if started:
            self.ready()
        return started

    def start(self) -> bool:
        """Start the gateway process unless a healthy one runs (returns at once; :meth:`ready` waits); True when
        one was started."""
        state = self.status()
        if state.healthy:
            return False
        if state.pid is not None:
            self.down()
        self._proc = _spawn(self.settings, self.rest_url)
        return True

    def ready(self, timeout: float | None = None) -> None:
        """Until the gateway this object started answers (it answers once its JVM is warm); a dead or silent one
        is a ClusterError naming its log, and is stopped. Nothing to wait for when it started none."""
        proc, settings = self._proc, self.settings
        if proc is None:
            return
        timeout = settings.startup_timeout if timeout is None else timeout

        def answering() -> bool:
            if proc.poll() is not None:
                pid_file(settings).unlink(missing_ok=True)
                raise ClusterStartError(f"The SQL gateway exited during start-up (status {proc.returncode}).",
                                        f"Its log: {log_file(settings)}", log_tail=tail_lines(log_file(settings), 15))
            return answers(settings.gateway_url, timeout=1.0)

        if not Wait("the SQL gateway to answer", timeout).poll(answering):
            self.down()
            raise ClusterStartError(f"The SQL gateway did not answer within {timeout:.0f}s.",
                                    f"Its log: {log_file(settings)}", log_tail=tail_lines(log_file(settings), 15))
        self._proc = None

    def settling(self) -> bool:
        """The running gateway records its classes and has not dumped them into its archive yet
        (flinklab.gateway.jvm_archive): `flinklab prepare` waits for that before it stops it."""
        from flinklab.gateway.jvm_archive import gateway_archive

        return self.status().healthy and gateway_archive(self.settings).record

    def down(self) -> bool:
        """Stop this state dir's gateway (SIGTERM, then SIGKILL to its session, whose JVM goes with it), and any
        stray of it without a pid file; True when one was running. Only processes whose command line is this state
        dir's gateway are ever signalled."""
        settings = self.settings
        pid = running_pid(settings)
        pid_file(settings).unlink(missing_ok=True)
        token_path(settings.state_dir).unlink(missing_ok=True)  # a stopped gateway's token opens nothing
        pids = sorted({*([pid] if pid is not None else []), *strays(settings)})
        # its JVM, in its session (the process group of the pid), would exit on its own once it sees its Python
        # gone; flink-down leaves nothing of ours behind, so it goes at once (only what was in the group before)
        jvms = [each for each in find_processes(lambda each: _pgid(each) in pids) if each not in pids]
        stop_processes(pids, lambda each: _ours(each, settings), STOP_SECONDS, kill_group=True, poll=0.05)
        for each in jvms:
            if _pgid(each) in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(each, signal.SIGKILL)
        Wait("the SQL gateway's JVM to exit", 10).poll(lambda: not any(_alive(each) for each in jvms))
        self._proc = None
        return bool(pids)

    def status(self) -> GatewayState:
        """Its pid (when it runs) and whether it answers."""
        settings = self.settings
        pid = running_pid(settings)
        return GatewayState(url=settings.gateway_url, pid=pid,
                            answering=pid is not None and answers(settings.gateway_url),
                            log=str(log_file(settings)), token=str(token_path(settings.state_dir)))

    def follow_logs(self, component: str | None = None, follow: bool = False) -> Iterator[str]:
        """The gateway log's lines (and, with `follow`, new ones as they come; Ctrl-C ends it); it has one
        component."""
        path = log_file(self.settings)
        try:
            handle = open(path, encoding="utf-8", errors="replace")  # noqa: SIM115 - read while following
        except FileNotFoundError:
            raise UsageError(f"No SQL gateway log at {path}.", "Start the cluster and its gateway with `flink-up`.") \
                from None
        except OSError as exc:
            raise UsageError(f"Cannot read the SQL gateway log {path}: {exc.strerror}.") from None
        with handle:  # a follow is a stream until Ctrl-C (as `tail -f`), not a wait: it has no timeout
            while True:
                line = handle.readline()
                if line:
                    yield line.rstrip("\n")
                elif not follow:
                    return
                else:
                    time.sleep(0.3)

    # ---- what flink-up asks the running gateway ---------------------------------------------------------------

    def warm_cluster(self, rest_url: str, data_dir: Path | None = None) -> str:
        """Ask the gateway to warm the cluster at `rest_url` up (gateway/warmup.py: tiny jobs, in the gateway's
        background), unless a job has run there already (its TaskManagers are warm: "warm"); returns the
        warm-up's state, or "unavailable" when the gateway cannot be asked (a warm-up is a nicety: nothing fails
        for want of it). `data_dir` (one the TaskManagers read at the same path) gets the warm-up's CSV file,
        which its jobs read as a lab's do; without it they read datagen rows."""
        from flinklab.gateway.warmup import WARM_UP_FILE, warm_up_rows
        from flinklab.sqlclient.protocol import GatewayError

        try:
            if cluster_rest(rest_url, self.settings.state_dir).jobs():
                return "warm"
        except RestUnavailable:
            return "unavailable"
        csv_path = None
        if data_dir is not None:
            path = data_dir / WARM_UP_FILE
            with contextlib.suppress(OSError):  # an unwritable data dir warms up on datagen rows
                if not path.is_file() or path.read_text() != warm_up_rows():
                    path.write_text(warm_up_rows())
                csv_path = str(path)
        client = self._client()
        try:
            return str(client.warm_up(csv_path=csv_path).get("state", "unavailable"))
        except (FlinklabError, GatewayError, OSError, ValueError, AttributeError):
            return "unavailable"
        finally:
            client.close()

    def wait_warm(self, timeout: float) -> str:
        """Until the gateway has ended the cluster's warm-up (its tiny jobs, which also plan a streaming and a batch
        query), at most `timeout` seconds: the first statement after flink-up then meets a warm TaskManager and
        planner. The rest of the planner's warm-up (the window, Top-N and join plans) goes on in the background,
        giving way to every statement that comes (warmup.Traffic): it ends about a second later, long before a
        learner's first window query. Returns the cluster warm-up's last state ("done", "failed", "running" when
        the timeout came first, "unavailable" when the gateway cannot be asked); never raises for a warm-up (a
        nicety: a cold cluster is slower, not broken)."""
        from flinklab.sqlclient.protocol import GatewayError

        client = self._client()
        state = "unavailable"

        def ended() -> str | None:
            nonlocal state
            state = str(client.warm_up(start=False).get("state", "unavailable"))
            return None if state == "running" else state

        try:
            return Wait("the warm-ups to end", timeout).poll(ended) or state
        except (FlinklabError, GatewayError, OSError, ValueError, AttributeError):
            return state if state != "running" else "unavailable"
        finally:
            client.close()

    def _client(self):  # noqa: ANN202 - a flinklab.sqlclient.protocol.GatewayClient (imported when asked)
        from flinklab.sqlclient.protocol import GatewayClient

        return GatewayClient(self.settings.gateway_url, timeout=5.0, token=lambda: read_token(self.settings.state_dir))


def _spawn(settings: Settings, rest_url: str | None) -> subprocess.Popen:
    """The gateway process, started (its port checked free first)."""
    from flinklab.gateway.java_shim import NO_JAVA_HINT, docker_cli

    if host_java() is None and docker_cli() is None:  # the rest (engine, image) is checked where the JVM starts
        raise ClusterError("No Java to run the SQL gateway, and no Docker either.", NO_JAVA_HINT)
    if not port_is_free(settings.bind_host, settings.gateway_port):
        raise ClusterError(
            f"The SQL gateway's port {settings.gateway_port} on {settings.bind_host} is taken by another program.",
            "Stop it, or choose another port: flink-up --gateway-port P (or FLINKLAB_GATEWAY_PORT).",
        )
    log = log_file(settings)
    log.parent.mkdir(parents=True, exist_ok=True)
    write_token(settings.state_dir)  # a new one each start: the process reads it from the state dir, never argv
    args = [sys.executable, "-m", _MODULE, "--host", settings.bind_host, "--port", str(settings.gateway_port),
            "--state-dir", str(settings.state_dir), *(["--rest-url", rest_url] if rest_url else [])]
    # the cache dir holds its JVM's class-data archive (flinklab/gateway/jvm_archive.py): these settings', not the
    # env's
    env = {**os.environ, "FLINKLAB_CACHE_DIR": str(settings.cache_dir)}
    with open(log, "ab") as out:
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True, close_fds=True, env=env)
    try:
        pid_file(settings).write_text(f"{proc.pid}\n")
    except BaseException:  # Ctrl-C or a full disk: a gateway nobody can find must not be left running
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise
    return proc


#: The sink of a query's job: only the gateway that submitted it can fetch its rows.
_COLLECT_SINK = "Collect table sink"


def cancel_orphaned_queries(rest_url: str, state_dir: Path) -> list[str]:
    """Cancel the running query jobs (collect sink) on the cluster at `rest_url`; call it only when the gateway
    that submitted them is dead (its replacement cannot fetch their rows, so they would run, or wait for a
    reader, forever). INSERT jobs are left alone: they write their sink without any client. Returns the job ids
    cancelled; a cluster that does not answer cancels nothing."""
    import urllib.request

    rest = cluster_rest(rest_url, state_dir)
    cancelled = []
    try:
        jobs = [job for job in rest.jobs() if job.state in ("CREATED", "INITIALIZING", "RUNNING", "RESTARTING")]
        for job in jobs:
            vertices = rest.job(job.job_id).get("vertices") or []
            if not any(_COLLECT_SINK in str(v.get("name", "")) for v in vertices):
                continue
            request = urllib.request.Request(f"{rest.base_url}/jobs/{job.job_id}?mode=cancel", method="PATCH")
            with contextlib.suppress(OSError):
                urllib.request.urlopen(request, timeout=rest.timeout, context=rest.ssl_context).close()
                cancelled.append(job.job_id)
    except RestUnavailable:
        pass
    return cancelled
