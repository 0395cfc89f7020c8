"""flinklab.notebook without a cluster: the `%%flink` options, the displays over the shell's fold (max-rows note,
coalesced redraws), and the magics in a real IPython shell answering a gateway that is not there with one line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers.env import free_port, make_settings

from flinklab.errors import UsageError
from flinklab.notebook.display import LiveDisplay, View, make_store
from flinklab.notebook.kernel import KernelSession
from flinklab.notebook.magics import FlinkMagics, parse_cell_line


def test_cell_options_as_the_issue_names_them() -> None:
    options = parse_cell_line("--display append --max-rows 5 --refresh-ms 100 --as df --lab joins --save regular")
    assert (options.display, options.max_rows, options.refresh_ms, options.as_name, options.lab, options.save) == \
        ("append", 5, 100, "df", "joins", "regular")
    default = parse_cell_line("")
    assert (default.display, default.max_rows, default.refresh_ms) == (None, 1000, 500)


@pytest.mark.parametrize("line, culprit", [
    ("--display table", "--display"), ("--refresh-ms 50", "--refresh-ms"), ("--max-rows 0", "--max-rows"),
    ("--save regular", "--lab and --save"), ("--as 1x", "--as"), ("--nope", "--nope"), ("--as 'x", "quote"),
])
def test_bad_cell_options_are_one_usage_error_naming_the_culprit(line: str, culprit: str) -> None:
    with pytest.raises(UsageError) as caught:
        parse_cell_line(line)
    assert culprit in caught.value.message + (caught.value.hint or "")
    assert "\n" not in caught.value.message


@pytest.mark.parametrize("line, message", [
    ("--max-rows 0", "%%flink: --max-rows must be a positive whole number, not '0'."),
    ("--max-rows=-3", "%%flink: --max-rows must be a positive whole number, not '-3'."),
    ("--max-rows ten", "%%flink: --max-rows must be a positive whole number, not 'ten'."),
    ("--refresh-ms 5", "%%flink: --refresh-ms must be a whole number of milliseconds, at least 100, not '5'."),
    ("--refresh-ms 0.5", "%%flink: --refresh-ms must be a whole number of milliseconds, at least 100, not '0.5'."),
])
def test_number_options_say_what_they_must_be_in_one_line(line: str, message: str) -> None:
    """Not argparse's `invalid a positive integer value: '0'` (its message names the type function)."""
    with pytest.raises(UsageError) as caught:
        parse_cell_line(line)
    flag = line.split()[0].split("=")[0]
    assert caught.value.message == message
    assert caught.value.hint is not None and caught.value.hint.startswith(f"For example: {flag} ")
    assert parse_cell_line(caught.value.hint.removeprefix("For example: ")) is not None  # the example is valid


class Recorder:
    """IPython's display(), as far as LiveDisplay uses it: the first call makes a handle, updates go to it."""

    def __init__(self) -> None:
        self.shown: list[dict[str, str]] = []

    def __call__(self, bundle: dict[str, str], raw: bool, display_id: bool) -> Any:
        self.shown.append(bundle)
        return self

    def update(self, bundle: dict[str, str], raw: bool) -> None:
        self.shown.append(bundle)


COLUMNS = [{"name": "tier", "logicalType": {"type": "VARCHAR"}}, {"name": "n", "logicalType": {"type": "BIGINT"}}]


def test_update_folds_the_changelog_and_redraws_only_what_changed() -> None:
    view = View("update", COLUMNS, make_store("update", 1000))
    shown = Recorder()
    live = LiveDisplay(view, shown)
    view.store.apply([("+I", ["gold", "1"]), ("-U", ["gold", "1"]), ("+U", ["gold", "2"]), ("+I", ["bronze", "1"])])
    live.draw("running")
    live.draw("running")  # nothing changed: no redraw
    assert len(shown.shown) == 1
    assert "|   gold | 2 |" in shown.shown[0]["text/plain"]
    assert "<td>gold</td><td>2</td>" in shown.shown[0]["text/html"]
    view.store.apply([("-U", ["gold", "2"]), ("+U", ["gold", "3"])])
    live.draw("running")
    assert len(shown.shown) == 2 and "<td>gold</td><td>3</td>" in shown.shown[1]["text/html"]
    assert view.frame().values.tolist() == [["bronze", 1], ["gold", 3]]


