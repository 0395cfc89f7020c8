"""Settings: defaults, environment variables, CLI overrides and validation (no cluster needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from flinklab.errors import ExitStatus, UsageError
from flinklab.settings import DEFAULT_DATA_DIR, Settings
from flinklab.version import DEFAULT_FLINK_IMAGE, FLINK_VERSION


def test_defaults_follow_the_lab_text() -> None:
    s = Settings.from_env({"HOME": "/home/learner"})
    assert s.workspace_root == Path("/home/learner/flink")
    assert s.workspace("joins") == Path("/home/learner/flink/joins")
    assert s.data_dir == DEFAULT_DATA_DIR == Path("/opt/lab/fixtures/data")
    assert s.state_dir == Path("/home/learner/.local/state/flinklab")
    assert (s.rest_host, s.rest_port, s.bind_host) == ("127.0.0.1", 8081, "127.0.0.1")
    assert s.rest_url == "http://127.0.0.1:8081"
    assert (s.backend, s.taskmanagers, s.slots) == ("auto", 1, 4)
    assert s.image == DEFAULT_FLINK_IMAGE and FLINK_VERSION in s.image


def test_root_gets_the_path_the_lab_text_uses() -> None:
    assert Settings.from_env({"HOME": "/root"}).workspace("joins") == Path("/root/flink/joins")


def test_state_dir_follows_xdg_state_home() -> None:
    s = Settings.from_env({"HOME": "/h", "XDG_STATE_HOME": "/xdg"})
    assert s.state_dir == Path("/xdg/flinklab")


def test_every_field_has_an_environment_variable(tmp_path: Path) -> None:
    env = {
        "HOME": "/h",
        "FLINKLAB_WORKSPACE": str(tmp_path / "ws"),
        "FLINKLAB_DATA_DIR": str(tmp_path / "data"),
        "FLINKLAB_STATE_DIR": str(tmp_path / "state"),
        "FLINKLAB_REST_HOST": "localhost",
        "FLINKLAB_REST_PORT": "18081",
        "FLINKLAB_BACKEND": "local",
        "FLINKLAB_TASKMANAGERS": "2",
        "FLINKLAB_SLOTS": "3",
        "FLINKLAB_JM_MEMORY": "900m",
        "FLINKLAB_TM_MEMORY": "1200m",
        "FLINK_IMAGE": "my/flink:test",
        "FLINKLAB_STARTUP_TIMEOUT": "30",
    }
    s = Settings.from_env(env)
    assert s.workspace_root == tmp_path / "ws"
    assert s.data_dir == tmp_path / "data"
    assert s.state_dir == tmp_path / "state"
    assert s.rest_url == "http://localhost:18081"
    assert (s.backend, s.taskmanagers, s.slots) == ("local", 2, 3)
    assert (s.jobmanager_memory, s.taskmanager_memory) == ("900m", "1200m")
    assert s.image == "my/flink:test"
    assert s.startup_timeout == 30.0


def test_cli_overrides_win_over_the_environment_and_none_means_not_given() -> None:
    env = {"HOME": "/h", "FLINKLAB_REST_PORT": "18081", "FLINKLAB_DATA_DIR": "/env/data", "FLINKLAB_SLOTS": "2"}
    s = Settings.from_env(env, rest_port=19000, data_dir="~/mydata", slots=None, backend=None)
    assert s.rest_port == 19000
    assert s.data_dir == Path("~/mydata").expanduser()  # str options become expanded Paths
    assert s.slots == 2 and s.backend == "auto"


def test_with_overrides_returns_a_copy() -> None:
    s = Settings.from_env({"HOME": "/h"})
    t = s.with_overrides(taskmanagers=3)
    assert (s.taskmanagers, t.taskmanagers) == (1, 3)
    assert s.with_overrides(taskmanagers=None) is s


@pytest.mark.parametrize(
    ("env", "overrides", "fragment"),
    [
        ({"FLINKLAB_REST_PORT": "eighty"}, {}, "FLINKLAB_REST_PORT"),
        ({"FLINKLAB_SLOTS": "4.5"}, {}, "FLINKLAB_SLOTS"),
        ({}, {"backend": "kubernetes"}, "Unknown backend"),
        ({"FLINKLAB_BACKEND": "podman"}, {}, "Unknown backend"),
        ({}, {"rest_port": 0}, "out of range"),
        ({}, {"rest_port": 70000}, "out of range"),
        ({}, {"taskmanagers": 0}, "at least 1 TaskManager"),
        ({}, {"slots": 0}, "at least 1 TaskManager"),
    ],
)
def test_bad_values_are_usage_errors(env: dict, overrides: dict, fragment: str) -> None:
    with pytest.raises(UsageError) as info:
        Settings.from_env({"HOME": "/h", **env}, **overrides)
    assert fragment in info.value.message
    assert info.value.exit_status == ExitStatus.ERROR
    assert "\n" not in info.value.message  # one line for the CLI


def test_empty_environment_values_mean_default() -> None:
    s = Settings.from_env({"HOME": "/h", "FLINKLAB_REST_PORT": "", "FLINKLAB_DATA_DIR": "", "FLINKLAB_BACKEND": ""})
    assert (s.rest_port, s.data_dir, s.backend) == (8081, DEFAULT_DATA_DIR, "auto")
