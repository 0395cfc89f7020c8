"""`flink-up --backend remote` refusals that need no Flink, and the attached record's status/down/logs.

The endpoints are real HTTP servers on 127.0.0.1 (http.server in a thread), not mocks of Flink's code: one answers
GET /config with another Flink version, as a Flink 1.20 JobManager does; others answer as a non-Flink service
would (404, an HTML page, JSON without a version); one answers like Flink with no TaskManager registered. The
cases that need a real cluster (attach, run, check, detach; a data dir the TaskManagers cannot read) are in
tests/test_remote_live.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.env import free_port
from helpers.standin import serve
from typer.testing import CliRunner

from flinklab.cli.app import app
from flinklab.cli.cluster import down_app, up_app
from flinklab.cluster.base import ClusterRecord, read_record, write_record
from flinklab.cluster.remote import RemoteBackend, RemoteDetails, parse_rest_url
from flinklab.errors import UsageError
from flinklab.settings import Settings
from flinklab.version import FLINK_VERSION

runner = CliRunner()


def flink_like(version: str, taskmanagers: int = 1) -> dict[str, tuple[int, str, bytes]]:
    """What a Flink JobManager answers on /config and /overview (the fields flinklab reads)."""
    config = {"refresh-interval": 3000, "flink-version": version, "flink-revision": "x", "features": {}}
    overview = {"taskmanagers": taskmanagers, "slots-total": 4 * taskmanagers, "slots-available": 4 * taskmanagers,
                "jobs-running": 0, "jobs-finished": 0, "jobs-cancelled": 0, "jobs-failed": 0,
                "flink-version": version}
    as_json = "application/json"
    return {"/config": (200, as_json, json.dumps(config).encode()),
            "/overview": (200, as_json, json.dumps(overview).encode())}


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), "FLINKLAB_STATE_DIR": str(tmp_path / "state"),
            "FLINKLAB_DATA_DIR": str(tmp_path / "data"), "FLINKLAB_WORKSPACE": str(tmp_path / "ws"),
            "FLINKLAB_REST_PORT": str(free_port()), "FLINKLAB_BACKEND": "", "FLINKLAB_REST_URL": "",
            "FLINKLAB_GATEWAY_PORT": "0"}  # no SQL gateway: these tests are about attaching


def attach(env: dict[str, str], url: str):
    return runner.invoke(up_app, ["--backend", "remote", "--rest-url", url], env=env)


def assert_refused(result, env: dict[str, str], *fragments: str) -> None:
    """Exit 2, one error line on stderr naming what is wrong, no traceback, no record."""
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert "Traceback" not in result.output
    assert not (Path(env["FLINKLAB_STATE_DIR"]) / "cluster.json").exists()


def test_version_mismatch_names_both_versions(env: dict) -> None:
    with serve(flink_like("1.20.1")) as url:
        result = attach(env, url)
        assert_refused(result, env, url, "runs Flink 1.20.1", f"flinklab needs Flink {FLINK_VERSION}")


def test_nothing_listening(env: dict) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    assert_refused(attach(env, url), env, f"Nothing answers at {url}", "--rest-url")


@pytest.mark.parametrize(
    ("routes", "why"),
    [
        ({}, "GET /config answered HTTP 404"),
        ({"/config": (200, "text/html", b"<html><body>Jenkins</body></html>")}, "did not answer JSON"),
        ({"/config": (200, "application/json", b'{"version": "3.1"}')}, "names no flink-version"),
    ],
)
def test_a_url_that_is_not_flink(env: dict, routes: dict, why: str) -> None:
    with serve(routes) as url:
        assert_refused(attach(env, url), env, f"{url} answers, but it is not a Flink REST endpoint", why)


def test_flink_without_taskmanagers(env: dict) -> None:
    with serve(flink_like(FLINK_VERSION, taskmanagers=0)) as url:
        assert_refused(attach(env, url), env, f"No TaskManager is registered with the cluster at {url}")


@pytest.mark.parametrize("url", ["https://flink.example:8081", "ftp://x:1", "http://h:8081/flink", "http://:8081",
                                 "http://h:99999"])
def test_a_url_flinklab_cannot_use(env: dict, url: str) -> None:
    assert_refused(attach(env, url), env, repr(url))
    with pytest.raises(UsageError):
        parse_rest_url(url)


def test_url_forms_it_takes() -> None:
    assert parse_rest_url("http://10.0.0.5:30081") == ("10.0.0.5", 30081)
    assert parse_rest_url("http://flink.lab/") == ("flink.lab", 8081)


def test_remote_without_a_url_and_rest_url_with_another_backend(env: dict) -> None:
    result = runner.invoke(up_app, ["--backend", "remote"], env=env)
    assert_refused(result, env, "needs the address of the cluster")
    result = runner.invoke(up_app, ["--backend", "local", "--rest-url", "http://h:1"], env=env)
    assert_refused(result, env, "--rest-url is for --backend remote")


# ------------------------------------------------------------------------------- an attached record


def _attached(env: dict[str, str], url: str) -> Settings:
    settings = Settings.from_env(env)
    host, port = parse_rest_url(url)
    write_record(settings, ClusterRecord(
        backend="remote", rest_host=host, rest_port=port, taskmanagers=1, slots=4, flink_version=FLINK_VERSION,
        data_dir=str(settings.data_dir), workspace_root=str(settings.workspace_root),
        details=RemoteDetails(attached_at="2026-12-01T00:00:00+00:00")))
    return settings


def test_status_down_and_logs_of_an_attached_cluster(env: dict) -> None:
    with serve(flink_like(FLINK_VERSION)) as url:
        settings = _attached(env, url)
        status = runner.invoke(app, ["status"], env=env)
        assert status.exit_code == 0, status.output
        assert "running, remote (attached)" in status.output and url in status.output
        logs = runner.invoke(app, ["logs"], env=env)
        assert logs.exit_code == 2 and "Traceback" not in logs.output
        assert logs.stderr.strip().splitlines() == [logs.stderr.strip()]
        assert f"The logs of a remote cluster are in its own Web UI: {url}" in logs.stderr
        again = attach(env, url)  # attached already: the checks run again, nothing changes
        assert again.exit_code == 0 and "already running" in again.output, again.output
        other = attach(env, f"http://127.0.0.1:{free_port()}")
        assert other.exit_code == 2 and f"Already attached to the cluster at {url}" in other.stderr
        down = runner.invoke(down_app, [], env=env)
        assert down.exit_code == 0
        assert f"detached from the remote cluster at {url} (it keeps running)" in " ".join(down.output.split())
        assert read_record(settings) is None
        assert runner.invoke(down_app, [], env=env).output.strip() == "no flinklab cluster is running: nothing to stop"


def test_status_when_the_attached_cluster_is_gone(env: dict) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    _attached(env, url)
    status = runner.invoke(app, ["status", "--json"], env=env)
    assert status.exit_code == 1
    data = json.loads(status.stdout)
    assert (data["backend"], data["attached"], data["running"]) == ("remote", True, False)
    assert data["problems"] == [f"the remote cluster at {url} does not answer"]


def test_auto_with_flinklab_rest_url_attaches(env: dict) -> None:
    with serve(flink_like("1.19.0")) as url:
        result = runner.invoke(up_app, [], env={**env, "FLINKLAB_REST_URL": url})
        assert "backend: remote" in result.stdout
        assert_refused(result, env, "runs Flink 1.19.0")


def test_usable_only_with_a_url(tmp_path: Path) -> None:
    settings = Settings.from_env({"HOME": str(tmp_path)})
    assert RemoteBackend.usable(settings)[0] is False
    assert RemoteBackend.usable(settings.with_overrides(remote_url="http://h:1"))[0] is True
