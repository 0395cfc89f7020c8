"""Bad inputs, as a new user makes them, against every command that needs no running cluster.

One table of cases. Each runs a console script (in this process through the same `run()` the script calls, or as
a real process where the entry point itself is under test) in a fresh temporary HOME, workspace, data dir and
state dir, with FLINKLAB_REST_PORT on a free port where nothing listens, and asserts:
- the exit status;
- that the output names the culprit (every string in `culprit`);
- that no traceback appears;
- that no file under the temporary root changed without a backup (`FILE.bak-*` holding the old content), and that
  no file appeared outside the case's allowed outputs.
"""

from __future__ import annotations

import codecs
import hashlib
import importlib
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from helpers.captures import write_captured_sql
from helpers.env import free_port

from flinklab.course.registry import get_lab

TESTS = Path(__file__).resolve().parent.parent
PROJECT = TESTS.parent
SOLUTIONS = {"joins": TESTS / "data" / "joins" / "outputs" / "solution",
             "windows": TESTS / "data" / "windows" / "outputs" / "solution"}
#: the built-in labs' committed CSVs (package data)
LAB_CSVS = [path for lab in SOLUTIONS for path in get_lab(lab).data_files()]
ENTRY_POINTS = {"flinklab": "main", "flink-up": "flink_up_main", "flink-down": "flink_down_main",
                "sql-client.sh": "sql_client_main"}
BIG = (1 << 30) + 1  # one byte over the grader's bound on an output (a sparse file: nothing is written)

Setup = Callable[[Path], None]


@dataclass
class Case:
    id: str
    args: list[str]  # the console script and its arguments; `{root}` is replaced by the temporary root
    setup: Setup | None
    status: int
    culprit: tuple[str, ...]
    process: bool = False  # run the console script as a real process (option parsing, entry points)
    new_files: tuple[str, ...] = ()  # paths (relative to the root, fnmatch-style) a case may create
    env: dict[str, str] = field(default_factory=dict)
    #: run without the power to read or write any file (as root: CAP_DAC_OVERRIDE dropped), so modes count
    unprivileged: bool = False


# ---- how files go bad -----------------------------------------------------------------------------------------


def _ws(root: Path, lab: str, name: str) -> Path:
    return root / "ws" / lab / name


def put(lab: str, name: str, data: bytes | str) -> Setup:
    def setup(root: Path) -> None:
        path = _ws(root, lab, name)
        path.unlink(missing_ok=True)
        path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)

    return setup


def edit(lab: str, name: str, change: Callable[[str], str]) -> Setup:
    def setup(root: Path) -> None:
        path = _ws(root, lab, name)
        path.write_text(change(path.read_text(encoding="utf-8")), encoding="utf-8")

    return setup


def data_edit(name: str, change: Callable[[str], str]) -> Setup:
    def setup(root: Path) -> None:
        path = root / "data" / name
        path.write_text(change(path.read_text(encoding="utf-8")), encoding="utf-8")

    return setup


def data_put(name: str, data: bytes) -> Setup:
    def setup(root: Path) -> None:
        (root / "data" / name).write_bytes(data)

    return setup


def remove(path_of: Callable[[Path], Path]) -> Setup:
    def setup(root: Path) -> None:
        path_of(root).unlink()

    return setup


def make_dir(path_of: Callable[[Path], Path]) -> Setup:
    def setup(root: Path) -> None:
        path = path_of(root)
        path.unlink(missing_ok=True)
        path.mkdir()

    return setup


def symlink_loop(path_of: Callable[[Path], Path]) -> Setup:
    def setup(root: Path) -> None:
        path = path_of(root)
        path.unlink(missing_ok=True)
        path.symlink_to(path.name)  # a link to itself

    return setup


def eio(path_of: Callable[[Path], Path]) -> Setup:
    """A path whose read fails with EIO: /proc/self/mem at offset 0 (a real kernel read error)."""

    def setup(root: Path) -> None:
        path = path_of(root)
        path.unlink(missing_ok=True)
        path.symlink_to("/proc/self/mem")

    return setup


def fifo(path_of: Callable[[Path], Path]) -> Setup:
    def setup(root: Path) -> None:
        path = path_of(root)
        path.unlink(missing_ok=True)
        os.mkfifo(path)

    return setup


def huge(path_of: Callable[[Path], Path]) -> Setup:
    def setup(root: Path) -> None:
        path = path_of(root)
        with open(path, "wb") as fh:
            fh.truncate(BIG)

    return setup


def utf16(path_of: Callable[[Path], Path]) -> Setup:
    def setup(root: Path) -> None:
        path = path_of(root)
        path.write_bytes(codecs.BOM_UTF16_LE + path.read_text(encoding="utf-8").encode("utf-16-le"))

    return setup


