"""The `fixtures` use case: generate a lab's CSVs (deterministic for a seed and scale) and write them whole."""

from __future__ import annotations

from pathlib import Path

from flinklab.errors import FlinklabError, UsageError
from flinklab.files import write_atomic
from flinklab.lab_api import Lab
from flinklab.lab_api.csvdata import render_csv

#: The largest --scale: each unit is about 120 orders (and their users, shipments, rates) per lab, so 1000 is
#: already some 500k rows in memory at once; beyond it the generator would only exhaust memory.
MAX_SCALE = 1000


def write_fixtures(lab: Lab, out_dir: Path | None, seed: int | None = None, scale: int = 1) -> list[Path]:
    """Generate the lab's CSVs into `out_dir` (None: the lab package's data/ folder, the committed CSVs) and return
    their paths; files are written whole, via a temporary name."""
    if scale < 1:
        raise UsageError(f"--scale must be 1 or more, not {scale}.")
    if scale > MAX_SCALE:
        raise UsageError(f"--scale must be at most {MAX_SCALE}, not {scale}.",
                         f"Each unit is a day (joins) or two hours (windows) of data; {MAX_SCALE} is the most "
                         "the generator makes in memory.")
    out_dir = lab.data_dir if out_dir is None else out_dir
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
        try:
            write_atomic(path, render_csv(generated[name]))
        except OSError as exc:
            raise UsageError(f"Cannot write {path}: {exc.strerror or exc}.", "Choose another dir with --out.") from None
        written.append(path)
    return written
