"""The SQL beside the captured outputs of tests/data/LAB/outputs: a workspace built from captures holds the SQL
that wrote them, as a learner's does (`flinklab check` fails a step whose output echoes other SQL than its file's)."""

from __future__ import annotations

from pathlib import Path

from flinklab.course.registry import get_lab
from flinklab.course.textpaths import rewrite_paths

#: the workspace root of the run that captured the outputs (tests/data/joins/capture.py): the COMPILE PLAN paths
#: the joins lab's plans.out echoes are under it
CAPTURE_ROOT = Path("/tmp/joins-capture-hk6dkpnf/ws")


def write_captured_sql(workspace: Path, lab_name: str, data_dir: Path, mistake: str | None = None) -> list[Path]:
    """Write the lab's reference SQL into `workspace` with the paths the capture run had (the data dir is
    `data_dir`); with `mistake` (a name of the lab's sql/mistakes/, without `.sql`), its SQL as its step's file.
    Returns the files written."""
    lab = get_lab(lab_name)
    sources = {name: lab.solution_dir / name for name in lab.solution_files}
    if mistake is not None:
        found = next(m for m in lab.mistakes() if Path(m.sql_file).stem == mistake)
        sources[lab.step(found.step).sql_file] = lab.mistakes_dir / found.sql_file
    written = []
    for name, source in sources.items():
        sql = rewrite_paths(source.read_text(encoding="utf-8"), data_dir, CAPTURE_ROOT)
        (workspace / name).write_text(sql, encoding="utf-8")
        written.append(workspace / name)
    return written
