"""The local cluster's class-data archive dumpers (flinklab/cluster/local_cds.py): flink-down ends one still at work,
so no process of ours stays behind (no JVM: the dumper's `java` here is a program that fails)."""

from __future__ import annotations

from pathlib import Path

from flinklab.cluster import local_cds
from flinklab.cluster.local_cds import class_list, start_dump, stop_dumps
from flinklab.flink.procs import find_processes, process_args
from flinklab.flink.waiting import Wait


def _dumpers(cds: Path) -> list[int]:
    return find_processes(lambda pid: str(cds) in " ".join(process_args(pid) or []))


def test_flink_down_ends_a_dumper_that_waits_for_its_list_and_leaves_nothing(tmp_path: Path, monkeypatch) -> None:
    # the dumper looks at its list every LIST_QUIET s and dumps once it stopped growing: 30 s here, so that a test
    # process stalled for seconds on a loaded machine (seen in CI) does not let it go on before it was seen waiting
    monkeypatch.setattr(local_cds, "LIST_QUIET", 30)
    cds = tmp_path / "cds"
    cds.mkdir()
    archive = cds / "jobmanager-abc.jsa"
    class_list(archive).write_text("java/lang/Object\n")
    assert start_dump(archive, "/bin/false", ["/bin/false", "-classpath", "/nowhere.jar", "Main"])
    listing = class_list(archive)

    pid = int((cds / "jobmanager-abc.dumper").read_text())  # the dumper's shell, as flink-down finds it

    def waiting() -> bool:
        with listing.open("a") as out:  # a list that grows keeps its dumper waiting
            out.write("java/lang/String\n")
        return str(cds) in " ".join(process_args(pid) or [])

    assert Wait("the dumper", 30, 0.2).poll(waiting), (
        f"a dumper waits until the list stops growing; its log: {(cds / 'jobmanager-abc.log').read_text()!r}")
    assert not start_dump(archive, "/bin/false", ["/bin/false", "-classpath", "/nowhere.jar", "Main"])  # one only
    assert stop_dumps(cds) == 1
    assert _dumpers(cds) == []
    assert sorted(p.name for p in cds.iterdir()) == ["jobmanager-abc.classlist", "jobmanager-abc.log"]
    assert stop_dumps(cds) == 0