def test_append_keeps_the_row_kind_and_notes_rows_dropped_beyond_max_rows() -> None:
    view = View("append", COLUMNS, make_store("append", 3))
    view.store.apply([("+I", ["gold", "1"]), ("-U", ["gold", "1"]), ("+U", ["gold", "2"]), ("+I", ["x", "1"])])
    bundle = view.bundle("done")
    assert "the oldest 1 rows were dropped: --max-rows keeps 3" in bundle["text/plain"]
    assert view.frame().values.tolist() == [["-U", "gold", 1], ["+U", "gold", 2], ["+I", "x", 1]]
    assert list(view.frame().columns) == ["op", "tier", "n"]
    table = View("update", COLUMNS, make_store("update", 2))
    table.store.apply([("+I", [str(i), "1"]) for i in range(5)])
    assert len(table.rows()) == 2 and "the oldest 3 rows were dropped" in table.bundle("done")["text/plain"]


def test_a_failed_query_leaves_no_running_line_above_its_error() -> None:
    """Before any row: the display is emptied; after some: they stay, under a line saying the query failed."""
    view = View("table", COLUMNS, make_store("table", 10))
    shown = Recorder()
    live = LiveDisplay(view, shown)
    live.draw("Running: received 0 rows so far, showing 0")
    live.fail("Failed after 0 rows: the error is below")
    assert shown.shown[-1] == {"text/plain": ""}
    view = View("update", COLUMNS, make_store("update", 10))
    shown = Recorder()
    live = LiveDisplay(view, shown)
    view.store.apply([("+I", ["gold", "1"]), ("+I", ["bronze", "1"])])
    live.draw("Running: received 2 rows so far, showing 2")
    live.fail("Failed after 2 rows: the error is below")
    last = shown.shown[-1]
    assert last["text/plain"].splitlines()[-1] == "Failed after 2 rows: the error is below"
    assert "|   gold | 1 |" in last["text/plain"] and "Running" not in last["text/plain"] + last["text/html"]
    assert len(shown.shown) == 2


def test_single_shows_the_latest_value_large() -> None:
    view = View("single", COLUMNS[1:], make_store("single", 10))
    view.store.apply([("+I", ["1"]), ("-U", ["1"]), ("+U", ["2"])])
    bundle = view.bundle("Received a total of 3 rows")
    assert bundle["text/plain"].splitlines()[0] == "n: 2"
    assert 'font-size:2.6em' in bundle["text/html"] and ">2</div>" in bundle["text/html"]


def test_magics_answer_a_missing_gateway_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from IPython.testing.globalipapp import get_ipython

    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))  # the shell's dir: never the user's ~/.ipython

    settings = make_settings(tmp_path, rest_port=free_port(), gateway_port=free_port())
    ip = get_ipython()
    magics = FlinkMagics(ip, KernelSession(lambda: settings))
    url = f"http://127.0.0.1:{free_port()}"
    magics.flink_connect(url)
    magics.flink_connect(f"{url} --token-file {tmp_path / 'missing'}")
    assert magics.flink("", "SELECT 1") is None  # no %flink_connect: the default gateway (not running)
    assert magics.flink("--display nope", "SELECT 1") is None
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"No SQL gateway answers at {url}. Start the cluster and its gateway with `flink-up`."
    assert err[1].startswith(f"Cannot read the token file {tmp_path / 'missing'}")
    # the default is found as sql-client.sh finds it: the recorded cluster is asked first, as its client does
    assert err[2].startswith(f"No Flink cluster answers at http://127.0.0.1:{settings.rest_port}. Start one")
    assert err[3].startswith("%%flink: argument --display: invalid choice: 'nope'")
    assert len(err) == 4
