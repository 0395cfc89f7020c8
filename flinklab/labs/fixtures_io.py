"""Write a lab's generated data as CSV files: no header, `\\n` line endings, deterministic for a seed and scale."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from flinklab.errors import FlinklabError, UsageError
from flinklab.labs.base import Lab


def render_csv(rows: list[tuple[str, ...]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerows(rows)
    return buffer.getvalue()


def write_fixtures(lab: Lab, out_dir: Path, seed: int | None = None, scale: int = 1) -> list[Path]:
    """Generate the lab's CSVs into `out_dir` (files written whole, via a temporary name) and return their paths."""
    if scale < 1:
        raise UsageError(f"--scale must be 1 or more, not {scale}.")
    seed = lab.fixtures.default_seed if seed is None else seed
    generated = lab.fixtures.generate(seed, scale)
    missing = [name for name in lab.fixtures.files if name not in generated]
    if missing:
        raise FlinklabError(
            f"The {lab.name} generator produced no {', '.join(missing)}.", "This is a bug in the lab."
        )
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(
            f"Cannot create {out_dir}: {exc.strerror or exc}.", "Choose another with --out."
        ) from None
    written = []
    for name in lab.fixtures.files:
        path = out_dir / name
        tmp = path.with_name(f".{name}.tmp")
        tmp.write_bytes(render_csv(generated[name]).encode("utf-8"))
        tmp.replace(path)
        written.append(path)
    return written
