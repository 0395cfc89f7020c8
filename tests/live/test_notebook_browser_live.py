"""The notebook as a person sees it: JupyterLab started headless on 127.0.0.1, a headless Chromium opens a notebook
and runs a streaming `%%flink --display update` cell; two screenshots a second apart differ, and so does the table
the page shows; the stop button (the kernel's interrupt) ends the cell with Flink's `Query terminated` line.

The screenshots are this test's artifacts (look at them: `artifacts/` under the test's tmp dir); docs/notebook.md
shows one of them.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from helpers.browser import Chromium, JupyterLab
from helpers.notebooks import code_notebook, jupyter_dirs, kernel_env

from flinklab.settings import Settings

pytestmark = pytest.mark.live


@pytest.fixture(autouse=True)
def _jupyter_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Jupyter's and IPython's dirs for this process too (connection files): never the user's."""
    for name, value in jupyter_dirs(tmp_path).items():
        monkeypatch.setenv(name, value)

STREAMING_CELL = """%%flink --display update --refresh-ms 200
CREATE TEMPORARY TABLE clicks (page STRING, ms INT) WITH (
  'connector' = 'datagen', 'rows-per-second' = '8',
  'fields.page.length' = '1', 'fields.ms.min' = '1', 'fields.ms.max' = '900');
SELECT page, COUNT(*) AS clicks, MAX(ms) AS slowest_ms FROM clicks GROUP BY page"""

TABLE_TEXT = "(() => { const t = document.querySelector('table.flinklab-result'); return t ? t.innerText : ''; })()"
OUTPUT_TEXT = "Array.from(document.querySelectorAll('.jp-OutputArea-output')).map(e => e.innerText).join('\\n')"


def test_a_streaming_cell_redraws_in_place_in_jupyterlab(flink_cluster: Settings, tmp_path: Path) -> None:
    root = tmp_path / "lab"
    root.mkdir()
    nbformat.write(code_notebook(["%load_ext flinklab.notebook\n%flink_connect", STREAMING_CELL]),
                   root / "live.ipynb")
    artifacts = tmp_path / "artifacts"
    artifacts.mkdir()
    lab = JupyterLab(root, kernel_env(flink_cluster), tmp_path / "jupyterlab.log")
    browser = None
    try:
        browser = Chromium(tmp_path / "chromium-profile")
        browser.call("Page.enable")
        browser.call("Page.navigate", url=f"{lab.url}/lab/tree/live.ipynb?token={lab.token}")
        panel = lab.panel("live.ipynb")
        browser.wait_for(f"window.jupyterapp && (p => p && p.sessionContext.session && p.sessionContext.session.kernel "
                         f"&& p.sessionContext.session.kernel.status === 'idle')({panel})",
                         what="the notebook and its kernel")
        browser.evaluate("jupyterapp.commands.execute('notebook:run-all-cells'), true")  # not awaited: it runs on
        browser.wait_for(TABLE_TEXT + ".split('\\n').length > 3", what="the live table with rows")
        browser.wait_for(OUTPUT_TEXT + ".includes('so far')", what="the running status line")
        first_table = browser.evaluate(TABLE_TEXT)
        first = browser.screenshot(artifacts / "notebook-update-1.png")
        browser.evaluate("new Promise(done => setTimeout(done, 1000))")  # a second later, as a person looks again
        second_table = browser.evaluate(TABLE_TEXT)
        second = browser.screenshot(artifacts / "notebook-update-2.png")
        assert first != second
        assert first_table != second_table
        assert browser.evaluate("document.querySelectorAll('table.flinklab-result').length") == 1  # redrawn in place
        counts = [int(n) for n in re.findall(r"^\S+\t(\d+)\t", second_table, re.M)]
        assert counts and sum(counts) > sum(int(n) for n in re.findall(r"^\S+\t(\d+)\t", first_table, re.M))

        browser.evaluate("jupyterapp.commands.execute('notebook:interrupt-kernel'), true")  # the stop button
        terminated = browser.wait_for(
            f"(() => {{ const m = ({OUTPUT_TEXT}).match(/Query terminated, received a total of \\d+ rows/); "
            "return m && m[0]; })()", what="Flink's Query terminated line")
        assert re.fullmatch(r"Query terminated, received a total of \d+ rows", terminated)
        assert "Traceback" not in browser.evaluate(OUTPUT_TEXT)
        assert "KeyboardInterrupt" not in browser.evaluate(OUTPUT_TEXT)
        browser.screenshot(artifacts / "notebook-update-stopped.png")
    finally:
        if browser is not None:
            browser.close()
        lab.close()
