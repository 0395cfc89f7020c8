"""The backend registry, backend selection, the typed cluster record and the `up` use case (hermetic: no JVM, no
Docker engine; where a Docker engine is asked, DOCKER_HOST points at a socket nothing listens on)."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import ClassVar

import pytest
from helpers.env import free_port
from typer.testing import CliRunner

import flinklab.settings
from flinklab.cli.app import app
from flinklab.cluster import registry
from flinklab.cluster.base import (
    BackendDetails,
    ClusterBackend,
    ClusterRecord,
    ClusterStatus,
    RecordUnreadable,
    UpResult,
    read_record,
    record_path,
    remove_record,
    write_record,
)
from flinklab.cluster.docker import DockerDetails
from flinklab.cluster.local import LocalDetails
from flinklab.cluster.progress import Progress
from flinklab.cluster.remote import RemoteDetails
from flinklab.environment.select import backend_for, recorded_backend
from flinklab.errors import ClusterError, UsageError
from flinklab.settings import ENV_VARS, Settings
from flinklab.usecases.cluster import BackendChosen, DataCopied, bring_down, bring_up

PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent  # the checkout

runner = CliRunner()
FLINKLAB = PROJECT_ROOT / "flinklab"


@pytest.fixture
def no_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """DOCKER_HOST at a unix socket nothing listens on (a stopped Docker daemon): docker is not usable."""
    path = tmp_path / "docker.sock"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(path))
    monkeypatch.setenv("DOCKER_HOST", f"unix://{path}")
    return str(path)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings.from_env({"HOME": str(tmp_path / "home")}, state_dir=tmp_path / "state",
                             data_dir=tmp_path / "data", workspace_root=tmp_path / "ws", rest_port=free_port())


# ------------------------------------------------------------------------------------ the interface is honest


def _interface_members() -> set[str]:
    """Every attribute and method ClusterBackend declares (besides the constructor)."""
    declared = set(ClusterBackend.__annotations__) | {
        name for name, value in vars(ClusterBackend).items() if callable(value) or isinstance(value, classmethod)
    }
    return {name for name in declared if not name.startswith("_")}


def test_the_registry_lists_the_backends_in_autos_order() -> None:
    assert registry.backend_names() == ("remote", "docker", "local")
    for name in registry.backend_names():
        assert registry.backend_class(name).name == name


@pytest.mark.parametrize("name", registry.backend_names())
def test_every_backend_implements_the_whole_interface(name: str) -> None:
    cls = registry.backend_class(name)
    members = _interface_members()
    assert members == {"name", "Details", "reads_local_data", "owns_cluster", "mutual_tls", "usable", "up", "down",
                       "status", "follow_logs", "settling"}
    for member in members:
        assert hasattr(cls, member), f"{name} lacks {member}"
    assert issubclass(cls.Details, BackendDetails) and cls.Details is not BackendDetails
    assert isinstance(cls.reads_local_data, bool) and isinstance(cls.owns_cluster, bool)
    assert isinstance(vars(cls)["usable"], classmethod)
    # what the old interface had and not every backend implemented is gone from all of them
    assert not hasattr(cls, "components") and not hasattr(ClusterBackend, "log_files")


def test_unknown_backend_names_the_registered_ones() -> None:
    with pytest.raises(UsageError) as info:
        Settings.from_env({"HOME": "/h", "FLINKLAB_BACKEND": "kubernetes"})
    assert "auto, remote, docker, local" in info.value.hint
    with pytest.raises(ClusterError, match="Unknown backend 'kubernetes'"):
        registry.backend_class("kubernetes")


# ------------------------------------------------------------------------- adding a backend = one registry line


@dataclass
class ShelfDetails(BackendDetails):
    shelf: str


class ShelfBackend:
    """A backend that only writes its record: proves a new backend needs one module and one registry line."""

    name: ClassVar[str] = "shelf"
    Details = ShelfDetails
    reads_local_data: ClassVar[bool] = False
    owns_cluster: ClassVar[bool] = True
    mutual_tls: ClassVar[bool] = False
    answer: ClassVar[tuple[bool, str]] = (True, "the shelf is here")

    def __init__(self, settings: Settings):
        self.settings = settings

    @classmethod
    def usable(cls, settings: Settings) -> tuple[bool, str]:
        return cls.answer

    def up(self, progress=None) -> UpResult:
        s = self.settings
        write_record(s, ClusterRecord(backend=self.name, rest_host=s.rest_host, rest_port=s.rest_port,
                                      taskmanagers=1, slots=1, flink_version="2.2.1", data_dir=str(s.data_dir),
                                      workspace_root=str(s.workspace_root), details=ShelfDetails(shelf="top")))
        return UpResult(status=self.status())

    def down(self) -> bool:
        had = read_record(self.settings) is not None
        remove_record(self.settings)
        return had

    def status(self) -> ClusterStatus:
        return ClusterStatus(backend=self.name, running=read_record(self.settings) is not None,
                             rest_url=self.settings.rest_url)

    def follow_logs(self, component: str | None, follow: bool) -> Iterator[str]:
        yield "shelf log"


@pytest.fixture
def shelf_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """The one line a new backend adds, first in auto's order."""
    shelf = {"shelf": f"{__name__}:ShelfBackend", **flinklab.settings.BACKENDS}
    monkeypatch.setattr(flinklab.settings, "BACKENDS", shelf)


