"""The SQL gateway JVM's class-data archive (flinklab/gateway/cds.py): which options a start gets, and, live, that
a gateway with none records, dumps its classes when it stops, and that the next gateway's JVM maps that archive
and serves from it."""

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
from flinklab.gateway import cds
from flinklab.settings import Settings
from flinklab.sqlclient.protocol import GatewayClient

JAVA = host_java()
pytestmark = pytest.mark.live  # every test here starts a JVM (a gateway's, or java itself)
needs_java17 = pytest.mark.skipif(JAVA is None or (cds.java_major(JAVA) or 0) < 17, reason="needs a host Java 17+")


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
    first = cds.gateway_archive(own_cache)
    assert first.record and first.path is not None and first.path.parent.is_dir()
    assert first.path.parent == own_cache.cache_dir / "cds" and not first.path.exists()
    assert cds.RECORD in first.options.split()
    first.path.write_bytes(b"an archive")
    second = cds.gateway_archive(own_cache)
    assert second.path == first.path and not second.record
    assert second.options.split()[:2] == [f"-XX:SharedArchiveFile={first.path}", cds.QUIET]
    assert cds.with_archive(own_cache, second).gateway_jvm_args == f"{own_cache.gateway_jvm_args} " \
        f"{second.options}"


@needs_java17
def test_the_archive_is_named_after_the_jvm_options(own_cache: Settings) -> None:
    other = replace(own_cache, gateway_jvm_args=own_cache.gateway_jvm_args + " -Xmx1g")
    assert cds.gateway_archive(own_cache).path != cds.gateway_archive(other).path
    assert cds.gateway_archive(own_cache).path == cds.gateway_archive(own_cache).path


@needs_java17
def test_partial_dumps_of_dead_gateways_are_removed_and_a_live_ones_kept(own_cache: Settings) -> None:
    path = cds.gateway_archive(own_cache).path
    assert path is not None
    dead = path.with_name(f"{path.name}.999999999")
    alive = path.with_name(f"{path.name}.{os.getpid()}")
    dead.write_bytes(b"half")
    alive.write_bytes(b"being written")
    assert cds.gateway_archive(own_cache).record  # one killed dump: the next gateway tries again
    assert not dead.exists() and alive.exists()
    dead.write_bytes(b"half again")
    assert cds.gateway_archive(own_cache) == cds.NONE  # two: this machine kills its dumps, gateways stop recording


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
    assert cds.launched(own_cache, lambda each: seen.append(each.gateway_jvm_args), record=True)[1] == cds.NONE
    assert seen == [own_cache.gateway_jvm_args]


@needs_java17
def test_an_archive_the_jvm_does_not_map_is_removed(own_cache: Settings, no_jvm: None) -> None:
    path = cds.gateway_archive(own_cache).path
    assert path is not None
    path.write_bytes(b"an archive of another classpath")
    me = SimpleNamespace(pid=os.getpid)  # this process: it maps no archive
    service = SimpleNamespace(jvm=SimpleNamespace(jvm=SimpleNamespace(java=SimpleNamespace(lang=SimpleNamespace(
        ProcessHandle=SimpleNamespace(current=lambda: me))))))
    assert cds.launched(own_cache, lambda each: service, record=True)[0] is service
    assert not path.exists()


def test_no_archive_before_java_17_nor_where_the_launcher_splits_the_path(tmp_path: Path) -> None:
    old = fake_jdk(tmp_path / "jdk11", "11.0.2")
    settings = make_settings(tmp_path / "a")
    assert cds.gateway_archive(settings, java=old) == cds.NONE
    new = fake_jdk(tmp_path / "jdk17", "17.0.9")
    assert cds.gateway_archive(settings, java=new).record
    spaced = make_settings(tmp_path / "b", cache_dir=tmp_path / "a cache")
    assert cds.gateway_archive(spaced, java=new) == cds.NONE
    assert cds.with_archive(settings, cds.NONE) is settings


def test_a_gateway_not_recording_dumps_nothing() -> None:
    assert cds.dump(object(), cds.NONE) is False


@needs_java17
def test_a_discarded_archive_is_removed_and_recorded_anew(own_cache: Settings) -> None:
    path = cds.gateway_archive(own_cache).path
    assert path is not None
    path.write_bytes(b"damaged")
    mapped = cds.gateway_archive(own_cache)
    assert not mapped.record and "-XX:ErrorFile=" in mapped.options
    again = cds.discard(mapped)
    assert not path.exists() and again.record and again.path == path
    assert cds.discard(cds.NONE) == cds.NONE


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

    service, archive = cds.launched(own_cache, start, record=record)  # none yet: recorded, or nothing
    assert service == "service" and archive.record is record
    assert (cds.RECORD in options[-1].split()) is record
    path = cds.gateway_archive(own_cache).path
    assert path is not None
    path.write_bytes(b"damaged")
    options.clear()
    service, archive = cds.launched(own_cache, start, record=record)
    assert service == "service" and not path.exists()
    assert "SharedArchiveFile" in options[0] and "SharedArchiveFile" not in options[1]
    assert archive == (cds.discard(cds.GatewayArchive(path)) if record else cds.NONE)


@needs_java17
def test_a_jvm_that_does_not_start_while_recording_fails_as_it_did(own_cache: Settings, no_jvm: None) -> None:
    def start(settings: Settings) -> str:
        raise FlinklabError("no JVM")

    with pytest.raises(FlinklabError, match="no JVM"):
        cds.launched(own_cache, start, record=True)


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


@needs_java17
def test_a_gateway_dumps_its_classes_at_its_stop_and_the_next_maps_them(flink_cluster: Settings,
                                                                        tmp_path: Path) -> None:
    own = make_settings(tmp_path, rest_port=flink_cluster.rest_port, gateway_port=free_port(),
                        cache_dir=tmp_path / "cache")
    rest_url = f"http://127.0.0.1:{flink_cluster.rest_port}"
    archive = cds.gateway_archive(own)
    assert archive.record and archive.path is not None
    try:
        gateway.wait_ready(own, gateway.start(own, rest_url), 300)
        assert _count(own) == 3
    finally:
        gateway.stop(own)
    assert archive.path.is_file(), gateway.log_file(own).read_text()[-3000:]
    assert "wrote the gateway's class-data archive" in gateway.log_file(own).read_text()
    assert list(archive.path.parent.iterdir()) == [archive.path]  # no partial dump left
    assert not cds.gateway_archive(own).record
    try:
        gateway.wait_ready(own, gateway.start(own, rest_url), 300)
        assert _jvm_maps(archive.path)
        assert _count(own) == 3
    finally:
        gateway.stop(own)
    whole = archive.path.stat().st_size
    archive.path.chmod(0o644)
    os.truncate(archive.path, 1_000_000)  # damaged (a disk error): its JVM crashes as it maps it
    try:
        gateway.wait_ready(own, gateway.start(own, rest_url), 300)  # started again without it
        assert _count(own) == 3
    finally:
        gateway.stop(own)
    log = gateway.log_file(own).read_text()
    assert "did not start with the class-data archive" in log
    assert list((own.state_dir / "logs").glob("gateway-jvm-crash-*.log"))  # not in the working directory
    assert archive.path.stat().st_size > whole // 2  # recorded and dumped anew