def latin1(path_of: Callable[[Path], Path]) -> Setup:
    def setup(root: Path) -> None:
        path = path_of(root)
        path.write_bytes(b"caf\xe9\n" + path.read_bytes())

    return setup


def binary(path_of: Callable[[Path], Path]) -> Setup:
    def setup(root: Path) -> None:
        path_of(root).write_bytes(bytes(range(256)) * 8)

    return setup


def truncate_half(path_of: Callable[[Path], Path]) -> Setup:
    def setup(root: Path) -> None:
        path = path_of(root)
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])

    return setup


def chmod(path_of: Callable[[Path], Path], mode: int) -> Setup:
    def setup(root: Path) -> None:
        path_of(root).chmod(mode)

    return setup


def both(*setups: Setup) -> Setup:
    def setup(root: Path) -> None:
        for one in setups:
            one(root)

    return setup


# ---- the table --------------------------------------------------------------------------------------------------

#: For each kind of broken file: how to break it and what the message says about it.
FILE_FAULTS: dict[str, tuple[Callable[[Callable[[Path], Path]], Setup], str]] = {
    "missing": (remove, "does not exist"),
    "directory": (make_dir, "is a directory"),
    "symlink-loop": (symlink_loop, "symbolic link loop"),
    "eio": (eio, "Input/output error"),
    "fifo": (fifo, "not a regular file"),
    "huge": (huge, "MiB the grader reads"),
    "utf16": (utf16, "UTF-16"),
    "latin1": (latin1, "not UTF-8 text (byte 0xe9 on line 1)"),
    "binary": (binary, "NUL bytes"),
}

#: Workspace files of each lab whose faults are graded as failed checks (exit 1), naming the file.
GRADED_FILES = {
    "joins": ("count.out", "regular.out", "latest.out", "regular-plan.json", "report.json"),
    "windows": ("tumble.out", "hop_reversed.out", "report.json"),
}


def _file_fault_cases() -> list[Case]:
    cases = []
    for lab, names in GRADED_FILES.items():
        for name in names:
            for fault, (make, says) in FILE_FAULTS.items():
                if lab == "windows" and fault in ("huge", "fifo", "eio"):
                    continue  # the same reader; the joins cases cover these classes
                cases.append(Case(f"check-{lab}-{name}-{fault}", ["flinklab", "check", lab],
                                  make(lambda root, lab=lab, name=name: _ws(root, lab, name)), 1, (name, says)))
    return cases


def _empty_and_truncated_cases() -> list[Case]:
    return [
        Case("check-joins-count.out-empty", ["flinklab", "check", "joins"], put("joins", "count.out", ""), 1,
             ("count.out holds no result table",)),
        Case("check-joins-report-empty", ["flinklab", "check", "joins"], put("joins", "report.json", ""), 1,
             ("report.json is not valid JSON",)),
        Case("check-joins-plan-empty", ["flinklab", "check", "joins"], put("joins", "interval-plan.json", ""), 1,
             ("interval-plan.json is not valid JSON",)),
        Case("check-joins-latest-truncated", ["flinklab", "check", "joins"],
             truncate_half(lambda r: _ws(r, "joins", "latest.out")), 1,
             ("latest.out ends without a footer",)),
        Case("check-joins-plan-truncated", ["flinklab", "check", "joins"],
             truncate_half(lambda r: _ws(r, "joins", "temporal-plan.json")), 1,
             ("temporal-plan.json is not valid JSON",)),
        Case("check-joins-report-truncated", ["flinklab", "check", "joins"],
             truncate_half(lambda r: _ws(r, "joins", "report.json")), 1, ("report.json is not valid JSON",)),
        Case("check-windows-hop-empty", ["flinklab", "check", "windows"], put("windows", "hop.out", ""), 1,
             ("hop.out holds no result table",)),
        Case("check-windows-session-truncated", ["flinklab", "check", "windows"],
             truncate_half(lambda r: _ws(r, "windows", "session.out")), 1, ("session.out ends without a footer",)),
        Case("check-joins-workspace-missing", ["flinklab", "check", "joins"],
             lambda r: shutil.rmtree(r / "ws" / "joins"), 2, ("No workspace for 'joins'",)),
        Case("check-joins-workspace-is-a-file", ["flinklab", "check", "joins"],
             lambda r: (shutil.rmtree(r / "ws" / "joins"), (r / "ws" / "joins").write_text("x")), 2,
             ("No workspace for 'joins'",)),
    ]