def test_a_new_backend_is_one_registry_line(shelf_first, settings: Settings, tmp_path: Path) -> None:
    shelf = settings.with_overrides(backend="shelf")
    shelf.validate()  # the name is accepted
    backend, reason = backend_for(shelf)
    assert isinstance(backend, ShelfBackend) and reason == "--backend shelf was asked for"
    # the backend by itself (the CLI test below runs a gateway)
    result = bring_up(shelf, with_gateway=False, data_files=[])
    assert result.status.running and result.copied == []  # reads_local_data = False: nothing provisioned
    record = read_record(settings)
    assert record is not None and record.details == ShelfDetails(shelf="top")
    assert recorded_backend(settings).name == "shelf"
    assert list(recorded_backend(settings).follow_logs(None, False)) == ["shelf log"]
    down = bring_down(settings)
    assert (down.backend, down.done, down.stopped) == ("shelf", True, True)
    assert read_record(settings) is None


@pytest.mark.live  # `flink-up` starts the SQL gateway (a JVM) beside any backend
def test_the_cli_takes_a_new_backend_too(shelf_first, settings: Settings) -> None:
    env = {"HOME": str(settings.state_dir.parent / "home"), "FLINKLAB_STATE_DIR": str(settings.state_dir),
           "FLINKLAB_DATA_DIR": str(settings.data_dir), "FLINKLAB_WORKSPACE": str(settings.workspace_root),
           "FLINKLAB_REST_PORT": str(settings.rest_port), "FLINKLAB_BACKEND": "shelf",
           "FLINKLAB_GATEWAY_PORT": str(free_port())}
    up = runner.invoke(app, ["up"], env=env)
    assert up.exit_code == 0, up.output
    assert "backend: shelf" in up.output and "starting the SQL gateway" in up.output
    down = runner.invoke(app, ["down"], env=env)
    assert down.exit_code == 0 and "stopped the shelf cluster" in down.output
    assert "stopped the SQL gateway" in down.output


def test_flink_up_creates_every_labs_workspace_and_prints_its_real_path(shelf_first, settings: Settings) -> None:
    """FLINKLAB_WORKSPACE moves the workspaces: flink-up creates one per lab there (a workspace that exists keeps
    what is in it) and its Next lines name the real dirs, not ~/flink."""
    from flinklab.course.registry import course_order, load_labs

    labs = course_order(load_labs()[0])  # the course's order (windows, then joins, then plug-ins), as flink-up lists
    kept = settings.workspace_root / labs[0].name / "ddl.sql"
    kept.parent.mkdir(parents=True)
    kept.write_text("-- mine\n", encoding="utf-8")
    env = {"HOME": str(settings.state_dir.parent / "home"), "FLINKLAB_STATE_DIR": str(settings.state_dir),
           "FLINKLAB_DATA_DIR": str(settings.data_dir), "FLINKLAB_WORKSPACE": str(settings.workspace_root),
           "FLINKLAB_REST_PORT": str(settings.rest_port), "FLINKLAB_BACKEND": "shelf", "FLINKLAB_GATEWAY_PORT": "0",
           "COLUMNS": "200"}
    up = runner.invoke(app, ["up"], env=env)
    assert up.exit_code == 0, up.output
    for lab in labs:
        assert settings.workspace(lab.name).is_dir(), lab.name
        assert f"  {lab.name.ljust(max(len(x.name) for x in labs))}  {settings.workspace(lab.name)}\n" in up.output
    assert kept.read_text(encoding="utf-8") == "-- mine\n" and [p.name for p in kept.parent.iterdir()] == ["ddl.sql"]
    created = ", ".join(lab.name for lab in labs[1:])
    assert f"Lab workspaces (created: {created}):" in up.output
    step = labs[0].steps[0]
    assert f"cd {settings.workspace(labs[0].name)} && sql-client.sh -i ddl.sql -f {step.sql_file} > " \
           f"{step.out_file} 2>&1" in up.output
    assert "~/flink" not in up.output and "LAB" not in up.output
    again = runner.invoke(app, ["up"], env=env)  # all there now: none created, the same paths
    assert again.exit_code == 0 and "Lab workspaces:" in again.output and "created" not in again.output
    assert runner.invoke(app, ["down"], env=env).exit_code == 0


