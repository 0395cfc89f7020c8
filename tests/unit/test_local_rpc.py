"""Flink's RPC system on the local JVMs' class path (flinklab.cluster.local_rpc): extracted once per distribution,
with a loader of ours that the shipped class file holds as its Java source says; and nothing added (Flink's own way)
where that cannot be done. A live test (tests/live/test_cluster_compose.py) starts JVMs with it."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from helpers.javac import compile_java, find_javac

from flinklab.cluster.launch import dist_jar
from flinklab.cluster.local_config import flink_home
from flinklab.cluster.local_rpc import LOADER_CLASS, RPC_JAR, rpc_classpath


def test_the_rpc_jar_is_extracted_once_with_the_loader_beside_it(tmp_path: Path) -> None:
    home = flink_home()
    entries = rpc_classpath(home, tmp_path / "rpc").split(":")
    assert len(entries) == 2
    loader, rpc = map(Path, entries)
    with zipfile.ZipFile(dist_jar(home)) as dist:
        inner = dist.getinfo(RPC_JAR)
        assert rpc.stat().st_size == inner.file_size
        assert zipfile.crc32(rpc.read_bytes()) == inner.CRC
    with zipfile.ZipFile(loader) as jar:
        assert jar.read("META-INF/services/org.apache.flink.runtime.rpc.RpcSystemLoader").decode().strip() == \
            "org.flinklab.rpc.ClasspathRpcSystemLoader"
        assert jar.read("org/flinklab/rpc/ClasspathRpcSystemLoader.class") == LOADER_CLASS.read_bytes()
    with zipfile.ZipFile(rpc) as jar:  # what the loader looks for there
        assert "META-INF/services/org.apache.flink.runtime.rpc.RpcSystem" in jar.namelist()
    before = (rpc.stat().st_mtime_ns, loader.stat().st_mtime_ns)
    assert rpc_classpath(home, tmp_path / "rpc") == f"{loader}:{rpc}"
    assert (rpc.stat().st_mtime_ns, loader.stat().st_mtime_ns) == before  # not written again
    assert not list(rpc.parent.glob(".*.tmp"))


def test_nothing_is_added_where_it_cannot_be_done(tmp_path: Path) -> None:
    """A flink-dist without the RPC jar, a dir that cannot be written, a path Flink's scripts would split: ''."""
    home = tmp_path / "flink"
    (home / "lib").mkdir(parents=True)
    with zipfile.ZipFile(home / "lib" / "flink-dist-9.9.jar", "w") as jar:
        jar.writestr("org/apache/flink/Nothing.class", b"")
    assert rpc_classpath(home, tmp_path / "rpc") == ""
    assert not (tmp_path / "rpc").exists()
    blocked = tmp_path / "file"
    blocked.write_text("not a dir")
    assert rpc_classpath(flink_home(), blocked / "rpc") == ""
    assert rpc_classpath(flink_home(), tmp_path / "with space" / "rpc") == ""


def test_the_shipped_loader_is_its_source_compiled(tmp_path: Path) -> None:
    """ClasspathRpcSystemLoader.class is what javac makes of the .java beside it (--release 11, as its header
    says): a change to the source without the class fails here."""
    javac = find_javac()
    if javac is None:
        pytest.skip("no javac on this machine (a JDK's javac compiles the loader's source to compare)")
    compiled = compile_java(javac, LOADER_CLASS.with_suffix(".java"), tmp_path)
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    compiled = (tmp_path / "org" / "flinklab" / "rpc" / LOADER_CLASS.name).read_bytes()
    assert compiled == LOADER_CLASS.read_bytes(), \
        f"{LOADER_CLASS} is stale: compile {LOADER_CLASS.with_suffix('.java').name} as its header says"
