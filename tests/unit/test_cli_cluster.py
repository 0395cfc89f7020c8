"""The cluster commands' argument handling and their no-cluster paths (CliRunner; no JVM is started)."""

from __future__ import annotations

import json
import socket
from dataclasses import asdict
from pathlib import Path

import pytest
import typer.main
from helpers.env import free_port
from typer.testing import CliRunner

from flinklab.cli.app import app
from flinklab.cli.cluster import down_app, up_app
from flinklab.cluster.base import (
    ClusterRecord,
    RecordUnreadable,
    read_record,
    record_path,
    select_components,
    write_record,
)
from flinklab.cluster.docker import DockerBackend, DockerDetails
from flinklab.cluster.docker_spec import component_of
from flinklab.cluster.local import LocalDetails
from flinklab.environment.provision import provision_data
from flinklab.errors import ClusterError, UsageError
from flinklab.flink.java import parse_java_major
from flinklab.settings import Settings

runner = CliRunner()


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """Environment for a CLI run that touches only temporary dirs and a port where nothing answers."""
    return {
        "HOME": str(tmp_path / "home"),
        "FLINKLAB_STATE_DIR": str(tmp_path / "state"),
        "FLINKLAB_DATA_DIR": str(tmp_path / "data"),
        "FLINKLAB_WORKSPACE": str(tmp_path / "ws"),
        "FLINKLAB_REST_PORT": str(free_port()),
        "FLINKLAB_GATEWAY_PORT": str(free_port()),
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


def _options(command) -> set[str]:
    return {opt for param in command.params for opt in param.opts}


def test_flink_up_and_flink_down_apps_have_the_same_options() -> None:
    commands = typer.main.get_command(app).commands
    up_options = _options(typer.main.get_command(up_app))
    assert up_options == _options(commands["up"])
    assert {"--backend", "--taskmanagers", "--slots", "--port", "--data-dir", "--workspace"} <= up_options
    assert _options(typer.main.get_command(down_app)) == _options(commands["down"])
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
        details=LocalDetails(conf_dir=str(settings.state_dir / "local" / "conf"), log_dir="", flink_home="",
                             rpc_port=1, jobmanager_pid=2**22 + 1, taskmanager_pids={"taskmanager-1": 2**22 + 2}),
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


def _record(settings: Settings, backend: str) -> ClusterRecord:
    details = {"local": LocalDetails(conf_dir="", log_dir="", flink_home="", rpc_port=1),
               "docker": DockerDetails(project="p", network="p_default", jobmanager="p-jobmanager-1")}[backend]
    return ClusterRecord(backend=backend, rest_host="127.0.0.1", rest_port=settings.rest_port, taskmanagers=1,
                         slots=4, flink_version="2.2.1", data_dir="", workspace_root="", details=details)


# ------------------------------------------------------------------------- an unreadable cluster record


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("[]", "a JSON list, not an object"),
        ('{"backend": "local"}', "missing"),
        ("{not json", "Expecting property name"),
        ("OLD", "unknown cluster_id"),
        ("PORT", "wrong type of rest_port"),
    ],
)
def test_unreadable_record_is_a_clear_error(env: dict, text: str, why: str) -> None:
    settings = Settings.from_env(env)
    good = asdict(_record(settings, "local"))
    if text == "OLD":  # an older/newer version's record: a field this version does not know
        text = json.dumps({**good, "cluster_id": "x"})
    elif text == "PORT":
        text = json.dumps({**good, "rest_port": "8081"})
    path = record_path(settings)
    path.parent.mkdir(parents=True)
    path.write_text(text)
    with pytest.raises(RecordUnreadable) as info:
        read_record(settings)
    assert str(path) in info.value.message and why in info.value.message
    assert "flink-down" in info.value.hint and str(path) in info.value.hint


def test_commands_on_an_unreadable_record(env: dict, tmp_path: Path) -> None:
    settings = Settings.from_env(env)
    path = record_path(settings)
    path.parent.mkdir(parents=True)
    path.write_text('{"backend": "local"}')
    for argv in (["status"], ["up", "--backend", "local"], ["logs"]):
        result = runner.invoke(app, argv, env=env)
        assert result.exit_code == 2, (argv, result.output)
        assert "unreadable" in result.output and "Traceback" not in result.output, result.output
        assert path.exists()
    # flink-down cleans up what it can without the record (no engine here: DOCKER_HOST points at nothing)
    no_engine = {**env, "DOCKER_HOST": f"unix://{_closed_socket(tmp_path)}"}
    result = runner.invoke(down_app, [], env=no_engine)
    assert result.exit_code == 0, result.output
    assert f"removed the unreadable cluster record {path}" in " ".join(result.output.split())
    assert "nothing to stop" in result.output
    assert not path.exists()
    again = runner.invoke(app, ["down"], env=no_engine)
    assert again.output.strip() == "no flinklab cluster is running: nothing to stop"


# --------------------------------------------------------------------- the docker backend without an engine


def _closed_socket(tmp_path: Path) -> Path:
    """A unix socket file nothing listens on (connecting is refused), like a stopped Docker daemon's."""
    path = tmp_path / "docker.sock"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(path))
    return path