def test_flink_up_where_a_workspace_cannot_be_created_is_one_line(shelf_first, settings: Settings) -> None:
    settings.workspace_root.parent.mkdir(parents=True, exist_ok=True)
    settings.workspace_root.write_text("a file, not a dir", encoding="utf-8")
    env = {"HOME": str(settings.state_dir.parent / "home"), "FLINKLAB_STATE_DIR": str(settings.state_dir),
           "FLINKLAB_DATA_DIR": str(settings.data_dir), "FLINKLAB_WORKSPACE": str(settings.workspace_root),
           "FLINKLAB_REST_PORT": str(settings.rest_port), "FLINKLAB_BACKEND": "shelf", "FLINKLAB_GATEWAY_PORT": "0"}
    up = runner.invoke(app, ["up"], env=env)
    assert up.exit_code == 2, up.output
    assert f"Cannot create the workspace {settings.workspace_root}/" in " ".join(up.output.split())
    assert "Traceback" not in up.output and read_record(settings) is None  # nothing started


# ---------------------------------------------------------------------------------------------- selection


def test_explicit_backend_wins_and_never_asks_the_engine(settings: Settings, no_engine: str) -> None:
    for name in ("local", "docker"):
        backend, reason = backend_for(settings.with_overrides(backend=name))
        assert backend.name == name and reason == f"--backend {name} was asked for"
    write_record(settings, _record(settings, "docker"))  # explicit wins over the record, too
    backend, _ = backend_for(settings.with_overrides(backend="local"))
    assert backend.name == "local"


def test_auto_without_an_engine_falls_back_to_local_and_says_why(settings: Settings, no_engine: str) -> None:
    backend, reason = backend_for(settings)
    assert backend.name == "local"
    summary, _, detail = reason.partition("\n")  # one calm line; the engine's words behind it for --verbose
    assert summary == "no Docker engine answers", reason
    assert detail.startswith("The Docker engine does not answer"), reason


def test_auto_attaches_when_a_rest_url_is_given(settings: Settings, no_engine: str) -> None:
    backend, reason = backend_for(settings.with_overrides(remote_url="http://10.1.2.3:8081"))
    assert backend.name == "remote" and "http://10.1.2.3:8081" in reason


def test_auto_order_is_the_registrys(shelf_first, settings: Settings, no_engine: str) -> None:
    assert backend_for(settings)[0].name == "shelf"
    ShelfBackend.answer = (False, "the shelf is gone")
    try:
        assert backend_for(settings)[0].name == "local"  # remote (no URL) and docker (no engine) cannot serve
    finally:
        ShelfBackend.answer = (True, "the shelf is here")