REPORT = '{"matched_orders": 1, "interval_rows": 1, "unshipped_orders": 1, "temporal_rows": 1, ' \
    '"orders_without_rate": 1, "usd_gap_krw": %s}'


def _report_value_cases() -> list[Case]:
    joins = [
        ("nan", "NaN", "found NaN, which is not a finite number"),
        ("infinity", "Infinity", "found Infinity, which is not a finite number"),
        ("minus-infinity", "-Infinity", "found -Infinity"),
        ("string", '"12.5"', 'found "12.5"'),
        ("null", "null", "found null"),
        ("array", "[1, 2]", "found [1, 2]"),
        ("object", '{"v": 1}', 'found {"v": 1}'),
        ("bool", "true", "found true"),
        ("huge-exponent", "1e999999", "found Infinity"),
        ("ten-mb-int", "1" * 10_000_000, "report.json is not valid JSON"),
    ]
    cases = [Case(f"check-joins-report-{name}", ["flinklab", "check", "joins"],
                  put("joins", "report.json", REPORT % value), 1,
                  # an unreadable report is one failure, not one per field
                  ("report: report.json" if name == "ten-mb-int" else "report: usd_gap_krw", says))
             for name, value, says in joins]
    cases += [
        Case("check-joins-report-list", ["flinklab", "check", "joins"], put("joins", "report.json", "[1, 2]"), 1,
             ("report.json is not a JSON object",)),
        Case("check-joins-report-deep", ["flinklab", "check", "joins"],
             put("joins", "report.json", "[" * 100_000 + "]" * 100_000), 1, ("report.json is nested too deeply",)),
        Case("check-joins-report-count-string", ["flinklab", "check", "joins"],
             put("joins", "report.json", REPORT.replace('"interval_rows": 1', '"interval_rows": "7"') % 1), 1,
             ('found "7"', "Write interval_rows as a whole number")),
        Case("check-windows-report-nan", ["flinklab", "check", "windows"],
             edit("windows", "report.json", lambda t: re.sub(r'"sessions": \d+', '"sessions": NaN', t)), 1,
             ("report: sessions", "found NaN")),
        Case("check-windows-report-fraction", ["flinklab", "check", "windows"],
             edit("windows", "report.json", lambda t: re.sub(r'"orders": \d+', '"orders": 1.5', t)), 1,
             ("report: orders", "found 1.5")),
        Case("check-joins-plan-state-not-a-list", ["flinklab", "check", "joins"],
             edit("joins", "regular-plan.json", lambda t: t.replace('"state" : [', '"state" : "x", "_s": [', 1)), 1,
             ("regular-plan.json: the state of node", "is not a list")),
        Case("check-joins-plan-state-index-text", ["flinklab", "check", "joins"],
             edit("joins", "regular-plan.json", lambda t: re.sub(r'"index" : 0', '"index" : "first"', t, count=1)), 1,
             ("regular-plan.json: a state entry of node", "is not as COMPILE PLAN writes it")),
        Case("check-joins-plan-not-a-plan", ["flinklab", "check", "joins"],
             put("joins", "regular-plan.json", '{"flinkVersion": "2.2"}'), 1,
             ("regular-plan.json is JSON but not a compiled plan",)),
        Case("check-joins-plan-deep", ["flinklab", "check", "joins"],
             put("joins", "interval-plan.json", "[" * 100_000), 1, ("interval-plan.json",)),
    ]
    return cases


