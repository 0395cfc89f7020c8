"""The local backend's start-up path: class-data-sharing archives and replayed script commands (issue 12).

Speed is measured by scripts/bench_cluster.py, never here: these tests check that the right JVM options and
commands are chosen, and (live) that a cluster started from a replayed command with an archive is a working one.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from helpers.env import free_port, make_settings

from flinklab.cluster.cds import archive_path, cds_options, class_list, start_dump
from flinklab.cluster.launch import Launch, LaunchCache, launch_key
from flinklab.cluster.local import LocalBackend, find_ours, flink_home
from flinklab.flink.java import find_java

CONFIG = "jobmanager.rpc.port: 40001\ntaskmanager.memory.process.size: \"1280m\"\nrest.port: 8081\n"


def test_cds_options_list_classes_then_map_the_archive(tmp_path: Path) -> None:
    archive = tmp_path / "cds" / "taskmanager-abc.jsa"
    assert cds_options(archive, 8, record=True) == ""
    listing = tmp_path / "cds" / "taskmanager-abc.classlist"
    assert cds_options(archive, 17, record=True) == f"-XX:DumpLoadedClassList={listing}"
    assert cds_options(archive, 17, record=False) == ""  # one writer per list
    archive.parent.mkdir()
    archive.write_bytes(b"\0" * 16)
    assert cds_options(archive, 17, record=True) == f"-XX:SharedArchiveFile={archive}"
    assert cds_options(tmp_path / "a dir" / "x.jsa", 17, record=True) == ""  # would not survive the scripts


@pytest.mark.live  # needs Java (find_java) and the PyPI Flink distribution
def test_a_dump_needs_a_class_list_and_never_runs_twice(tmp_path: Path) -> None:
    archive = tmp_path / "jobmanager-abc.jsa"
    argv = [find_java()[0], "-classpath", "/nowhere.jar", "Main"]
    assert not start_dump(archive, argv[0], argv)  # nothing listed yet
    class_list(archive).write_text("java/lang/Object\n")
    assert not start_dump(archive, argv[0], [argv[0], "Main"])  # no classpath to dump with
    (tmp_path / "jobmanager-abc.classlist.dump").write_text("")  # a dump underway
    assert not start_dump(archive, argv[0], argv)


@pytest.mark.live  # needs Java (find_java) and the PyPI Flink distribution
def test_archive_names_change_with_the_distribution_and_the_java(tmp_path: Path) -> None:
    java = find_java()[0]
    home = flink_home()
    first = archive_path(tmp_path, "jobmanager", java, home)
    assert first == archive_path(tmp_path, "jobmanager", java, home)
    assert first != archive_path(tmp_path, "jobmanager", java, tmp_path)
    assert first != archive_path(tmp_path, "taskmanager", java, home)
    assert first.parent == tmp_path and first.suffix == ".jsa"


@pytest.mark.live  # needs Java (find_java) and the PyPI Flink distribution
def test_launch_key_ignores_the_rpc_port_and_unrelated_variables() -> None:
    java, home = find_java()[0], flink_home()
    env = {"FLINK_CONF_DIR": "/c", "TERM": "xterm"}
    key = launch_key("jobmanager", CONFIG, env, java, home)
    assert key == launch_key("jobmanager", CONFIG.replace("40001", "40002"), {**env, "TERM": "dumb"}, java, home)
    assert key != launch_key("jobmanager", CONFIG.replace("1280m", "1024m"), env, java, home)
    assert key != launch_key("jobmanager", CONFIG.replace("8081", "8082"), env, java, home)
    assert key != launch_key("jobmanager", CONFIG, {**env, "FLINK_ENV_JAVA_OPTS_JM": "-XX:X"}, java, home)
    assert key != launch_key("taskmanager-1", CONFIG, env, java, home)


@pytest.mark.live  # needs Java (find_java) and the PyPI Flink distribution
def test_a_recorded_launch_is_used_only_for_its_key_and_a_runnable_java(tmp_path: Path) -> None:
    cache = LaunchCache(tmp_path)
    java = os.path.realpath(find_java()[0])
    launch = Launch(key="k1", argv=[java, "-version"], env={"FLINK_BIN_DIR": "/b"}, out="/o", err="/e")
    (tmp_path / "jobmanager.json").write_text(json.dumps(launch.__dict__))
    assert cache.get("jobmanager", "k1") == launch
    assert cache.get("jobmanager", "k2") is None
    assert cache.get("taskmanager-1", "k1") is None
    (tmp_path / "jobmanager.json").write_text(json.dumps({**launch.__dict__, "argv": ["/no/such/java"]}))
    assert cache.get("jobmanager", "k1") is None
    (tmp_path / "jobmanager.json").write_text("{not json")
    assert cache.get("jobmanager", "k1") is None
    cache.forget("jobmanager")
    assert not (tmp_path / "jobmanager.json").exists()


def _archives(local: Path) -> set[str]:
    return {p.name.split("-")[0] for p in (local / "cds").glob("*.jsa")}


@pytest.mark.live
def test_later_starts_map_the_archives_and_replay_the_scripts_commands(tmp_path: Path) -> None:
    """The first start lists the classes and dumps the archives in the background once ready; the second maps
    them (new options: a new command, composed or the scripts', recorded); the third, with the same inputs,
    replays it."""
    settings = make_settings(tmp_path, rest_port=free_port(), gateway_port=0, backend="local", slots=2)
    local = settings.state_dir / "local"
    try:
        LocalBackend(settings).up()
        deadline = time.monotonic() + 600
        while _archives(local) != {"jobmanager", "taskmanager"} and time.monotonic() < deadline:
            time.sleep(1)
        assert _archives(local) == {"jobmanager", "taskmanager"}, sorted((local / "cds").iterdir())
        lists = sorted((local / "cds").glob("*.classlist"))
        assert len(lists) == 2, "the recording JVMs go on listing what they load after the first dump"
        first = {path.name: path.stat().st_mtime_ns for path in (local / "cds").glob("*.jsa")}
        LocalBackend(settings).down()  # dumps both archives again from the whole lists, then removes them
        while any(path.exists() for path in lists) and time.monotonic() < deadline:
            time.sleep(1)
        assert not any(path.exists() for path in lists), sorted((local / "cds").iterdir())
        assert {path.name: path.stat().st_mtime_ns for path in (local / "cds").glob("*.jsa")}.keys() == first.keys()
        assert all(path.stat().st_mtime_ns != first[path.name] for path in (local / "cds").glob("*.jsa"))
        LocalBackend(settings).up()
        assert not list((local / "cds").glob("*.classlist")), "a start that maps the archives lists nothing"
        LocalBackend(settings).down()
        recorded = json.loads((local / "launch" / "taskmanager-1.json").read_text())
        assert "--configDir" in recorded["argv"] and str(local / "conf") in recorded["argv"]
        result = LocalBackend(settings).up()
        assert result.status.slots_total == 2 and result.status.problems == []
        for component in ("jobmanager", "taskmanager-1"):
            launch_log = (local / "log" / component / "launch.log").read_text().rstrip()
            assert launch_log.endswith(f"({local / 'launch' / component}.json)"), launch_log[-300:]
            out = next((local / "log" / component).glob("*.out")).read_text()
            assert "[warning][cds]" not in out and "[error][cds]" not in out, out[-2000:]
        jm = json.loads((settings.state_dir / "cluster.json").read_text())["details"]["jobmanager_pid"]
        args = Path(f"/proc/{jm}/cmdline").read_bytes().decode().split("\0")
        archive = next((local / "cds").glob("jobmanager-*.jsa"))
        assert f"-XX:SharedArchiveFile={archive}" in args
        # mapped, not merely named: -Xshare:on refuses to start when the archive does not fit this classpath
        classpath = args[args.index("-classpath") + 1]
        check = subprocess.run([args[0], "-Xshare:on", f"-XX:SharedArchiveFile={archive}", "-Xlog:cds",
                                "-classpath", classpath, "-version"], capture_output=True, text=True, check=False)
        assert check.returncode == 0, check.stdout[-2000:] + check.stderr[-2000:]
    finally:
        LocalBackend(settings).down()
    assert find_ours(local / "conf") == []
