"""The local cluster's logs: each JVM's current Flink log under `log/<component>/`, printed and followed."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

from flinklab.flink.waiting import tail_lines


def latest_log(log_dir: Path, component: str) -> Path | None:
    """`component`'s current Flink log (the newest `*.log` but our launch.log), if any."""
    logs = sorted((log_dir / component).glob("*.log"), key=lambda p: p.stat().st_mtime)
    logs = [p for p in logs if p.name != "launch.log"]
    return logs[-1] if logs else None


def follow_log_files(log_dir: Path, chosen: dict[str, Path], follow: bool) -> Iterator[str]:
    """The last 200 lines of each chosen log, then (with `follow`) new lines as they are written, also across a
    roll-over or restart; each line prefixed with its component's name when there are several."""
    prefix = len(chosen) > 1
    positions: dict[str, tuple[Path, int]] = {}
    for name, path in chosen.items():
        if prefix:
            yield f"==> {name}: {path} <=="
        yield from tail_lines(path, 200, skip_stack_frames=False)
        positions[name] = (path, path.stat().st_size)
    while follow:
        time.sleep(0.5)
        for name, (path, pos) in list(positions.items()):
            current = latest_log(log_dir, name) or path
            if current != path:
                path, pos = current, 0  # rolled over or restarted
            try:
                size = current.stat().st_size
                if size < pos:
                    pos = 0
                with open(current, "rb") as fh:
                    fh.seek(pos)
                    chunk = fh.read()
            except OSError:
                continue
            # Only whole lines; a partial last line waits for its newline.
            cut = chunk.rfind(b"\n") + 1
            for line in chunk[:cut].decode("utf-8", "replace").splitlines():
                yield f"[{name}] {line}" if prefix else line
            positions[name] = (current, pos + cut)
