"""The cluster commands' argument handling and their no-cluster paths (CliRunner; no JVM is started)."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from flinklab.cli import app
from flinklab.cli.cluster import down_app, up_app
from flinklab.cluster.base import ClusterRecord, read_record, write_record
from flinklab.cluster.local import LocalBackend, parse_java_major, select_components
from flinklab.cluster.select import backend_for, recorded_backend
from flinklab.errors import UsageError
from flinklab.labs.provision import provision_data
from flinklab.settings import Settings

runner = CliRunner()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """Environment for a CLI run that touches only temporary dirs and a port where nothing answers."""
    return {
        "HOME": str(tmp_path / "home"),
        "FLINKLAB_STATE_DIR": str(tmp_path / "state"),
        "FLINKLAB_DATA_DIR": str(tmp_path / "data"),
        "FLINKLAB_WORKSPACE": str(tmp_path / "ws"),
        "FLINKLAB_REST_PORT": str(free_port()),
        "FLINKLAB_BACKEND": "",
    }


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["up", "--help"], ["--backend", "--taskmanagers", "--slots", "--port", "--data-dir", "--workspace"]),
        (["down", "--help"], ["Stop"]),
        (["status", "--help"], ["--json"]),
        (["logs", "--help"], ["--follow", "COMPONENT"]),
    ],
)
def test_help_of_each_command(argv: list[str], words: list[str]) -> None:
    result = runner.invoke(app, argv)
    assert result.exit_code == 0, result.output
    for word in words:
        assert word in result.output


def test_flink_up_and_flink_down_apps_have_the_same_options() -> None:
    up = runner.invoke(up_app, ["--help"], prog_name="flink-up")
    assert up.exit_code == 0 and "--taskmanagers" in up.output and "--port" in up.output
    down = runner.invoke(down_app, ["--help"], prog_name="flink-down")
    assert down.exit_code == 0 and "Stop" in down.output


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["up", "--backend", "kubernetes"], "Unknown backend 'kubernetes'"),
        (["up", "--port", "abc"], "--port must be a whole number"),
        (["up", "--port", "70000"], "REST port 70000 is out of range"),
        (["up", "--taskmanagers", "0"], "at least 1 TaskManager"),
        (["up", "--slots", "two"], "--slots must be a whole number"),
    ],
)
def test_bad_up_options_give_one_line_and_exit_2(env: dict, argv: list[str], fragment: str) -> None:
    result = runner.invoke(app, argv, env=env)
    assert result.exit_code == 2, result.output
    assert fragment in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert not (Path(env["FLINKLAB_STATE_DIR"]) / "cluster.json").exists()


def test_flink_up_app_rejects_a_bad_port_the_same_way(env: dict) -> None:
    result = runner.invoke(up_app, ["--port", "x"], env=env, prog_name="flink-up")
    assert result.exit_code == 2
    assert "--port must be a whole number" in result.output and "Traceback" not in result.output


def test_bad_environment_value_is_one_line(env: dict) -> None:
    result = runner.invoke(app, ["status"], env={**env, "FLINKLAB_REST_PORT": "eighty"})
    assert result.exit_code == 2
    assert "FLINKLAB_REST_PORT='eighty' is not a whole number" in result.output


def test_down_with_nothing_running_is_a_clear_no_op(env: dict) -> None:
    for target, argv in ((app, ["down"]), (down_app, [])):
        result = runner.invoke(target, argv, env=env)
        assert result.exit_code == 0, result.output
        assert "nothing to stop" in result.output


def test_status_with_nothing_running(env: dict) -> None:
    result = runner.invoke(app, ["status"], env=env)
    assert result.exit_code == 1
    assert "no cluster started by flinklab" in result.output
    assert env["FLINKLAB_STATE_DIR"] in result.output
    result = runner.invoke(app, ["status", "--json"], env=env)
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert data["running"] is False and data["backend"] == "none"
    assert data["rest_url"] == f"http://127.0.0.1:{env['FLINKLAB_REST_PORT']}"


def test_status_of_a_recorded_cluster_whose_processes_are_gone(env: dict) -> None:
    settings = Settings.from_env(env)
    write_record(settings, ClusterRecord(
        backend="local", rest_host="127.0.0.1", rest_port=settings.rest_port, taskmanagers=1, slots=4,
        flink_version="2.2.1", data_dir=str(settings.data_dir), workspace_root=str(settings.workspace_root),
        details={"jobmanager": {"pid": 2**22 + 1}, "taskmanagers": {"taskmanager-1": {"pid": 2**22 + 2}}},
    ))
    result = runner.invoke(app, ["status"], env=env)
    assert result.exit_code == 1
    assert "the JobManager is not running" in result.output
    assert "TaskManager taskmanager-1" in result.output
    # down on a dead record: nothing to stop, record removed
    result = runner.invoke(app, ["down"], env=env)
    assert result.exit_code == 0 and "nothing to stop" in result.output
    assert read_record(settings) is None


def test_logs_with_no_cluster_ever_started(env: dict) -> None:
    result = runner.invoke(app, ["logs"], env=env)
    assert result.exit_code == 2
    assert "No cluster logs" in result.output and "Traceback" not in result.output


def test_logs_prints_the_selected_component(env: dict) -> None:
    settings = Settings.from_env(env)
    logs = settings.state_dir / "local" / "log"
    for name, text in (("jobmanager", "JM says hello"), ("taskmanager-1", "TM one"), ("taskmanager-2", "TM two")):
        (logs / name).mkdir(parents=True)
        (logs / name / f"flink-flinklab-{name}-0-host.log").write_text(f"{text}\n")
    result = runner.invoke(app, ["logs", "tm2"], env=env)
    assert result.exit_code == 0, result.output
    assert result.output == "TM two\n"
    result = runner.invoke(app, ["logs"], env=env)
    assert "JM says hello" in result.output and "TM one" in result.output and "==> taskmanager-2" in result.output
    result = runner.invoke(app, ["logs", "historyserver"], env=env)
    assert result.exit_code == 2 and "Components: jobmanager, taskmanager-1, taskmanager-2" in result.output


def test_select_components() -> None:
    files = {n: Path(n) for n in ("jobmanager", "taskmanager-1", "taskmanager-2")}
    assert list(select_components(files, None)) == list(files)
    assert list(select_components(files, "jm")) == ["jobmanager"]
    assert list(select_components(files, "taskmanager")) == ["taskmanager-1", "taskmanager-2"]
    assert list(select_components(files, "taskmanager-2")) == ["taskmanager-2"]
    with pytest.raises(UsageError):
        select_components(files, "tm3")


@pytest.mark.parametrize(
    ("text", "major"),
    [
        ('openjdk version "17.0.15" 2025-04-15', 17),
        ('openjdk version "11.0.2" 2019-01-15', 11),
        ('java version "1.8.0_392"', 8),
        ('openjdk version "21" 2023-09-19', 21),
        ("no version here", None),
    ],
)
def test_parse_java_major(text: str, major: int | None) -> None:
    assert parse_java_major(text) == major


def test_backend_selection(env: dict) -> None:
    settings = Settings.from_env(env)
    backend, reason = backend_for(settings.with_overrides(backend="local"))
    assert backend.name == "local" and "--backend local" in reason
    backend, reason = backend_for(settings)  # auto: docker if usable, else local with the reason
    assert backend.name in ("local", "docker") and reason
    assert recorded_backend(settings) is None
    write_record(settings, ClusterRecord(
        backend="local", rest_host="127.0.0.1", rest_port=settings.rest_port, taskmanagers=1, slots=4,
        flink_version="2.2.1", data_dir="", workspace_root="",
    ))
    backend, reason = backend_for(settings)
    assert isinstance(backend, LocalBackend) and "recorded" in reason
    assert isinstance(recorded_backend(settings), LocalBackend)


def test_provision_copies_fixtures_once(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / "fixtures").mkdir(parents=True)
    (project / "fixtures" / "a.csv").write_text("1,x\n")
    (project / "fixtures" / "notes.txt").write_text("not data\n")
    settings = Settings.from_env({"HOME": str(tmp_path)}, project_root=project, data_dir=tmp_path / "d" / "data")
    assert provision_data(settings) == [tmp_path / "d" / "data" / "a.csv"]
    assert (tmp_path / "d" / "data" / "a.csv").read_text() == "1,x\n"
    assert not (tmp_path / "d" / "data" / "notes.txt").exists()
    assert provision_data(settings) == []  # identical: skipped
    (project / "fixtures" / "a.csv").write_text("2,y\n")
    assert provision_data(settings) == [tmp_path / "d" / "data" / "a.csv"]


def test_provision_into_an_unwritable_dir_says_how_to_choose_another(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the data dir's parent should be")
    settings = Settings.from_env({"HOME": str(tmp_path)}, data_dir=blocker / "data")
    with pytest.raises(UsageError) as info:
        provision_data(settings)
    assert "not writable" in info.value.message
    assert "FLINKLAB_DATA_DIR" in info.value.hint and "--data-dir" in info.value.hint
