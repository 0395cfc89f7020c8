"""`%%flink --lab LAB --save STEP`: the cell becomes the lab's STEP.sql, and STEP.out is what
`sql-client.sh -i ddl.sql -f STEP.sql > STEP.out 2>&1` prints, written by the same code path `flinklab run LAB
--only STEP` takes (a fresh session with the workspace's init file, then report.json updated), so `flinklab check
LAB` grades the notebook's work as it grades a terminal's. `--save ddl` (the lab's init file) writes ddl.sql and
runs it in the kernel's session, so the cells after it see its tables.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from flinklab.course.registry import get_lab
from flinklab.dbapi.connection import gateway_client
from flinklab.errors import FlinklabError
from flinklab.files import write_atomic
from flinklab.notebook.kernel import KernelSession, run_in_thread
from flinklab.usecases.run import LabRun, run_lab


class Interrupted(FlinklabError):
    def __init__(self) -> None:
        super().__init__("Interrupted.", None)


def save_step(kernel: KernelSession, lab_name: str, step_id: str, sql: str, show: Callable[..., Any],
              refresh_ms: int) -> LabRun | None:
    """Write the cell as the step's SQL file, run it as the learner's terminal would, show STEP.out as it grows.
    Raises FlinklabError (one line) for an unknown lab or step, or when no gateway answers."""
    settings = kernel.settings
    lab = get_lab(lab_name)
    workspace = settings.workspace(lab.name)
    text = sql if sql.endswith("\n") else sql + "\n"
    if step_id in (lab.init_file, Path(lab.init_file).stem):
        workspace.mkdir(parents=True, exist_ok=True)
        write_atomic(workspace / lab.init_file, text)
        kernel.out.write(f"Saved {workspace / lab.init_file}.\n")
        kernel.run_init(workspace / lab.init_file)
        return None
    step = lab.step(step_id)
    workspace.mkdir(parents=True, exist_ok=True)
    write_atomic(workspace / step.sql_file, text)
    client = gateway_client(settings, kernel.url, kernel.token)
    out_file = workspace / step.out_file
    growing = out_file.with_name(f".{out_file.name}.tmp")  # where the runner writes before it renames
    thread, box = run_in_thread(lambda: run_lab(settings, lab, only=step.id, client=client))
    handle = show({"text/plain": f"Running {step.sql_file} ..."}, raw=True, display_id=True)
    shown = ""
    try:
        try:
            while thread.is_alive():
                thread.join(refresh_ms / 1000)
                shown = _refresh(handle, growing, shown)
        except KeyboardInterrupt:
            client.abort(Interrupted)
            thread.join(10.0)
            kernel.out.write(f"[INFO] Interrupted: {out_file.name} is unchanged (what was printed is in "
                             f"{out_file.name}.partial).\n")
            return None
    finally:
        client.close()
    if "error" in box:
        raise box["error"]
    run: LabRun = box["result"]
    _refresh(handle, out_file, shown)
    one = run.steps[0]
    if not one.ran:
        kernel.out.write(f"{step.id}: skipped ({one.error}). Save {lab.init_file} first: "
                         f"%%flink --lab {lab.name} --save {Path(lab.init_file).stem}\n")
    else:
        kernel.out.write(f"Saved {workspace / step.sql_file} and {out_file.name}: {one.status}"
                         f"{' (' + one.error + ')' if one.error else ''}. Grade it with `flinklab check {lab.name}`."
                         "\n")
    return run


def _refresh(handle: Any, path: Path, shown: str) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return shown
    if text != shown:
        handle.update({"text/plain": text}, raw=True)
    return text
