"""`flinklab show windows`: the SVG a program can check (every window of the reference as a bar, every order as a
dot inside the bars of its windows), the learner's captured outputs against the expected windows, and the
terminal picture within 80 columns. Offline: the lab's CSV and the outputs captured on a live cluster."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest
from helpers.pictures_tools import ms, svg_elements, windows_workspace
from rich.console import Console
from typer.testing import CliRunner

from flinklab.cli.app import app
from flinklab.errors import UsageError
from flinklab.grading.context import GradingContext
from flinklab.labs.windows import LAB
from flinklab.labs.windows import reference as ref
from flinklab.labs.windows.fixtures import FILE
from flinklab.labs.windows.pictures.figure import VIEWS, windows_figure
from flinklab.labs.windows.pictures.svg import windows_svg
from flinklab.labs.windows.pictures.term import windows_renderable

FIXTURES = LAB.data_dir
ORDERS = ref.load_orders(FIXTURES / FILE)
EXPECTED = json.loads((LAB.mistakes_dir / "expected.json").read_text(encoding="utf-8"))
MISTAKES = {Path(name).stem: case["step"] for name, case in EXPECTED.items()
            if not name.startswith("_") and case["step"] in VIEWS}


def _reference_windows() -> dict[str, set[tuple]]:
    return {
        "tumble": {(s, e, None) for _, (s, e) in ref.tumble_rows(ORDERS)},
        "hop": {(s, e, None) for s, e in ref.hop_agg(ORDERS)},
        "cumulate": {(s, e, None) for s, e in ref.cumulate_agg(ORDERS)},
        "session": {(s.start, s.end, s.key) for s in ref.sessions(ORDERS)},
    }


def _show_svg(tmp_path: Path, *args: str) -> str:
    out = tmp_path / "w.svg"
    empty = tmp_path / "ws"
    empty.mkdir()
    result = CliRunner().invoke(app, ["show", "windows", *args, "--svg", str(out), "--workspace", str(empty),
                                      "--data-dir", str(FIXTURES)])
    assert result.exit_code == 0, result.output
    assert f"Wrote {out}" in result.output
    return out.read_text(encoding="utf-8")


def test_svg_has_every_reference_window_and_every_order(tmp_path: Path):
    text = _show_svg(tmp_path)
    bars = [r for r in svg_elements(text, "rect") if r.get("data-kind")]
    drawn: dict[str, set[tuple]] = defaultdict(set)
    for bar in bars:
        assert bar.get("data-kind") in ("tumble", "hop", "cumulate", "session")
        assert (bar.get("data-shop") is not None) == (bar.get("data-kind") == "session")
        drawn[bar.get("data-kind")].add((ms(bar.get("data-start")), ms(bar.get("data-end")), bar.get("data-shop")))
    reference = _reference_windows()
    assert {kind: len(w) for kind, w in drawn.items()} == {kind: len(w) for kind, w in reference.items()}
    assert drawn == reference
    dots = {int(c.get("data-order")): c for c in svg_elements(text, "circle") if c.get("data-order")}
    assert sorted(dots) == sorted(o.order_id for o in ORDERS) and len(ORDERS) == 119


def test_every_dot_lies_inside_the_bars_of_its_windows(tmp_path: Path):
    text = _show_svg(tmp_path)
    bars = [(r.get("data-kind"), ms(r.get("data-start")), ms(r.get("data-end")), r.get("data-shop"),
             float(r.get("x")), float(r.get("width"))) for r in svg_elements(text, "rect") if r.get("data-kind")]
    dots = {int(c.get("data-order")): float(c.get("cx")) for c in svg_elements(text, "circle") if c.get("data-order")}
    containing = defaultdict(int)
    for order in ORDERS:
        cx = dots[order.order_id]
        for kind, start, end, shop, x, width in bars:
            if start <= order.ts < end and shop in (None, order.shop):
                containing[kind] += 1
                assert x <= cx <= x + width, (order, kind, start, end, x, width, cx)
        # and it is outside the tumble bars it does not belong to (the x axis means time)
        inside = [b for b in bars if b[0] == "tumble" and b[4] <= cx < b[4] + b[5]]
        assert len(inside) == 1 and inside[0][1] <= order.ts < inside[0][2], (order, inside)
    # every order sits in 1 tumble, 2 hop (size / slide), 1 session window and in at least one cumulate window
    assert containing["tumble"] == len(ORDERS) and containing["hop"] == 2 * len(ORDERS)
    assert containing["session"] == len(ORDERS) and containing["cumulate"] >= len(ORDERS)


def test_svg_range_keeps_what_overlaps_it(tmp_path: Path):
    text = _show_svg(tmp_path, "hop", "--from", "09:00", "--to", "09:30")
    day = ref.to_ms("2024-01-15 00:00:00")
    start, end = day + 9 * ref.HOUR, day + 9 * ref.HOUR + 30 * ref.MINUTE
    orders = {int(c.get("data-order")) for c in svg_elements(text, "circle") if c.get("data-order")}
    assert orders == {o.order_id for o in ORDERS if start <= o.ts < end}
    bars = {(ms(r.get("data-start")), ms(r.get("data-end"))) for r in svg_elements(text, "rect") if r.get("data-kind")}
    assert bars == {w for w in ref.hop_agg(ORDERS) if w[0] < end and w[1] > start}
    assert {r.get("data-kind") for r in svg_elements(text, "rect") if r.get("data-kind")} == {"hop"}


def test_solution_outputs_match_the_expected_windows(tmp_path: Path):
    figure = windows_figure(ORDERS, workspace=windows_workspace(tmp_path))
    assert figure.compared and figure.differences == []
    assert {bar.status for bar in figure.bars()} == {"ok"}
    assert {band.source for band in figure.bands} == {"expected", "yours"}


def _rows_check_failed(workspace: Path, step: str) -> bool:
    results = LAB.checks(GradingContext(workspace=workspace, data_dir=FIXTURES))
    # the checks of the rows only: not the changelog kind, not the syntax (a legacy group window can be right), not
    # a rows check failed for its SQL (GROUP BY without window_end: right rows, but not a window aggregation)
    return any(not r.passed for r in results
               if r.step == step and "insert-only" not in r.name and "window TVF" not in r.name
               and "to group by window_start and window_end" not in r.message)


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_a_captured_mistake_shows_differences_exactly_when_its_rows_are_wrong(tmp_path: Path, mistake: str):
    step = MISTAKES[mistake]
    workspace = windows_workspace(tmp_path, mistake)
    figure = windows_figure(ORDERS, step, workspace)
    assert figure.compared
    assert bool(figure.differences) == _rows_check_failed(workspace, step), figure.differences
    marked = [r for r in svg_elements(windows_svg(figure).to_string(), "rect")
              if r.get("data-status") in ("missing", "wrong", "extra")]
    assert len(marked) == len([b for b in figure.bars() if b.status in ("missing", "wrong", "extra")])
    assert bool(marked) == bool(figure.differences)


def test_cumulate_size_30_marks_missing_and_extra_windows(tmp_path: Path):
    figure = windows_figure(ORDERS, "cumulate", windows_workspace(tmp_path, "cumulate_size_30"))
    text = windows_svg(figure).to_string()
    rects = svg_elements(text, "rect")
    missing = {(r.get("data-start")[11:16], r.get("data-end")[11:16]) for r in rects
               if r.get("data-kind") == "cumulate" and r.get("data-status") == "missing"}
    extra = {(r.get("data-start")[11:16], r.get("data-end")[11:16]) for r in rects
             if r.get("data-found-kind") == "cumulate" and r.get("data-status") == "extra"}
    # 30-minute windows: those up to 30 minutes long match, the 40-60 minute ones are missing, the :30 ones extra
    assert missing == {("09:00", "09:40"), ("09:00", "09:50"), ("09:00", "10:00"),
                       ("10:00", "10:40"), ("10:00", "10:50"), ("10:00", "11:00")}
    assert extra == {("09:30", "09:40"), ("09:30", "09:50"), ("09:30", "10:00"),
                     ("10:30", "10:40"), ("10:30", "10:50"), ("10:30", "11:00")}
    ok = [r for r in rects if r.get("data-kind") == "cumulate" and r.get("data-status") == "ok"]
    assert len(ok) == 6
    assert len([r for r in rects if r.get("data-mark")]) == 12  # one badge per difference


def test_a_wrong_count_is_marked_wrong_on_both_sides(tmp_path: Path):
    workspace = windows_workspace(tmp_path)
    hop = workspace / "hop.out"
    # derived from the captured output: one window's count changed, the table's widths kept
    row = "| +I | 2024-01-15 09:00:00.000 | 2024-01-15 09:10:00.000 |                    9 |"
    text = hop.read_text(encoding="utf-8")
    assert row in text
    hop.write_text(text.replace(row, row.replace("   9 |", "  10 |")), encoding="utf-8")
    figure = windows_figure(ORDERS, "hop", workspace)
    assert figure.differences == ["hop: wrong value [09:00, 09:10): expected 9, yours 10"]
    wrong = [b for b in figure.bars() if b.status == "wrong"]
    assert [(b.source, b.value.orders, b.other.orders) for b in wrong] == [("expected", 9, 10), ("yours", 10, 9)]


def test_an_error_output_misses_every_window(tmp_path: Path):
    figure = windows_figure(ORDERS, "hop", windows_workspace(tmp_path, "hop_args_reversed"))
    assert any("hop.out shows an error" in note for note in figure.notes)
    assert len(figure.differences) == len(ref.hop_agg(ORDERS))
    assert all(d.startswith("hop: missing") for d in figure.differences)


def _terminal(figure) -> list[str]:
    console = Console(width=80, record=True, force_terminal=False)
    console.print(windows_renderable(figure, console.width))
    return console.export_text().splitlines()


def test_terminal_picture_fits_80_columns_and_marks_differences(tmp_path: Path):
    plain = _terminal(windows_figure(ORDERS, default_span=30 * ref.MINUTE))
    assert max(len(line) for line in plain) <= 80
    assert "09:00–09:30 of 08:50–11:10" in plain[1]
    assert any(line.startswith("tumble") and line.count("[") == 3 for line in plain), plain
    figure = windows_figure(ORDERS, "cumulate", windows_workspace(tmp_path, "cumulate_size_30"),
                            default_span=30 * ref.MINUTE)
    lines = _terminal(figure)
    assert max(len(line) for line in lines) <= 80
    bars = [line for line in lines if "[" in line and not line.startswith("[start")]
    assert sum(line.count("✗") for line in bars) == 3  # the 40, 50 and 60-minute windows from 09:00 begin here
    assert "✗ missing" in lines[-14]  # the legend
    assert "12 difference(s):" in lines


@pytest.mark.parametrize("args, message", [
    (["nope"], "No windows picture for step 'nope'."),
    (["--from", "9:75"], "--from '9:75' is not a time of day."),
    (["--from", "10:00", "--to", "09:00"], "--to 09:00 is not after --from 10:00."),
])
def test_bad_input_is_one_line_and_exit_2(args: list[str], message: str):
    result = CliRunner().invoke(app, ["show", "windows", *args, "--data-dir", str(FIXTURES)])
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_missing_data_names_the_file(tmp_path: Path):
    with pytest.raises(UsageError, match="windows_orders.csv is not in"):
        from flinklab.labs.windows.pictures.figure import load_orders
        load_orders(tmp_path)


def test_a_cut_short_output_is_drawn_with_what_it_holds(tmp_path: Path):
    workspace = windows_workspace(tmp_path)
    session = workspace / "session.out"
    text = session.read_text(encoding="utf-8")
    session.write_text(text[: len(text) // 2], encoding="utf-8")  # a run killed half-way
    figure = windows_figure(ORDERS, "session", workspace)
    found = [b for b in figure.bars() if b.source == "yours"]
    assert 0 < len(found) < len(ref.sessions(ORDERS))
    assert all(d.startswith("session: missing") for d in figure.differences)
    assert len(figure.differences) == len(ref.sessions(ORDERS)) - len(found)
    windows_svg(figure).to_string()


# ---- the Top-N steps: each window once per rank, labelled with its ranked row ------------------------------------

TOPN = {"top_shops": (ref.top_shops, 2, "{}"), "top_orders": (ref.top_orders, 3, "#{}")}


@pytest.mark.parametrize("step", sorted(TOPN))
def test_a_topn_picture_draws_every_ranked_row_of_the_reference(tmp_path: Path, step: str):
    ranked_of, n, item = TOPN[step]
    text = _show_svg(tmp_path, step)
    bars = [r for r in svg_elements(text, "rect") if r.get("data-kind")]
    drawn = {(ms(r.get("data-start")), ms(r.get("data-end")), int(r.get("data-rank")), r.get("data-item"),
              r.get("data-revenue")) for r in bars}
    expected = {(r.window[0], r.window[1], r.rn, item.format(r.key), str(r.value)) for r in ranked_of(ORDERS)}
    assert drawn == expected and len(bars) == len(expected)
    assert {r.get("data-kind") for r in bars} == {"tumble"}
    labels = {t.text for t in svg_elements(text, "text")}
    assert {f"rank {i}" for i in range(1, n + 1)} <= labels and f"rank {n + 1}" not in labels
    first = ranked_of(ORDERS)[0]  # the label names the row and its value, as the output prints them
    assert f"{item.format(first.key)} · {first.value}" in labels
    assert "bars: [window_start, window_end), label = " + ("shop · revenue" if step == "top_shops" else
                                                           "order · amount") in labels


def test_a_topn_of_the_solution_matches_and_a_partition_mistake_draws_no_difference(tmp_path: Path):
    for mistake in (None, "top_shops_partition_start", "top_shops_partition_end"):  # right final rows, -U/+U
        figure = windows_figure(ORDERS, "top_shops", windows_workspace(tmp_path / (mistake or "solution"), mistake))
        assert figure.compared and figure.differences == [], (mistake, figure.differences)
        assert {bar.status for bar in figure.bars()} == {"ok"}


def test_too_many_ranks_are_an_extra_lane(tmp_path: Path):
    figure = windows_figure(ORDERS, "top_shops", windows_workspace(tmp_path, "top_shops_top_3"))
    yours = next(band for band in figure.bands if band.source == "yours")
    assert [lane.label for lane in yours.lanes] == ["rank 1", "rank 2", "rank 3"]
    third = yours.lanes[2].bars
    windows_with_three = {r.window for r in ref.top_shops(ORDERS, n=3) if r.rn == 3}
    assert {(b.value.start, b.value.end) for b in third} == windows_with_three
    assert {b.status for b in third} == {"extra"} and {b.status for lane in yours.lanes[:2] for b in lane.bars} == \
        {"ok"}
    assert figure.differences[0] == "top_shops: extra [09:00, 09:10) rank 3: yours B · 339.78"
    assert len(figure.differences) == len(windows_with_three)


def test_the_smallest_orders_are_wrong_values_at_every_rank(tmp_path: Path):
    figure = windows_figure(ORDERS, "top_orders", windows_workspace(tmp_path, "top_orders_smallest"))
    wrong = [b for b in figure.bars() if b.status == "wrong"]
    assert len(wrong) == 2 * len(ref.top_orders(ORDERS)) and {b.status for b in figure.bars()} == {"wrong"}
    assert figure.differences[0] == "top_orders: wrong value [09:00, 09:30) rank 1: expected #24 · 471.83, yours " \
                                    "#17 · 8.88"
    legend = {t.text for t in svg_elements(windows_svg(figure).to_string(), "text")}
    assert "wrong value: same window and rank, another row or value" in legend


def test_a_topn_in_the_terminal_fits_80_columns_with_its_labels(tmp_path: Path):
    lines = _terminal(windows_figure(ORDERS, "top_shops", windows_workspace(tmp_path, "top_shops_top_3"),
                                     default_span=30 * ref.MINUTE))
    bars = [line for line in lines if line.startswith("rank ")]
    assert max(len(line) for line in lines if not line.startswith("  top_shops:")) <= 80
    assert bars[0] == "rank 1     [D · 629.87 ─────────)[D · 1054.30 ─────────)[E · 1483.17 ─────────)"
    assert bars[-1].startswith("rank 3     [+B · 339.78 ")  # the extra rank, marked
    assert "[start, end) = a window; label = shop · revenue" in lines


def test_show_windows_takes_the_topn_steps(tmp_path: Path):
    empty = tmp_path / "ws"
    empty.mkdir()
    for step in ("top_shops", "top_orders"):
        result = CliRunner().invoke(app, ["show", "windows", step, "--workspace", str(empty),
                                          "--data-dir", str(FIXTURES)])
        assert result.exit_code == 0, result.output
        assert "No windows picture" not in result.output and "rank 1" in result.output


def test_a_fresh_workspace_is_one_note_not_one_per_output(tmp_path: Path):
    """flink-up creates the workspace empty: the figure says once which outputs are not there yet."""
    empty = tmp_path / "windows"
    empty.mkdir()
    figure = windows_figure(ORDERS, workspace=empty)
    assert figure.notes == [f"no tumble.out, hop.out, cumulate.out, session.out in {empty}: the expected windows only"]
    assert not figure.compared
