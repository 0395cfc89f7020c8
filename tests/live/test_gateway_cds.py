"""The SQL gateway JVM's class-data archive (flinklab/gateway/jvm_archive.py): which options a start gets, and, live,
that a gateway with none records, dumps its classes once warm and quiet, and that the next gateway's JVM maps that
archive and serves from it."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest
from helpers.env import free_port, make_settings

from flinklab.access import read_token
from flinklab.environment import gateway
from flinklab.errors import FlinklabError
from flinklab.flink.java import host_java
from flinklab.flink.waiting import Wait
from flinklab.gateway import jvm_archive
from flinklab.settings import Settings
from flinklab.sqlclient.protocol import GatewayClient

JAVA = host_java()
pytestmark = pytest.mark.live  # every test here starts a JVM (a gateway's, or java itself)
needs_java17 = pytest.mark.skipif(JAVA is None or (jvm_archive.java_major(JAVA) or 0) < 17,
                                  reason="needs a host Java 17+")


@pytest.fixture
def own_cache(tmp_path: Path) -> Settings:
    """Settings with a cache dir of this test's own (not the session's, which the live gateways share)."""
    return make_settings(tmp_path, cache_dir=tmp_path / "cache")


def fake_jdk(root: Path, version: str) -> str:
    """A JDK dir whose `release` file says `version` and whose bin/java exists (never run)."""
    (root / "bin").mkdir(parents=True)
    java = root / "bin" / "java"
    java.write_text("#!/bin/sh\nexit 1\n")
    java.chmod(0o755)
    (root / "release").write_text(f'JAVA_VERSION="{version}"\n')
    return str(java)


@needs_java17
def test_a_start_without_an_archive_records_and_one_with_it_maps_it(own_cache: Settings) -> None:
    first = jvm_archive.gateway_archive(own_cache)
    assert first.record and first.path is not None and first.path.parent.is_dir()
    assert first.path.parent == own_cache.cache_dir / "cds" and not first.path.exists()
    assert jvm_archive.RECORD in first.options.split()
    first.path.write_bytes(b"an archive")
    second = jvm_archive.gateway_archive(own_cache)
    assert second.path == first.path and not second.record
    assert second.options.split()[:2] == [f"-XX:SharedArchiveFile={first.path}", jvm_archive.QUIET]
    assert jvm_archive.with_archive(own_cache, second).gateway_jvm_args == f"{own_cache.gateway_jvm_args} " \
        f"{second.options}"


@needs_java17
def test_the_archive_is_named_after_the_jvm_options(own_cache: Settings) -> None:
    other = replace(own_cache, gateway_jvm_args=own_cache.gateway_jvm_args + " -Xmx1g")
    assert jvm_archive.gateway_archive(own_cache).path != jvm_archive.gateway_archive(other).path
    assert jvm_archive.gateway_archive(own_cache).path == jvm_archive.gateway_archive(own_cache).path


@needs_java17
def test_partial_dumps_of_dead_gateways_are_removed_and_a_live_ones_kept(own_cache: Settings) -> None:
    path = jvm_archive.gateway_archive(own_cache).path
    assert path is not None
    dead = path.with_name(f"{path.name}.999999999")
    alive = path.with_name(f"{path.name}.{os.getpid()}")
    dead.write_bytes(b"half")
    alive.write_bytes(b"being written")
    assert jvm_archive.gateway_archive(own_cache).record  # one killed dump: the next gateway tries again
    assert not dead.exists() and alive.exists()
    dead.write_bytes(b"half again")
    # two: this machine kills its dumps, gateways stop recording
    assert jvm_archive.gateway_archive(own_cache) == jvm_archive.NONE


@pytest.fixture
def no_jvm(monkeypatch: pytest.MonkeyPatch) -> None:
    """As in a gateway process before its JVM starts (this test process may have one) and without JVM_ARGS."""
    from pyflink import java_gateway

    monkeypatch.setattr(java_gateway, "_gateway", None)
    monkeypatch.delenv("JVM_ARGS", raising=False)


@needs_java17
def test_an_exported_jvm_args_goes_without_an_archive(own_cache: Settings, no_jvm: None,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JVM_ARGS", "-Xmx1g")  # PyFlink's launcher passes it instead of the settings' options
    seen: list[str] = []
    launched = jvm_archive.launched(own_cache, lambda each: seen.append(each.gateway_jvm_args), record=True)
    assert launched[1] == jvm_archive.NONE
    assert seen == [own_cache.gateway_jvm_args]


@needs_java17
def test_an_archive_the_jvm_does_not_map_is_removed(own_cache: Settings, no_jvm: None) -> None:
    path = jvm_archive.gateway_archive(own_cache).path
    assert path is not None
    path.write_bytes(b"an archive of another classpath")
    me = SimpleNamespace(pid=os.getpid)  # this process: it maps no archive
    service = SimpleNamespace(jvm=SimpleNamespace(jvm=SimpleNamespace(java=SimpleNamespace(lang=SimpleNamespace(
        ProcessHandle=SimpleNamespace(current=lambda: me))))))
    assert jvm_archive.launched(own_cache, lambda each: service, record=True)[0] is service
    assert not path.exists()


def test_no_archive_before_java_17_nor_where_the_launcher_splits_the_path(tmp_path: Path) -> None:
    old = fake_jdk(tmp_path / "jdk11", "11.0.2")
    settings = make_settings(tmp_path / "a")
    assert jvm_archive.gateway_archive(settings, java=old) == jvm_archive.NONE
    new = fake_jdk(tmp_path / "jdk17", "17.0.9")
    assert jvm_archive.gateway_archive(settings, java=new).record
    spaced = make_settings(tmp_path / "b", cache_dir=tmp_path / "a cache")
    assert jvm_archive.gateway_archive(spaced, java=new) == jvm_archive.NONE
    assert jvm_archive.with_archive(settings, jvm_archive.NONE) is settings


def test_a_gateway_not_recording_dumps_nothing() -> None:
    assert jvm_archive.dump(object(), jvm_archive.NONE) is False


@needs_java17
def test_a_discarded_archive_is_removed_and_recorded_anew(own_cache: Settings) -> None:
    path = jvm_archive.gateway_archive(own_cache).path
    assert path is not None
    path.write_bytes(b"damaged")
    mapped = jvm_archive.gateway_archive(own_cache)
    assert not mapped.record and "-XX:ErrorFile=" in mapped.options
    again = jvm_archive.discard(mapped)
    assert not path.exists() and again.record and again.path == path
    assert jvm_archive.discard(jvm_archive.NONE) == jvm_archive.NONE


@needs_java17
@pytest.mark.parametrize("record", [True, False])
def test_a_jvm_that_does_not_start_with_its_archive_starts_again_without_it(own_cache: Settings, no_jvm: None,
                                                                           record: bool) -> None:
    options: list[str] = []

    def start(settings: Settings) -> str:
        options.append(settings.gateway_jvm_args)
        if "SharedArchiveFile" in settings.gateway_jvm_args:
            raise FlinklabError("The SQL gateway's JVM did not start on this host: no reason printed")
        return "service"

    service, archive = jvm_archive.launched(own_cache, start, record=record)  # none yet: recorded, or nothing
    assert service == "service" and archive.record is record
    assert (jvm_archive.RECORD in options[-1].split()) is record
    path = jvm_archive.gateway_archive(own_cache).path
    assert path is not None
    path.write_bytes(b"damaged")
    options.clear()
    service, archive = jvm_archive.launched(own_cache, start, record=record)
    assert service == "service" and not path.exists()
    assert "SharedArchiveFile" in options[0] and "SharedArchiveFile" not in options[1]
    assert archive == (jvm_archive.discard(jvm_archive.GatewayArchive(path)) if record else jvm_archive.NONE)


@needs_java17
def test_a_jvm_that_does_not_start_while_recording_fails_as_it_did(own_cache: Settings, no_jvm: None) -> None:
    def start(settings: Settings) -> str:
        raise FlinklabError("no JVM")

    with pytest.raises(FlinklabError, match="no JVM"):
        jvm_archive.launched(own_cache, start, record=True)


def _jvm_maps(archive: Path) -> bool:
    """Is `archive` mapped into a live JVM (/proc/PID/maps of the java whose options name it)?"""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            if f"-XX:SharedArchiveFile={archive}".encode() in cmdline:
                return str(archive) in Path(f"/proc/{pid}/maps").read_text()
        except OSError:
            continue
    return False


def _count(settings: Settings) -> int:
    """A statement through the gateway of `settings`: a COUNT over VALUES."""
    client = GatewayClient(settings.gateway_url, token=lambda: read_token(settings.state_dir))
    try:
        session = client.open_session()
        operation = client.execute(session, "SELECT COUNT(*) FROM (VALUES (1), (2), (3)) AS t(x)")
        rows = [row["fields"] for page in client.pages(session, operation) for row in page.rows]
        client.close_session(session)
    finally:
        client.close()
    return int(rows[-1][0])


def _serve(own: Settings, rest_url: str) -> None:
    """A gateway process of `own`'s state dir for the cluster at `rest_url`, started and answering."""
    process = gateway.GatewayProcess(own, rest_url)
    process.start()
    process.ready(300)