def _output_content_cases() -> list[Case]:
    def count_cell(value: str) -> Callable[[str], str]:
        return lambda text: re.sub(r"\|\s+users \|\s+\d+ \|", f"| users | {value} |", text)

    return [
        Case("check-joins-count-non-numeric", ["flinklab", "check", "joins"], edit("joins", "count.out",
             count_cell("abc")), 1, ("expected users n =", "found n = 'abc', which is not a whole number")),
        Case("check-joins-count-ten-mb-digits", ["flinklab", "check", "joins"], edit("joins", "count.out",
             count_cell("9" * 10_000_000)), 1, ("expected users n =", "characters), which is not a whole number")),
        Case("check-joins-count-header-one-cell-more", ["flinklab", "check", "joins"],
             edit("joins", "count.out", lambda t: re.sub(r"(\+-+\+-+\+)\n(\| +tbl \| +n \|)\n(\+-+\+-+\+)",
                                                         r"\1----+\n\2 xx |\n\3----+", t)), 1,
             ("count.out holds a malformed result table", "a row of 2 cells under a header of 3")),
        Case("check-joins-regular-error", ["flinklab", "check", "joins"],
             put("joins", "regular.out", "[ERROR] Could not execute SQL statement. Reason:\n"
                 "org.apache.flink.table.api.ValidationException: Object 'orderz' not found\n"), 1,
             ("regular.out shows an error", "Object 'orderz' not found")),
        Case("check-joins-interval-columns-renamed", ["flinklab", "check", "joins"],
             edit("joins", "interval.out", lambda t: t.replace("delay_s |", "delay_x |", 1)), 1,
             ("interval.out has no delay_s",)),
        Case("check-joins-latest-columns-reordered", ["flinklab", "check", "joins"],
             edit("joins", "latest.out", lambda t: re.sub(r"^\| op \|.*currency.*$", lambda m: m.group().replace(
                 "currency", "@").replace("total_krw", "currency").replace("@", "total_krw"), t, count=1,
                 flags=re.M)), 1, ("latest.out has no ",)),
        Case("check-joins-count-crlf-and-bom", ["flinklab", "check", "joins"],
             lambda r: _ws(r, "joins", "count.out").write_bytes(
                 codecs.BOM_UTF8 + _ws(r, "joins", "count.out").read_bytes().replace(b"\n", b"\r\n")), 0,
             ("All 28 checks passed",)),
        Case("check-windows-tumble-only-border", ["flinklab", "check", "windows"],
             put("windows", "tumble.out", "+-" * 1_000_000 + "x\n"), 1, ("tumble.out holds no result table",)),
        Case("check-windows-top-orders-cells-missing", ["flinklab", "check", "windows"],
             edit("windows", "top_orders.out", lambda t: t.replace("+I |", "+I", 3)), 1, ("top_orders",)),
    ]


def _csv(root: Path, name: str) -> Path:
    return root / "data" / name


def _data_cases() -> list[Case]:
    cases = []
    for name, lab in (("joins_orders.csv", "joins"), ("joins_users.csv", "joins"),
                      ("windows_orders.csv", "windows")):
        # a missing CSV is provisioned from the lab's package, as flink-up does (a lab installed after it)
        make, _ = FILE_FAULTS["missing"]
        cases.append(Case(f"check-{lab}-data-{name}-missing", ["flinklab", "check", lab],
                          make(lambda root, name=name: _csv(root, name)), 0,
                          (f"Provisioned the data of {lab} into {{root}}/data ({name})",), new_files=(f"data/{name}",)))
        for fault in ("directory", "symlink-loop", "utf16", "latin1", "binary"):
            make, says = FILE_FAULTS[fault]
            cases.append(Case(f"check-{lab}-data-{name}-{fault}", ["flinklab", "check", lab],
                              make(lambda root, name=name: _csv(root, name)), 2, (name, says)))
    first = lambda text: text.splitlines()[0]  # noqa: E731
    cases += [
        Case("check-joins-data-amount-not-a-number", ["flinklab", "check", "joins"],
             data_edit("joins_orders.csv", lambda t: re.sub(r",[\d.]+,(2024-)", r",12..5,\1", t, count=1)), 2,
             ("joins_orders.csv line 1, column amount: '12..5' is not a number",)),
        Case("check-joins-data-amount-nan", ["flinklab", "check", "joins"],
             data_edit("joins_orders.csv", lambda t: re.sub(r",[\d.]+,(2024-)", r",NaN,\1", t, count=1)), 2,
             ("column amount: 'NaN' is not a number",)),
        Case("check-joins-data-bad-time", ["flinklab", "check", "joins"],
             data_edit("joins_rates.csv", lambda t: t.replace("2024-03-04", "2024-13-04", 1)), 2,
             ("joins_rates.csv line 1, column update_time", "is not a time (yyyy-MM-dd HH:mm:ss)")),
        Case("check-joins-data-extra-column", ["flinklab", "check", "joins"],
             data_edit("joins_users.csv", lambda t: t.replace("\n", ",extra\n", 1)), 2,
             ("joins_users.csv line 1: 4 values, expected 3 (user_id, tier, signup_time)",)),
        Case("check-joins-data-missing-column", ["flinklab", "check", "joins"],
             data_edit("joins_shipments.csv", lambda t: t.replace(first(t), first(t).rsplit(",", 1)[0], 1)), 2,
             ("joins_shipments.csv line 1: 2 values, expected 3",)),
        Case("check-joins-data-reordered-columns", ["flinklab", "check", "joins"],
             data_edit("joins_orders.csv", lambda t: "\n".join(
                 ",".join(row.split(",")[i] for i in (0, 1, 3, 2, 4)) if row else row for row in t.split("\n"))),
             2, ("joins_orders.csv line 1, column amount:", "is not a number")),
        Case("check-joins-data-ten-mb-cell", ["flinklab", "check", "joins"],
             data_edit("joins_orders.csv", lambda t: re.sub(r",[\d.]+,(2024-)",
                                                            lambda m: f",{'9' * 10_000_000},{m.group(1)}", t, count=1)),
             2,
             ("joins_orders.csv line 1: not CSV (field larger than field limit",)),
        Case("check-joins-data-truncated-row", ["flinklab", "check", "joins"],
             data_edit("joins_rates.csv", lambda t: t + "USD,13"), 2, ("joins_rates.csv line", "2 values")),
        Case("check-joins-data-empty", ["flinklab", "check", "joins"], data_put("joins_users.csv", b""), 1,
             ("expected users n = 0",)),
        Case("check-windows-data-order-id-text", ["flinklab", "check", "windows"],
             data_edit("windows_orders.csv", lambda t: "x" + t), 2,
             ("windows_orders.csv line 1, column order_id:", "is not a whole number")),
        Case("check-windows-data-huge-order-id", ["flinklab", "check", "windows"],
             data_edit("windows_orders.csv", lambda t: "9" * 5000 + t), 2,
             ("windows_orders.csv line 1, column order_id:", "characters) is not a whole number")),
        Case("check-windows-data-reordered", ["flinklab", "check", "windows"],
             data_edit("windows_orders.csv", lambda t: "\n".join(
                 ",".join(row.split(",")[i] for i in (1, 0, 2, 3)) if row else row for row in t.split("\n"))),
             2, ("windows_orders.csv line 1, column order_id:",)),
        Case("check-windows-data-quoted-newline", ["flinklab", "check", "windows"],
             data_edit("windows_orders.csv", lambda t: '1,"A\nB' + t), 2, ("windows_orders.csv line",)),
        # a data dir without the lab's CSVs is provisioned (tests/unit/test_check_provision.py); one that cannot be
        Case("check-joins-data-dir-under-a-file", ["flinklab", "check", "joins", "--data-dir",
                                                   "{root}/ws/joins/ddl.sql/data"], None,
             2, ("The data dir {root}/ws/joins/ddl.sql/data is not writable",)),
        Case("check-unknown-lab", ["flinklab", "check", "nope"], None, 2, ("Unknown lab 'nope'",)),
    ]
    return cases