def test_a_backend_that_is_not_installed_is_skipped_by_auto(settings: Settings, no_engine: str,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(flinklab.settings.BACKENDS, "docker", "flinklab.cluster.not_installed:DockerBackend")
    backend, reason = backend_for(settings)
    assert backend.name == "local" and "docker backend is not available" in reason
    with pytest.raises(ClusterError, match="docker backend is not available"):
        backend_for(settings.with_overrides(backend="docker"))


@pytest.mark.parametrize("recorded", ["local", "docker", "remote"])
def test_auto_follows_the_record(settings: Settings, no_engine: str, recorded: str) -> None:
    assert recorded_backend(settings) is None
    write_record(settings, _record(settings, recorded))
    backend, reason = backend_for(settings)
    assert backend.name == recorded and reason == f"a {recorded} cluster is recorded in {settings.state_dir}"


# ------------------------------------------------------------------------------------------- typed records


def _record(settings: Settings, backend: str) -> ClusterRecord:
    details = {
        "local": LocalDetails(conf_dir="/c", log_dir="/l", flink_home="/f", rpc_port=6123, jobmanager_pid=11,
                              taskmanager_pids={"taskmanager-1": 12}),
        "docker": DockerDetails(project="p", network="p_default", jobmanager="p-jobmanager-1",
                                taskmanagers=["p-taskmanager-1"], addresses={"172.19.0.3": "p-taskmanager-1"}),
        "remote": RemoteDetails(attached_at="2026-12-01T00:00:00+00:00"),
    }[backend]
    return ClusterRecord(backend=backend, rest_host="127.0.0.1", rest_port=settings.rest_port, taskmanagers=1,
                         slots=4, flink_version="2.2.1", data_dir=str(settings.data_dir),
                         workspace_root=str(settings.workspace_root), details=details,
                         image="flink:x" if backend == "docker" else "")


@pytest.mark.parametrize("backend", ["local", "docker", "remote"])
def test_records_round_trip_with_typed_details(settings: Settings, backend: str) -> None:
    record = _record(settings, backend)
    write_record(settings, record)
    back = read_record(settings)
    assert back == record and type(back.details) is registry.backend_class(backend).Details


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (lambda d: d.update(backend="kubernetes"), "unknown backend 'kubernetes'"),
        (lambda d: d["details"].update(jobmanager_pid="11"), "details: wrong type of jobmanager_pid"),
        (lambda d: d["details"].pop("conf_dir"), "details: missing conf_dir"),
        (lambda d: d["details"].update(container="x"), "details: unknown container"),
        (lambda d: d.update(details=[]), "details is a JSON list"),
        (lambda d: d.update(rest_port=True), "record: wrong type of rest_port"),
    ],
)
def test_a_record_that_does_not_fit_its_type_is_unreadable(settings: Settings, change, why: str) -> None:
    data = asdict(_record(settings, "local"))
    change(data)
    path = record_path(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    with pytest.raises(RecordUnreadable) as info:
        read_record(settings)
    assert why in info.value.message and str(path) in info.value.message


def test_no_code_outside_the_backends_reads_backend_details() -> None:
    """`details` is the backend's own; everyone else reads the record's common fields."""
    backends = {Path(flinklab.settings.BACKENDS[n].partition(":")[0].replace(".", "/") + ".py").name
                for n in registry.backend_names()}
    readers = []
    for path in list(FLINKLAB.rglob("*.py")) + list((PROJECT_ROOT / "scripts").rglob("*.py")):
        if path.parent.name == "cluster" and path.name in backends | {"base.py"}:
            continue
        if re.search(r"record\.details\b", path.read_text()):
            readers.append(str(path.relative_to(PROJECT_ROOT)))
    assert readers == []


# ------------------------------------------------------------------------------ the `up` use case provisions


def test_bring_up_provisions_only_for_backends_that_read_local_data(shelf_first, settings: Settings,
                                                                    tmp_path: Path) -> None:
    (tmp_path / "lab").mkdir()
    data = [tmp_path / "lab" / "a.csv"]
    data[0].write_text("1,x\n")
    shelf = settings.with_overrides(backend="shelf")
    bring_up(shelf, with_gateway=False, data_files=data)
    assert not (settings.data_dir / "a.csv").exists()  # the shelf reads no local data
    bring_down(shelf)
    ShelfBackend.reads_local_data = True
    try:
        said: list[Progress] = []
        result = bring_up(shelf, progress=said.append, with_gateway=False, data_files=data)
        assert (settings.data_dir / "a.csv").read_text() == "1,x\n"
        assert result.copied == [str(settings.data_dir / "a.csv")]
        assert said[0] == BackendChosen("shelf", "--backend shelf was asked for")
        assert str(said[0]) == "backend: shelf (--backend shelf was asked for)"
        assert DataCopied(1, str(settings.data_dir)) in said
        assert f"copied 1 data file(s) to {settings.data_dir}" in map(str, said)
    finally:
        ShelfBackend.reads_local_data = False


def test_backends_do_not_provision_lab_data() -> None:
    """A backend knows no lab: only the up use case (usecases/cluster.py) provisions, with the files its caller
    names."""
    users = sorted(str(p.relative_to(FLINKLAB)) for p in FLINKLAB.rglob("*.py")
                   if "environment.provision" in p.read_text() and p.name != "provision.py")
    assert users == ["usecases/cluster.py"]


def test_bring_up_provisions_the_data_files_it_is_given(shelf_first, settings: Settings, tmp_path: Path) -> None:
    other = tmp_path / "other" / "a.csv"
    other.parent.mkdir()
    other.write_text("1,x\n")
    given = tmp_path / "lab" / "b.csv"
    given.parent.mkdir()
    given.write_text("2,y\n")
    ShelfBackend.reads_local_data = True
    try:
        result = bring_up(settings.with_overrides(backend="shelf"), with_gateway=False, data_files=[given])
        assert result.copied == [str(settings.data_dir / "b.csv")]  # the list given, nothing else
        assert not (settings.data_dir / "a.csv").exists()
    finally:
        ShelfBackend.reads_local_data = False
        bring_down(settings)


# ------------------------------------------------------------------------ environment variables: only Settings


_ENV_READ = re.compile(r"""(?:environ|env)(?:\.get\(|\[)\s*["'](FLINKLAB_\w+|FLINK_IMAGE|XDG_\w+)["']""")


#: A value for each variable that differs from its default.
_SAMPLES = {
    "FLINKLAB_WORKSPACE": "/w", "FLINKLAB_DATA_DIR": "/d", "FLINKLAB_STATE_DIR": "/s", "XDG_STATE_HOME": "/xs",
    "FLINKLAB_REST_HOST": "localhost", "FLINKLAB_REST_PORT": "18081", "FLINKLAB_REST_URL": "http://h:8081",
    "FLINKLAB_BIND_HOST": "0.0.0.0", "FLINKLAB_BACKEND": "remote", "FLINKLAB_TASKMANAGERS": "2",
    "FLINKLAB_SLOTS": "2", "FLINKLAB_JM_MEMORY": "900m", "FLINKLAB_TM_MEMORY": "900m", "FLINK_IMAGE": "f:x",
    "FLINKLAB_STARTUP_TIMEOUT": "30", "FLINKLAB_DOCKER_PROJECT": "class",
    "FLINKLAB_CONTAINER_USER": "0:0", "FLINKLAB_CACHE_DIR": "/c", "XDG_CACHE_HOME": "/xc",
    "FLINKLAB_DEBIAN_MIRROR": "http://mirror/debian", "FLINKLAB_GATEWAY_PORT": "18083",
    "FLINKLAB_GATEWAY_JVM_ARGS": "-Xmx1g", "FLINKLAB_RUN_PARALLEL": "1", "FLINKLAB_SHELL_HEARTBEAT_SECONDS": "60",
    "FLINKLAB_SHARED": "1",
}


def test_flinklabs_environment_variables_are_read_only_in_settings() -> None:
    outside = {str(p.relative_to(FLINKLAB)): _ENV_READ.findall(p.read_text()) for p in FLINKLAB.rglob("*.py")
               if p.name != "settings.py"}
    assert {k: v for k, v in outside.items() if v} == {}
    assert set(_SAMPLES) == set(ENV_VARS)
    default = Settings.from_env({"HOME": "/h"})
    for name, value in _SAMPLES.items():  # each variable listed really sets something
        assert Settings.from_env({"HOME": "/h", name: value}) != default, name


def test_every_environment_variable_is_in_the_docs_settings_table() -> None:
    table = (PROJECT_ROOT / "docs" / "settings.md").read_text()
    missing = [name for name in ENV_VARS if f"`{name}`" not in table]
    assert missing == []


def test_the_runners_container_image_comes_from_the_records_common_field(settings: Settings) -> None:
    from flinklab.cluster.base import recorded_image

    assert recorded_image(settings) == settings.image  # nothing recorded
    write_record(settings, _record(settings, "docker"))
    assert recorded_image(settings) == "flink:x"  # the image the docker cluster runs on (present on this host)
    write_record(settings, _record(settings, "remote"))
    assert recorded_image(settings) == settings.image  # a remote cluster's image is not known here
