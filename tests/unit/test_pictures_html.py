"""`flinklab check LAB --html FILE`: a self-contained page with the failed steps' checks, hints and pictures.
The page is parsed here and rendered by a real headless Chromium (Debian's `chromium`, which
`scripts/install.sh --test` installs): its DOM must hold the mistaken step's picture with the differences marked,
and its screenshot must show the marks' colours. Workspaces are built from outputs captured on a live cluster."""

from __future__ import annotations

import json
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from helpers.captures import write_captured_sql
from helpers.pictures_tools import JOINS, pixels_of, read_png, windows_workspace
from typer.testing import CliRunner

from flinklab.cli.app import app
from flinklab.course.registry import get_lab
from flinklab.grading.context import GradingContext
from flinklab.labs.windows import LAB
from flinklab.labs.windows.pictures.svg import MARKS

FIXTURES = LAB.data_dir


class _Elements(HTMLParser):
    """Every start tag with its attributes and the data-step of the failed-step article it sits in."""

    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str | None], str | None]] = []
        self.text: list[str] = []
        self._steps: list[tuple[int, str | None]] = []
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        self._depth += 1
        if tag == "article":
            self._steps.append((self._depth, attributes.get("data-step")))
        self.elements.append((tag, attributes, self._steps[-1][1] if self._steps else None))
        if tag in ("meta",):
            self._depth -= 1  # void element

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs), self._steps[-1][1] if self._steps else None))

    def handle_endtag(self, tag: str) -> None:
        if tag == "article" and self._steps:
            self._steps.pop()
        self._depth -= 1

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def marks(self, step: str, status: str) -> list[dict[str, str | None]]:
        return [a for tag, a, s in self.elements if tag == "rect" and s == step and a.get("data-status") == status]


def _parse(text: str) -> _Elements:
    parser = _Elements()
    parser.feed(text)
    return parser


def _mistaken_workspace(root: Path) -> Path:
    workspace = windows_workspace(root, "cumulate_size_30")
    report = LAB.build_report(workspace)  # as `flinklab run` does after a run
    (workspace / "report.json").write_text(json.dumps(report), encoding="utf-8")
    return workspace


def _check_html(root: Path, lab: str, data_dir: Path | None = None) -> tuple[int, str, Path]:
    data_dir = data_dir or get_lab(lab).data_dir
    page = root / "out" / "report.html"
    result = CliRunner().invoke(app, ["check", lab, "--workspace", str(root), "--data-dir", str(data_dir),
                                      "--html", str(page)])
    return result.exit_code, result.output, page


def test_page_shows_the_mistaken_steps_picture_with_its_differences(tmp_path: Path):
    _mistaken_workspace(tmp_path)
    code, output, page = _check_html(tmp_path, "windows")
    assert code == 1 and f"Wrote {page}" in output
    html = page.read_text(encoding="utf-8")
    parsed = _parse(html)
    steps = [a.get("data-step") for tag, a, _ in parsed.elements if tag == "article"]
    assert steps == ["cumulate", "report"]
    figures = [(a.get("data-picture"), s) for tag, a, s in parsed.elements if tag == "figure"]
    assert figures == [("windows", "cumulate")]  # the report step has no picture
    assert len(parsed.marks("cumulate", "missing")) == 6
    assert {a.get("data-kind") for a in parsed.marks("cumulate", "missing")} == {"cumulate"}
    badges = [a.get("data-mark") for tag, a, s in parsed.elements if tag == "rect" and a.get("data-mark")]
    assert sorted(badges) == ["extra"] * 6 + ["missing"] * 6
    assert len([a for a in parsed.marks("cumulate", "extra") if a.get("data-found-kind") == "cumulate"]) == 6
    assert parsed.marks("cumulate", "wrong") == []
    text = " ".join(parsed.text)
    assert "Wrong window sizes" in text and "12 difference(s)" in text
    assert "cumulate: missing [09:00, 09:40): expected 45 · 10485.14" in text


def test_page_is_self_contained(tmp_path: Path):
    _mistaken_workspace(tmp_path)
    _, _, page = _check_html(tmp_path, "windows")
    html = page.read_text(encoding="utf-8")
    for needle in ("<script", "<link", "<img", "<iframe", "@import", "src="):
        assert needle not in html, needle
    assert html.replace("http://www.w3.org/2000/svg", "").count("http") == 0


def test_all_passed_page_has_no_pictures(tmp_path: Path):
    workspace = windows_workspace(tmp_path)
    code, _, page = _check_html(tmp_path, "windows")
    parsed = _parse(page.read_text(encoding="utf-8"))
    assert code == 0
    assert "Every check passed." in " ".join(parsed.text)
    assert not [tag for tag, _, _ in parsed.elements if tag in ("article", "figure", "svg")]
    rows = [a.get("class") for tag, a, _ in parsed.elements if tag == "tr" and a.get("class")]
    checks = LAB.checks(GradingContext(workspace=workspace, data_dir=FIXTURES))
    assert set(rows) == {"pass"} and len(rows) == len(checks) >= 25