def _output_option_cases() -> list[Case]:
    check = ["flinklab", "check", "joins"]
    return [
        Case("check-json-over-report", [*check, "--json", "{root}/ws/joins/report.json"], None, 2,
             ("--json", "report.json would overwrite", "a file of the lab")),
        Case("check-json-over-output-relative", [*check, "--json", "ws/joins/../joins/count.out"], None, 2,
             ("count.out", "would overwrite")),
        Case("check-junit-over-sql", [*check, "--junit", "{root}/ws/joins/ddl.sql"], None, 2,
             ("--junit", "ddl.sql would overwrite")),
        Case("check-json-over-data", [*check, "--json", "{root}/data/joins_orders.csv"], None, 2,
             ("joins_orders.csv would overwrite",)),
        Case("check-json-is-a-directory", [*check, "--json", "{root}/out"], None, 2,
             ("--json {root}/out is a directory",)),
        Case("check-json-under-a-file", [*check, "--json", "{root}/out/file.txt/grade.json"],
             lambda r: (r / "out" / "file.txt").write_text("mine"), 2,
             ("Cannot write {root}/out/file.txt/grade.json",)),
        Case("check-json-over-a-user-file", [*check, "--json", "{root}/out/notes.json"],
             lambda r: (r / "out" / "notes.json").write_text('{"mine": true}'), 0,
             ("Wrote {root}/out/notes.json", "notes.json.bak-"), new_files=("out/notes.json.bak-*",)),
        Case("check-json-new-file", [*check, "--json", "{root}/out/grade.json", "--junit", "{root}/out/grade.xml"],
             None, 0, ("Wrote {root}/out/grade.json", "Wrote {root}/out/grade.xml"),
             new_files=("out/grade.json", "out/grade.xml")),
    ]