def _warm_and_dumped(own: Settings, archive: Path) -> None:
    """Have the gateway of `own` warm the cluster up (as flink-up does), then wait until it dumped `archive`: once
    its warm-ups are over and it was quiet for a while, while it runs (flink-down then has no dump to wait for)."""
    client = GatewayClient(own.gateway_url, token=lambda: read_token(own.state_dir))
    try:
        client.warm_up()
    finally:
        client.close()
    Wait("the gateway's class-data archive", 300, 0.5).poll(archive.is_file)


@needs_java17
def test_a_gateway_dumps_its_classes_once_warm_and_the_next_maps_them(flink_cluster: Settings,
                                                                      tmp_path: Path) -> None:
    own = make_settings(tmp_path, rest_port=flink_cluster.rest_port, gateway_port=free_port(),
                        cache_dir=tmp_path / "cache")
    rest_url = f"http://127.0.0.1:{flink_cluster.rest_port}"
    archive = jvm_archive.gateway_archive(own)
    assert archive.record and archive.path is not None
    try:
        _serve(own, rest_url)
        assert _count(own) == 3
        _warm_and_dumped(own, archive.path)
        assert _count(own) == 3  # it serves on after its dump
    finally:
        gateway.GatewayProcess(own).down()
    assert archive.path.is_file(), gateway.log_file(own).read_text()[-3000:]
    assert "wrote the gateway's class-data archive" in gateway.log_file(own).read_text()
    assert list(archive.path.parent.iterdir()) == [archive.path]  # no partial dump left
    assert not jvm_archive.gateway_archive(own).record
    try:
        _serve(own, rest_url)
        assert _jvm_maps(archive.path)
        assert _count(own) == 3
    finally:
        gateway.GatewayProcess(own).down()
    whole = archive.path.stat().st_size
    archive.path.chmod(0o644)
    os.truncate(archive.path, 1_000_000)  # damaged (a disk error): its JVM crashes as it maps it
    try:
        _serve(own, rest_url)  # started again without it
        assert _count(own) == 3
        _warm_and_dumped(own, archive.path)
    finally:
        gateway.GatewayProcess(own).down()
    log = gateway.log_file(own).read_text()
    assert "did not start with the class-data archive" in log
    assert list((own.state_dir / "logs").glob("gateway-jvm-crash-*.log"))  # not in the working directory
    assert archive.path.stat().st_size > whole // 2  # recorded and dumped anew
