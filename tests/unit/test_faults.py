"""The fault machinery without a cluster: the state-dir lock, process ownership against real unrelated processes,
and the watch that aborts the client's calls when the cluster stops answering. (The faults themselves, against a real
cluster, are in test_faults_live.py.)"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from helpers.env import free_port

from flinklab.cluster.local import find_ours, is_ours
from flinklab.environment import gateway
from flinklab.environment.lifecycle import WAITING_MESSAGE, lock_file, state_lock
from flinklab.errors import ClusterError, NoClusterError
from flinklab.settings import Settings
from flinklab.sqlclient.protocol import GatewayClient
from flinklab.sqlclient.watch import ClusterWatch

REPO = Path(__file__).resolve().parent.parent.parent

HOLD = """
import sys, time
sys.path.insert(0, {repo!r})
sys.path.insert(0, {tests!r})
from pathlib import Path
from helpers.env import make_settings
from flinklab.environment.lifecycle import state_lock
settings = make_settings(Path({root!r}))
with state_lock(settings, print):
    print("holding", flush=True)
    time.sleep({seconds})
    Path({done!r}).write_text("released")
"""


def hold_lock(settings: Settings, seconds: float, done: Path) -> subprocess.Popen:
    """Another process holding the state dir's lock for `seconds` (it writes `done` just before releasing)."""
    code = HOLD.format(repo=str(REPO), tests=str(REPO / "tests"), root=str(settings.state_dir.parent),
                       seconds=seconds, done=str(done))
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "holding"
    return proc


def test_a_second_holder_says_it_waits_then_gets_the_lock(tmp_settings: Settings, tmp_path: Path) -> None:
    done = tmp_path / "done"
    holder = hold_lock(tmp_settings, 2, done)
    heard: list[str] = []
    with state_lock(tmp_settings, heard.append):
        assert done.read_text() == "released"  # only after the other one let go
    assert heard == [WAITING_MESSAGE]
    holder.wait(10)
    with state_lock(tmp_settings, heard.append):  # free now: no message
        pass
    assert heard == [WAITING_MESSAGE]


def test_a_lock_held_too_long_names_its_holder(tmp_settings: Settings, tmp_path: Path) -> None:
    holder = hold_lock(tmp_settings, 30, tmp_path / "done")
    try:
        with pytest.raises(ClusterError, match=f"pid {holder.pid}"), state_lock(tmp_settings, print, timeout=0.5):
            pass
    finally:
        holder.kill()
        holder.wait()
    assert lock_file(tmp_settings).exists()


def test_an_unwritable_state_dir_is_one_line(tmp_path: Path, tmp_settings: Settings) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a dir")
    settings = tmp_settings.with_overrides(state_dir=blocker / "state")
    with pytest.raises(ClusterError, match="is not writable"), state_lock(settings, print):
        pass


def test_a_process_that_names_our_files_is_not_ours(tmp_settings: Settings) -> None:
    """`tail -f` of our config and of the gateway's log name the state dir, but are never ours to signal."""
    conf_dir = tmp_settings.state_dir / "local" / "conf"
    conf_dir.mkdir(parents=True)
    (conf_dir / "config.yaml").write_text("rest.port: 1\n")
    gateway.log_file(tmp_settings).parent.mkdir(parents=True)
    gateway.log_file(tmp_settings).write_text("")
    tail = subprocess.Popen(["tail", "-f", str(conf_dir / "config.yaml"), str(gateway.log_file(tmp_settings)),
                             "--", str(conf_dir), str(tmp_settings.state_dir)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.2)
        assert tail.poll() is None
        assert not is_ours(tail.pid, conf_dir) and tail.pid not in find_ours(conf_dir)
        gateway.pid_file(tmp_settings).write_text(f"{tail.pid}\n")
        assert gateway.running_pid(tmp_settings) is None and tail.pid not in gateway._strays(tmp_settings)
        assert gateway.stop(tmp_settings) is False
        assert tail.poll() is None
    finally:
        tail.kill()
        tail.wait()


class Recorder(BaseHTTPRequestHandler):
    """A local HTTP server that answers `{}` to everything and records what it was asked."""

    seen: list[tuple[str, str]] = []

    def _answer(self) -> None:
        self.seen.append((self.command, self.path))
        body = json.dumps({}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_DELETE = do_POST = _answer

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def answering() -> object:
    Recorder.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_the_watch_fires_on_any_thread_when_the_cluster_stops_answering() -> None:
    gone: list[str] = []
    watch = ClusterWatch(f"http://127.0.0.1:{free_port()}",
                         on_gone=lambda: gone.append(threading.current_thread().name))

    def step() -> None:  # a step of a parallel run: not the main thread
        with watch:
            deadline = time.monotonic() + 60
            while not gone and time.monotonic() < deadline:
                time.sleep(0.1)

    worker = threading.Thread(target=step)
    worker.start()
    worker.join(70)
    assert watch.gone and gone == ["flinklab-cluster-watch"]


def test_the_watch_stays_quiet_while_the_cluster_answers(answering: str) -> None:
    with ClusterWatch(answering, on_gone=lambda: pytest.fail("fired")) as watch:
        time.sleep(ClusterWatch.POLL_SECONDS * (ClusterWatch.MISSES + 1))
    assert not watch.gone and ("GET", "/config") in Recorder.seen


def test_an_aborted_client_refuses_its_next_call_but_still_cleans_up(answering: str) -> None:
    api = GatewayClient(answering)
    api.info()
    api.abort(lambda: NoClusterError("http://127.0.0.1:1"))
    for call in (api.info, lambda: api.execute("s", "SELECT 1"), lambda: api.fetch("/v3/sessions/s/x")):
        with pytest.raises(NoClusterError):
            call()
    api.close_operation("s", "o")  # closing cancels the operation's job: it still goes out
    api.close_session("s")
    api.close()
    assert Recorder.seen == [("GET", "/v3/info"), ("DELETE", "/v3/sessions/s/operations/o/close"),
                             ("DELETE", "/v3/sessions/s")]


def test_the_watch_stays_quiet_when_no_url_is_known() -> None:
    with ClusterWatch(None) as watch:
        time.sleep(ClusterWatch.POLL_SECONDS * (ClusterWatch.MISSES + 1))
    assert not watch.gone