def _fixtures_cases() -> list[Case]:
    gen = ["flinklab", "fixtures", "generate"]
    out = ["--out", "{root}/out/fx"]
    return [
        Case("fixtures-scale-text", [*gen, "--scale", "x", *out], None, 2, ("Invalid value for '--scale'",),
             process=True),
        Case("fixtures-scale-zero", [*gen, "--scale", "0", *out], None, 2, ("--scale must be 1 or more, not 0",)),
        Case("fixtures-scale-negative", [*gen, "--scale", "-5", *out], None, 2, ("--scale must be 1 or more",)),
        Case("fixtures-scale-huge", [*gen, "--scale", "1000000000000", *out], None, 2,
             ("--scale must be at most 1000, not 1000000000000",)),
        Case("fixtures-seed-text", [*gen, "--seed", "x", *out], None, 2, ("Invalid value for '--seed'",)),
        Case("fixtures-unknown-lab", [*gen, "nope", *out], None, 2, ("Unknown lab 'nope'",)),
        Case("fixtures-out-is-a-file", [*gen, "joins", "--out", "{root}/out/f"],
             lambda r: (r / "out" / "f").write_text("mine"), 2, ("Cannot create {root}/out/f",)),
        Case("fixtures-out-under-a-file", [*gen, "joins", "--out", "{root}/out/f/sub"],
             lambda r: (r / "out" / "f").write_text("mine"), 2, ("Cannot create {root}/out/f/sub",)),
        Case("fixtures-unknown-option", [*gen, "--scael", "2", *out], None, 2, ("No such option: --scael",)),
    ]


def _without_joins_sql(root: Path) -> None:
    for name in get_lab("joins").solution_files:
        (root / "ws" / "joins" / name).unlink()


def _run_cases() -> list[Case]:
    return [
        Case("run-no-sql-files", ["flinklab", "run", "joins"], _without_joins_sql, 2,
             ("Nothing to run in", "count.sql, ddl.sql, interval.sql", "are missing")),
        Case("run-no-cluster", ["flinklab", "run", "joins"], None, 2, ("No Flink cluster answers at",)),
        Case("run-solution-no-cluster", ["flinklab", "run", "joins", "--solution"], None, 2,
             ("No Flink cluster answers at",)),
        Case("run-unknown-lab", ["flinklab", "run", "nope"], None, 2, ("Unknown lab 'nope'",)),
        Case("run-unknown-step", ["flinklab", "run", "joins", "--only", "nope"], None, 2,
             ("Lab 'joins' has no step 'nope'",)),
        Case("run-no-workspace", ["flinklab", "run", "joins"], lambda r: shutil.rmtree(r / "ws" / "joins"), 2,
             ("No workspace for 'joins'",)),
        Case("run-only-without-value", ["flinklab", "run", "joins", "--only"], None, 2,
             ("Option '--only' requires an argument",)),
        Case("run-bad-port-env", ["flinklab", "run", "joins"], None, 2, ("FLINKLAB_REST_PORT='x'",),
             env={"FLINKLAB_REST_PORT": "x"}),
        Case("run-parallel-zero", ["flinklab", "run", "joins", "--parallel", "0"], None, 2,
             ("Cannot run 0 steps at once",)),
        Case("run-parallel-not-a-number", ["flinklab", "run", "joins", "--parallel", "two"], None, 2,
             ("Invalid value for '--parallel': 'two'",)),
        Case("run-bad-parallel-env", ["flinklab", "run", "joins"], None, 2, ("FLINKLAB_RUN_PARALLEL='x'",),
             env={"FLINKLAB_RUN_PARALLEL": "x"}),
    ]


def _other_command_cases() -> list[Case]:
    record = lambda r: r / "state" / "cluster.json"  # noqa: E731
    return [
        Case("labs-extra-argument", ["flinklab", "labs", "joins", "x"], None, 2, ("Got unexpected extra argument",)),
        Case("labs-unknown-lab", ["flinklab", "labs", "nope"], None, 2, ("Unknown lab 'nope'",)),
        Case("unknown-command", ["flinklab", "nope"], None, 2, ("No such command 'nope'",), process=True),
        Case("status-no-state", ["flinklab", "status"], lambda r: shutil.rmtree(r / "state"), 1,
             ("no cluster started by flinklab",)),
        Case("status-corrupt-record", ["flinklab", "status"], lambda r: record(r).write_text("{not json"), 2,
             ("cluster.json is unreadable",)),
        Case("status-record-is-a-directory", ["flinklab", "status"], lambda r: record(r).mkdir(), 2,
             ("cluster.json is unreadable",)),
        Case("status-record-wrong-types", ["flinklab", "status"],
             lambda r: record(r).write_text('{"backend": "local", "rest_port": "x"}'), 2, ("cluster.json",)),
        Case("logs-no-state", ["flinklab", "logs"], lambda r: shutil.rmtree(r / "state"), 2, ("No cluster logs",)),
        Case("logs-corrupt-record", ["flinklab", "logs"], lambda r: record(r).write_bytes(b"\xff\xfe\0\0"), 2,
             ("cluster.json",)),
    ]