def test_joins_plans_step_shows_the_three_plans(tmp_path: Path):
    workspace = tmp_path / "joins"
    shutil.copytree(JOINS / "solution", workspace)
    write_captured_sql(workspace, "joins", tmp_path / "data", "plans_wrong_query")
    for path in (JOINS / "mistakes" / "plans_wrong_query").iterdir():
        shutil.copy(path, workspace / path.name)
    code, output, page = _check_html(tmp_path, "joins")
    assert code == 1, output
    parsed = _parse(page.read_text(encoding="utf-8"))
    plans = [s for tag, a, s in parsed.elements if tag == "figure" and a.get("data-picture") == "plan"]
    assert plans == ["plans", "plans", "plans"]
    nodes = [a for tag, a, s in parsed.elements if tag == "g" and a.get("data-node-id") and s == "plans"]
    assert nodes and any(a.get("data-stateful") == "true" for a in nodes)


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.fail("chromium is not installed: `scripts/install.sh --test` installs it (apt-get install chromium).")
    return found


def _browser(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    command = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
               f"--user-data-dir={tmp_path / 'chromium-profile'}", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_chromium_renders_the_marks(tmp_path: Path):
    _mistaken_workspace(tmp_path)
    _, _, page = _check_html(tmp_path, "windows")
    shot = tmp_path / "artifacts" / "check-windows-cumulate.png"  # the test's artifact: look at it
    shot.parent.mkdir()
    # one browser run: the DOM it built from the page on stdout, and a screenshot of what it drew
    result = _browser(tmp_path, "--dump-dom", f"--screenshot={shot}", "--window-size=1280,1200",
                      page.resolve().as_uri())
    assert result.returncode == 0 and shot.is_file(), result.stderr[-2000:]
    parsed = _parse(result.stdout)
    assert len([a for a in parsed.marks("cumulate", "missing") if a.get("data-kind") == "cumulate"]) == 6
    assert len([a for a in parsed.marks("cumulate", "extra") if a.get("data-found-kind") == "cumulate"]) == 6
    assert "Points" in " ".join(parsed.text)
    image = read_png(shot)
    assert image.shape[:2] == (1200, 1280)
    badge = 12 * 12
    # six missing and six extra windows, each with a solid badge (most of it visible); no wrong value, so only
    # the legend's badge has that colour
    assert pixels_of(image, MARKS["missing"][0]) >= 6 * badge * 0.6
    assert pixels_of(image, MARKS["extra"][0]) >= 6 * badge * 0.6
    assert pixels_of(image, MARKS["wrong"][0]) <= 2 * badge
    print(f"screenshot: {shot}")


def test_right_rows_emitted_wrongly_say_so(tmp_path: Path):
    windows_workspace(tmp_path, "tumble_agg_time_floor")  # final rows right, but -U/+U updates
    code, _, page = _check_html(tmp_path, "windows")
    parsed = _parse(page.read_text(encoding="utf-8"))
    assert code == 1
    assert [a.get("data-step") for tag, a, _ in parsed.elements if tag == "article"] == ["tumble_agg"]
    assert "Your final windows match the expected ones" in " ".join(parsed.text)
    assert parsed.marks("tumble_agg", "missing") == parsed.marks("tumble_agg", "extra") == []
    assert len(parsed.marks("tumble_agg", "ok")) > 0


def test_chromium_renders_a_topn_steps_ranked_rows(tmp_path: Path):
    """top_orders ranked ascending (a real output): the page shows the Top-N picture, each window once per rank with
    its ranked order, every rank marked wrong on both sides; Chromium draws those badges."""
    workspace = windows_workspace(tmp_path, "top_orders_smallest")
    (workspace / "report.json").write_text(json.dumps(LAB.build_report(workspace)), encoding="utf-8")
    code, _, page = _check_html(tmp_path, "windows")
    assert code == 1
    shot = tmp_path / "artifacts" / "check-windows-top-orders.png"  # the test's artifact: look at it
    shot.parent.mkdir()
    result = _browser(tmp_path, "--dump-dom", f"--screenshot={shot}", "--window-size=1280,1400",
                      page.resolve().as_uri())
    assert result.returncode == 0 and shot.is_file(), result.stderr[-2000:]
    parsed = _parse(result.stdout)
    assert [a.get("data-step") for tag, a, _ in parsed.elements if tag == "article"] == ["top_orders"]
    wrong = parsed.marks("top_orders", "wrong")
    assert len([a for a in wrong if a.get("data-kind")]) == len([a for a in wrong if a.get("data-found-kind")]) == 12
    assert {a.get("data-rank") for a in wrong} == {"1", "2", "3"}
    text = " ".join(parsed.text)
    assert "#24 · 471.83" in text and "#17 · 8.88" in text and "ORDER BY amount sorts ascending" in text
    image = read_png(shot)
    assert pixels_of(image, MARKS["wrong"][0]) >= 24 * 12 * 12 * 0.6  # a badge on each of the 24 bars
    assert pixels_of(image, MARKS["missing"][0]) <= 2 * 12 * 12  # the legend's only
    print(f"screenshot: {shot}")
