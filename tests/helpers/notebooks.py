"""Running notebooks on a real Jupyter kernel (ipykernel, started by jupyter_client) with nbclient, pointed at a
test cluster, and reading what their cells printed."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from flinklab.settings import Settings
from helpers.env import settings_env

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"


def kernel_env(settings: Settings) -> dict[str, str]:
    """The kernel's environment: the test cluster's FLINKLAB_* variables, this venv's scripts first on PATH
    (`!flinklab check` in a cell), Jupyter's and IPython's dirs under the test's state dir (never the user's)."""
    env = settings_env(settings)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.update(jupyter_dirs(settings.state_dir.parent))
    return env


def jupyter_dirs(root: Path) -> dict[str, str]:
    """JUPYTER_*_DIR and IPYTHONDIR under `root` (made): never the user's ~/.jupyter, ~/.ipython, ~/.local."""
    jupyter = root / "jupyter"
    jupyter.mkdir(exist_ok=True)
    return {"JUPYTER_RUNTIME_DIR": str(jupyter / "runtime"), "JUPYTER_DATA_DIR": str(jupyter / "data"),
            "IPYTHONDIR": str(jupyter / "ipython"), "JUPYTER_CONFIG_DIR": str(jupyter / "config")}


def code_notebook(cells: list[str]) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


def run_notebook(nb: nbformat.NotebookNode, settings: Settings, timeout: int = 600) -> nbformat.NotebookNode:
    """Execute every cell on a fresh python3 kernel (errors are kept as outputs, for the test to look at)."""
    env = kernel_env(settings)
    saved = {k: os.environ.get(k) for k in ("JUPYTER_RUNTIME_DIR", "JUPYTER_DATA_DIR", "IPYTHONDIR")}
    os.environ.update({k: env[k] for k in saved})  # the connection file this process writes goes there too
    try:
        NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=True,
                       resources={"metadata": {"path": str(settings.state_dir.parent)}}).execute(env=env)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return nb


def outputs(cell: nbformat.NotebookNode) -> Iterator[tuple[str, str]]:
    """(kind, text) of a cell's outputs: `stdout` / `stderr` streams, `display` / `result` as text/plain, `error`."""
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            yield out.name, out.text
        elif out.output_type == "display_data":
            yield "display", out.data.get("text/plain", "")
        elif out.output_type == "execute_result":
            yield "result", out.data.get("text/plain", "")
        elif out.output_type == "error":
            yield "error", f"{out.ename}: {out.evalue}"


def text(cell: nbformat.NotebookNode, kind: str) -> str:
    return "".join(t for k, t in outputs(cell) if k == kind)


def tracebacks(nb: nbformat.NotebookNode) -> list[str]:
    """Every error output (a traceback reached the cell)."""
    return [t for cell in nb.cells for k, t in outputs(cell) if k == "error"]