def _flink_up_cases() -> list[Case]:
    # Two through the real entry point; the rest in process (Settings refuses them before a backend is chosen).
    return [
        Case(f"flink-up-{name}", ["flink-up", *args], None, 2, says, process=name in ("port-text", "slots-zero"))
        for name, args, says in [
            ("port-text", ["--port", "x"], ("--port must be a whole number, not 'x'",)),
            ("port-zero", ["--port", "0"], ("REST port 0 is out of range",)),
            ("port-too-big", ["--port", "70000"], ("REST port 70000 is out of range",)),
            ("slots-zero", ["--slots", "0"], ("at least 1 slot",)),
            ("slots-text", ["--slots", "many"], ("--slots must be a whole number, not 'many'",)),
            ("taskmanagers-zero", ["--taskmanagers", "0"], ("at least 1 TaskManager",)),
            ("backend-nope", ["--backend", "nope"], ("Unknown backend 'nope'",)),
            ("unknown-option", ["--bogus"], ("No such option: --bogus",)),
        ]
    ]


def _sql_client_cases() -> list[Case]:
    sql = "sql-client.sh"
    return [
        Case("sql-f-missing", [sql, "-f", "{root}/ws/joins/nope.sql"], None, 2, ("nope.sql does not exist",)),
        Case("sql-f-directory", [sql, "-f", "{root}/ws/joins"], None, 2, ("{root}/ws/joins is a directory",)),
        Case("sql-f-latin1", [sql, "-f", "{root}/ws/joins/q.sql"], put("joins", "q.sql", b"SELECT '\xe9';\n"), 2,
             ("q.sql",)),
        Case("sql-f-utf16", [sql, "-f", "{root}/ws/joins/q.sql"],
             put("joins", "q.sql", codecs.BOM_UTF16_LE + "SELECT 1;\n".encode("utf-16-le")), 2, ("q.sql",)),
        Case("sql-i-missing", [sql, "-i", "{root}/ws/joins/no_ddl.sql", "-f", "{root}/ws/joins/q.sql"],
             put("joins", "q.sql", "SELECT 1;\n"), 2, ("no_ddl.sql does not exist",)),
        Case("sql-i-directory", [sql, "-i", "{root}/ws", "-f", "{root}/ws/joins/q.sql"],
             put("joins", "q.sql", "SELECT 1;\n"), 2, ("{root}/ws is a directory",)),
        Case("sql-f-without-value", [sql, "-f"], None, 2, ("Option '-f' requires an argument",), process=True),
        Case("sql-unknown-mode", [sql, "cluster", "-f", "{root}/ws/joins/q.sql"],
             put("joins", "q.sql", "SELECT 1;\n"), 2, ("cluster",)),
        Case("sql-bad-define", [sql, "-D", "novalue", "-f", "{root}/ws/joins/q.sql"],
             put("joins", "q.sql", "SELECT 1;\n"), 2, ("-D 'novalue' is not key=value",)),
        Case("sql-no-cluster", [sql, "-f", "{root}/ws/joins/q.sql"], put("joins", "q.sql", "SELECT 1;\n"), 2,
             ("No Flink cluster answers at",), process=True),
    ]


def _permission_cases() -> list[Case]:
    ws = lambda lab, name: lambda r: _ws(r, lab, name)  # noqa: E731
    return [Case(f"permission-{name}", args, setup, status, says, process=True, unprivileged=True)
            for name, args, setup, status, says in [
        ("count.out", ["flinklab", "check", "joins"], chmod(ws("joins", "count.out"), 0), 1,
         ("count.out cannot be read: permission denied",)),
        ("csv", ["flinklab", "check", "windows"], chmod(lambda r: _csv(r, "windows_orders.csv"), 0), 2,
         ("windows_orders.csv cannot be read: permission denied",)),
        ("json-dir", ["flinklab", "check", "joins", "--json", "{root}/out/grade.json"],
         chmod(lambda r: r / "out", 0o555), 2, ("Cannot write {root}/out/grade.json: Permission denied",)),
        ("sql-file", ["sql-client.sh", "-f", "{root}/ws/joins/q.sql"],
         both(put("joins", "q.sql", "SELECT 1;\n"), chmod(ws("joins", "q.sql"), 0)), 2, ("q.sql",)),
    ]]


CASES = [*_file_fault_cases(), *_empty_and_truncated_cases(), *_report_value_cases(), *_output_content_cases(),
         *_data_cases(), *_output_option_cases(), *_fixtures_cases(), *_run_cases(), *_other_command_cases(),
         *_flink_up_cases(), *_sql_client_cases(), *_permission_cases()]


def test_the_table_has_at_least_100_cases():
    assert len(CASES) >= 100
    assert len({c.id for c in CASES}) == len(CASES)


# ---- running a case ---------------------------------------------------------------------------------------------


