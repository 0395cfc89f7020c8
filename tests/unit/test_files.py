"""flinklab.files.write_atomic: a file written whole through this process's own temporary beside it, which a failure
removes, leaving the old file as it was."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from flinklab import files
from flinklab.files import write_atomic


def _beside(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir())


def test_a_str_is_written_whole_as_utf8(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    write_atomic(path, "{\"name\": \"Zürich\"}\n")
    assert path.read_bytes() == "{\"name\": \"Zürich\"}\n".encode()
    assert _beside(path) == ["report.json"]  # no temporary left behind


def test_bytes_are_written_as_they_are(tmp_path: Path) -> None:
    path = tmp_path / "grade.xml"
    data = b"<testsuites>\r\n\x00\xff</testsuites>"
    write_atomic(path, data)
    assert path.read_bytes() == data
    assert _beside(path) == ["grade.xml"]


def test_an_existing_file_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "tumble.sql"
    path.write_text("SELECT 1;\n" * 100, encoding="utf-8")
    write_atomic(path, "SELECT 2;\n")
    assert path.read_text(encoding="utf-8") == "SELECT 2;\n"
    assert _beside(path) == ["tumble.sql"]


def test_the_temporary_is_this_process_s_own_beside_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    renamed: list[tuple[Path, Path]] = []
    replace = os.replace

    def recording(src: Path, dst: Path) -> None:
        renamed.append((Path(src), Path(dst)))
        replace(src, dst)

    monkeypatch.setattr(files.os, "replace", recording)
    path = tmp_path / "cluster.json"
    write_atomic(path, "{}")
    assert renamed == [(tmp_path / f".cluster.json.tmp-{os.getpid()}-{threading.get_ident()}", path)]


def test_a_failed_rename_leaves_the_old_file_removes_the_temporary_and_raises(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "report.json"
    path.write_text("old", encoding="utf-8")
    failure = OSError(28, "No space left on device")

    def full(src: Path, dst: Path) -> None:
        assert Path(src).read_text(encoding="utf-8") == "new"  # written whole, then the rename failed
        raise failure

    monkeypatch.setattr(files.os, "replace", full)
    with pytest.raises(OSError) as raised:
        write_atomic(path, "new")
    assert raised.value is failure  # unchanged, not wrapped
    assert path.read_text(encoding="utf-8") == "old"
    assert _beside(path) == ["report.json"]


def test_an_interrupted_write_leaves_the_old_file_and_removes_the_half_written_temporary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "orders.csv"
    path.write_text("id\n1\n", encoding="utf-8")
    write_bytes = Path.write_bytes

    def interrupted(self: Path, data: bytes) -> int:
        write_bytes(self, data[: len(data) // 2])
        raise KeyboardInterrupt

    monkeypatch.setattr(Path, "write_bytes", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(path, "id\n1\n2\n3\n")
    monkeypatch.undo()
    assert path.read_text(encoding="utf-8") == "id\n1\n"
    assert _beside(path) == ["orders.csv"]


def test_a_temporary_that_cannot_be_removed_does_not_hide_the_failure(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "report.json"
    failure = OSError(28, "No space left on device")

    def full(src: Path, dst: Path) -> None:
        raise failure

    def stuck(self: Path, missing_ok: bool = False) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(files.os, "replace", full)
    monkeypatch.setattr(Path, "unlink", stuck)
    with pytest.raises(OSError) as raised:
        write_atomic(path, "new")
    assert raised.value is failure


def test_mkdir_creates_the_missing_parents(tmp_path: Path) -> None:
    path = tmp_path / "results" / "alice" / "results.json"
    write_atomic(path, "{}\n", mkdir=True)
    assert path.read_text(encoding="utf-8") == "{}\n"
    assert _beside(path) == ["results.json"]


def test_without_mkdir_a_missing_parent_raises(tmp_path: Path) -> None:
    path = tmp_path / "results" / "results.json"
    with pytest.raises(FileNotFoundError):
        write_atomic(path, "{}\n")
    assert not (tmp_path / "results").exists()