def test_docker_engine_that_does_not_answer_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"unix://{_closed_socket(tmp_path)}")
    settings = Settings.from_env({"HOME": str(tmp_path)}, state_dir=tmp_path / "state", rest_port=free_port())
    backend = DockerBackend(settings)
    with pytest.raises(ClusterError, match="The Docker engine does not answer"):
        backend.down()
    st = backend.status()
    assert not st.running and any("The Docker engine does not answer" in p for p in st.problems)


def test_docker_engine_lost_after_connecting_is_a_clear_error(tmp_path: Path) -> None:
    """A client that skipped the ping (as after an engine restart mid-command): every public method → ClusterError."""
    import docker

    client = docker.DockerClient(base_url=f"unix://{_closed_socket(tmp_path)}", version="1.41")
    settings = Settings.from_env({"HOME": str(tmp_path)}, state_dir=tmp_path / "state", data_dir=tmp_path / "data",
                                 workspace_root=tmp_path / "ws", rest_port=free_port())
    backend = DockerBackend(settings, client=client)
    with pytest.raises(ClusterError, match="The Docker engine failed while removing the cluster"):
        backend.down()
    with pytest.raises(ClusterError, match="The Docker engine failed while starting the cluster"):
        backend.up()
    assert read_record(settings) is None
    with pytest.raises(ClusterError, match="The Docker engine failed while reading the logs"):
        list(backend.follow_logs(None, follow=False))
    st = backend.status()
    assert not st.running and any("failed while listing the containers" in p for p in st.problems)
    assert backend.name_taskmanagers("lost 172.19.0.3:41029") == "lost 172.19.0.3:41029"


def test_docker_components_are_named_like_local_ones() -> None:
    from docker.models.containers import Container

    def container(name: str, component: str, index: int) -> Container:
        labels = {"io.flinklab.component": component, "io.flinklab.index": str(index)}
        return Container(attrs={"Name": f"/{name}", "Config": {"Labels": labels}})

    containers = [container("p-jobmanager-1", "jobmanager", 1), container("p-taskmanager-1", "taskmanager", 1),
                  container("p-taskmanager-2", "taskmanager", 2)]
    by_component = {component_of(c): c for c in containers}
    assert list(by_component) == ["jobmanager", "taskmanager-1", "taskmanager-2"]
    assert [c.name for c in select_components(by_component, "tm2").values()] == ["p-taskmanager-2"]
    assert [c.name for c in select_components(by_component, "jm").values()] == ["p-jobmanager-1"]
    with pytest.raises(UsageError):  # was read as taskmanager 1 (its digit) before
        select_components(by_component, "jobmanager-1")


def test_provision_copies_fixtures_once(tmp_path: Path) -> None:
    source = tmp_path / "lab" / "a.csv"
    source.parent.mkdir()
    source.write_text("1,x\n")
    (tmp_path / "lab" / "notes.txt").write_text("not data\n")
    settings = Settings.from_env({"HOME": str(tmp_path)}, data_dir=tmp_path / "d" / "data")
    assert provision_data(settings, [source]) == [tmp_path / "d" / "data" / "a.csv"]
    assert (tmp_path / "d" / "data" / "a.csv").read_text() == "1,x\n"
    assert not (tmp_path / "d" / "data" / "notes.txt").exists()  # only the files given
    assert provision_data(settings, [source]) == []  # identical: skipped
    source.write_text("2,y\n")
    assert provision_data(settings, [source]) == [tmp_path / "d" / "data" / "a.csv"]


def test_provision_into_an_unwritable_dir_says_how_to_choose_another(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the data dir's parent should be")
    settings = Settings.from_env({"HOME": str(tmp_path)}, data_dir=blocker / "data")
    with pytest.raises(UsageError) as info:
        provision_data(settings, [])
    assert "not writable" in info.value.message
    assert "FLINKLAB_DATA_DIR" in info.value.hint and "--data-dir" in info.value.hint


def test_the_backend_line_is_one_calm_line_and_verbose_adds_the_detail(capsys: pytest.CaptureFixture) -> None:
    """auto's fallback says why in one line; the engine's own words (a registry's DNS error) only with --verbose."""
    from flinklab.cli.cluster import render_backend

    message = ("backend: local (Docker cannot pull the Flink image)\nflink:2.2.1-scala_2.12-java17 is not present and "
               "cannot be pulled: Get \"https://registry-1.docker.io/v2/\": dial tcp: lookup registry-1.docker.io: no "
               "such host")
    render_backend(message, verbose=False)
    calm = capsys.readouterr().out
    assert calm == "backend: local (Docker cannot pull the Flink image; --verbose says why)\n"
    render_backend(message, verbose=True)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "backend: local (Docker cannot pull the Flink image)"
    assert lines[1].startswith("  · flink:2.2.1-scala_2.12-java17 is not present") and "no such host" in lines[1]
    render_backend("backend: local (--backend local was asked for)", verbose=False)  # no detail: nothing added
    assert capsys.readouterr().out == "backend: local (--backend local was asked for)\n"


def test_up_has_a_verbose_option() -> None:
    result = runner.invoke(up_app, ["--help"], prog_name="flink-up")
    assert result.exit_code == 0 and "--verbose" in result.output