def _workspace(root: Path) -> None:
    for sub in ("home", "state", "data", "out", "ws"):
        (root / sub).mkdir()
    for lab, solution in SOLUTIONS.items():
        shutil.copytree(solution, root / "ws" / lab)
        write_captured_sql(root / "ws" / lab, lab, root / "data")  # the SQL that wrote the outputs
    for csv_file in LAB_CSVS:
        shutil.copy(csv_file, root / "data" / csv_file.name)


def _snapshot(root: Path) -> dict[str, str]:
    """path -> digest of every file (symlinks by target, FIFOs and dirs by kind; huge sparse files by size)."""
    seen: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if rel.startswith("home"):
            continue
        if path.is_symlink():
            seen[rel] = "link:" + os.readlink(path)
        elif path.is_dir():
            seen[rel] = "dir"
        elif not path.is_file():
            seen[rel] = "special"
        elif path.stat().st_size > 64 << 20:
            seen[rel] = f"size:{path.stat().st_size}"
        else:
            seen[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return seen


def _env(root: Path, port: int, extra: dict[str, str]) -> dict[str, str]:
    return {"HOME": str(root / "home"), "FLINKLAB_WORKSPACE": str(root / "ws"), "FLINKLAB_DATA_DIR": str(root / "data"),
            "FLINKLAB_STATE_DIR": str(root / "state"), "FLINKLAB_REST_PORT": str(port), "COLUMNS": "400",
            "XDG_STATE_HOME": str(root / "home" / "state"), **extra}


def _in_process(args: list[str], env: dict[str, str], monkeypatch: pytest.MonkeyPatch,
                capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    app_module = importlib.import_module("flinklab.cli.app")  # the package's `app` attribute is the Typer app
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    for console in (app_module.console, app_module.err_console):
        monkeypatch.setattr(console, "width", 400)  # so a failure's message is not wrapped in the table
    prog, rest = args[0], args[1:]
    if prog == "flinklab":
        target = app_module.app  # every command module (load_for, one command per process, is for the script)
    else:
        module = importlib.import_module(f"flinklab.cli.{'sql' if prog == 'sql-client.sh' else 'cluster'}")
        target = getattr(module, {"sql-client.sh": "sql_client_app", "flink-up": "up_app"}[prog])
    with pytest.raises(SystemExit) as info:
        app_module.run(target, prog, rest)
    captured = capsys.readouterr()
    code = info.value.code
    return (code if isinstance(code, int) else 1), captured.out + captured.err


def _as_process(args: list[str], env: dict[str, str], root: Path, unprivileged: bool = False) -> tuple[int, str]:
    code = f"import sys; sys.argv[0] = {args[0]!r}; from flinklab.cli import {ENTRY_POINTS[args[0]]} as main; main()"
    full_env = {**{k: v for k, v in os.environ.items() if not k.startswith("FLINKLAB_")}, **env,
                "PYTHONPATH": str(PROJECT)}
    prefix: list[str] = []
    if unprivileged and os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: file modes cannot be made to count")
        prefix = [setpriv, "--bounding-set=-dac_override,-dac_read_search"]
    done = subprocess.run([*prefix, sys.executable, "-c", code, *args[1:]], env=full_env, cwd=root,
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    return done.returncode, done.stdout + done.stderr


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    root = tmp_path / "r"
    root.mkdir()
    _workspace(root)
    if case.setup is not None:
        case.setup(root)
    monkeypatch.chdir(root)
    before = _snapshot(root)
    args = [a.replace("{root}", str(root)) for a in case.args]
    env = _env(root, free_port(), case.env)
    if case.process:
        status, output = _as_process(args, env, root, case.unprivileged)
    else:
        status, output = _in_process(args, env, monkeypatch, capsys)
    shown = output[:3000]
    assert status == case.status, shown
    for culprit in case.culprit:
        assert culprit.replace("{root}", str(root)) in output, shown
    assert "Traceback" not in output and "crashed" not in output, shown
    after = _snapshot(root)
    _assert_nothing_lost(root, before, after, case.new_files)


def _assert_nothing_lost(root: Path, before: dict[str, str], after: dict[str, str], allowed: tuple[str, ...]) -> None:
    import fnmatch

    for rel, digest in before.items():
        if after.get(rel) == digest:
            continue
        backups = [r for r in after if r.startswith(f"{rel}.bak-") and after[r] == digest]
        assert backups, f"{rel} changed without a backup"
    for rel in after.keys() - before.keys():
        kept = any(after[rel] == before.get(r) for r in before if rel.startswith(f"{r}.bak-"))
        assert kept or any(fnmatch.fnmatch(rel, pattern) for pattern in allowed), f"unexpected new file {rel}"
