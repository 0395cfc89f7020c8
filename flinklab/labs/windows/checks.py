"""Grade the windows lab: its check table (flinklab.grading.spec) and the diagnoses that need code.

Checks read only the `.out` files, report.json and the CSV; they never ask the cluster. Final rows are compared as
sets (order ignored, numbers within a tolerance); window results must also be insert-only (`+I`), which is what
separates a window operator from a regular aggregation or Top-N that happens to end with the same rows.

Why one module of ~500 lines: it is the lab's one check table (nine steps, their checks, points and hints) and the
few diagnoses that read it; split, a step's checks and its diagnosis would be in two places.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

from flinklab.lab_api import (
    Changelog,
    Compared,
    ErrorHints,
    ExpectedError,
    Judge,
    LabChecks,
    ReportSpec,
    Rows,
    StepSpec,
    StepView,
    Verdict,
    Wording,
    as_int,
    as_timestamp,
    code_only,
    compare_rows,
    format_number,
    ok,
    saved_sql,
    wrong,
)
from flinklab.labs.windows import reference as ref
from flinklab.labs.windows.fixtures import FILE
from flinklab.labs.windows.mistakes import (
    grouping_without_end,
    proctime_descriptor,
    ranking_partition,
    session_gap_ms,
)
from flinklab.labs.windows.report import REPORT_FIELDS, SOURCES, build_report

TOLERANCE = Decimal("0.01")
TEN_MIN = 10 * ref.MINUTE

STREAMING_HINT = "Window results are a streaming lesson: SET 'execution.runtime-mode' = 'streaming'; in the step file."
HOP_REVERSED_HINT = (
    "HOP arguments reversed: the order is HOP(TABLE orders, DESCRIPTOR(order_time), slide, size), so the 5-minute "
    "slide comes first and the 10-minute size second."
)
HOP_ARGS = "HOP takes (slide, size): INTERVAL '5' MINUTES, then INTERVAL '10' MINUTES."
CUMULATE_ARGS = "CUMULATE takes (step, size): INTERVAL '10' MINUTES, then INTERVAL '1' HOUR."
CUMULATE_REVERSED_HINT = (
    "CUMULATE arguments reversed: the order is CUMULATE(TABLE orders, DESCRIPTOR(order_time), step, size), so the "
    "10-minute step comes first and the 1-hour size second."
)
TIME_FLOOR_HINT = (
    "Updates mean a regular aggregation, e.g. GROUP BY on a time floor: aggregate over the window TVF instead "
    "(FROM TUMBLE/HOP/CUMULATE(TABLE orders, ...) GROUP BY window_start, window_end, ...), which emits each window "
    "once, when it closes."
)
SESSION_NO_SHOP_HINT = (
    "Sessions are per shop, and the result has no shop: write SESSION(TABLE orders PARTITION BY shop, "
    "DESCRIPTOR(order_time), INTERVAL '5' MINUTES) and select shop, window_start, window_end, COUNT(*) AS orders, "
    "grouped by those three."
)
SESSION_PARTITION_HINT = (
    "SESSION without PARTITION BY: sessions are then cut across all shops (and GROUP BY shop on top makes an "
    "updating aggregation). Write SESSION(TABLE orders PARTITION BY shop, DESCRIPTOR(order_time), "
    "INTERVAL '5' MINUTES)."
)
TOPN_PARTITION_HINT = (
    "Updates from a Top-N mean a regular Top-N, which updates its ranking (-U/+U) as rows arrive: ROW_NUMBER() "
    "must be partitioned by both window columns. PARTITION BY window_start, window_end makes it a window Top-N that "
    "emits each window's answer once."
)
#: the same, when the saved SQL says how the ROW_NUMBER() is partitioned ({partition}: "window_end only", ...)
TOPN_PARTITION_BY_HINT = (
    "Top-N partitioned by {partition}: the planner then builds a regular Top-N that updates its ranking "
    "(-U/+U). PARTITION BY window_start, window_end makes it a window Top-N that emits each window's answer once."
)
#: a ranking partitioned by the window and more ({extra}: the extra columns as written)
TOPN_EXTRA_PARTITION_HINT = (
    "ROW_NUMBER() partitioned by {partition}: the extra {extra} ranks each {extra} of a window apart (the top {n} "
    "of every {extra} per window, {found} rows). Rank the whole window: PARTITION BY window_start, window_end."
)
#: a GROUP BY of a window TVF's rows without window_end ({named}: what was written)
NO_WINDOW_END_HINT = (
    "{named}: Flink makes a window aggregation only when GROUP BY lists both window_start and window_end; without "
    "window_end it aggregates the TVF's rows as a regular GROUP BY, which updates its groups (-U/+U) instead of "
    "emitting each window once, when it closes. Group by both: GROUP BY window_start, window_end{rest}."
)
#: a window DESCRIPTOR over a processing-time attribute ({column}: the one written)
PROCTIME_HINT = (
    "DESCRIPTOR({column}) is a processing-time attribute (PROCTIME()): its windows follow the machine's clock when "
    "the query ran, not the orders' order_time{effect}. Window on the event time: DESCRIPTOR(order_time)."
)
#: what a processing-time window aggregation over the lab's file gives (the captured run: no rows)
PROCTIME_NO_ROWS = ", so over a file read in a second no window closed before the input ended (no rows)"
SESSION_GAP = 5 * ref.MINUTE



#: What Flink's error reasons mean in this lab (grading.outputs.hint_for_error).
ERROR_HINTS: ErrorHints = (
    (("Unaligned windows like session are not supported in batch mode",),
     "SESSION windows work in streaming mode only: " + STREAMING_HINT),
    (("integral multiple of slide",), HOP_REVERSED_HINT),
    (("integral multiple of step",), CUMULATE_REVERSED_HINT),
    (("not found", "orders"),
     "The orders table is missing: run with `-i ddl.sql` (the runner does) and check ddl.sql."),
    (("The window can only be ordered in ASCENDING mode",),
     "ROW_NUMBER() with no filter on its rank is an OVER aggregation, which Flink orders by time only: keep the "
     "filter that makes it a Top-N, WHERE rn <= 2 (top_shops) or WHERE rn <= 3 (top_orders)."),
)


def _ts(ms: int) -> str:
    return ref.fmt_ms(ms)


def _minutes(ms: int) -> str:
    return f"{ms // ref.MINUTE} min" if ms % ref.MINUTE == 0 else f"{ms / ref.SECOND:g} s"


def _ms(value: Any) -> int | None:
    """A printed timestamp as the reference's epoch milliseconds (None when it is none)."""
    stamp = as_timestamp(value)
    return None if stamp is None else ref.to_ms(stamp.strftime("%Y-%m-%d %H:%M:%S.%f"))


def _window_lengths(found: list[tuple], start: int = 0, end: int = 1) -> set[int]:
    lengths = set()
    for row in found:
        a, b = as_timestamp(row[start]), as_timestamp(row[end])
        if a is not None and b is not None:
            lengths.add(int((b - a).total_seconds() * 1000))
    return lengths


def _lengths(lengths: set[int]) -> str:
    return ", ".join(_minutes(n) for n in sorted(lengths))


# ---- the diagnoses: which mistake explains a wrong row set ----------------------------------------------------


def _tumble_hint(c: Compared) -> str | None:
    lengths = _window_lengths(c.found, 4, 5)
    if lengths and lengths != {TEN_MIN}:
        return f"Windows of {_lengths(lengths)}: TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '10' MINUTES)."
    if any(r[6] is not None and r[6] == r[5] for r in c.found):
        return "window_time is window_end − 1 ms: select the TVF's own window_time column."
    if len(c.found) != len(c.expected):
        return "Every order appears exactly once: select every row of the TUMBLE TVF, with no WHERE."
    return None


def _on_boundary(view: StepView) -> Verdict:
    """An order exactly on a 10-minute boundary opens the next window (windows are half-open)."""
    on_boundary = [o for o in view.data if o.ts % TEN_MIN == 0]
    starts = {str(r[0]): r[4] for r in view.rows()}
    wrong_ones = [(o, starts.get(str(o.order_id))) for o in on_boundary
                  if as_timestamp(starts.get(str(o.order_id))) != as_timestamp(_ts(o.ts))]
    if not wrong_ones:
        return ok(f"{len(on_boundary)} order(s) on a 10-minute boundary")
    o, got = wrong_ones[0]
    return wrong(f"expected order {o.order_id} at {_ts(o.ts)} in the window starting {_ts(o.ts)}; found "
                 f"{'no row' if got is None else 'window_start ' + str(got)}.",
                 "Windows are half-open, [window_start, window_end): an order at exactly 09:10:00 belongs to "
                 "[09:10, 09:20). Use the TVF's window columns rather than computing them.")


def _tumble_agg_hint(c: Compared) -> str | None:
    lengths = _window_lengths(c.found)
    if lengths and lengths != {TEN_MIN}:
        return f"Windows of {_lengths(lengths)}: the TUMBLE size is 10 minutes."
    return None


def _hop_hint(c: Compared) -> str | None:
    lengths = _window_lengths(c.found)
    if lengths and lengths != {TEN_MIN}:
        return f"Wrong window sizes: windows of {_lengths(lengths)} instead of 10 min. " + HOP_ARGS
    starts = {as_timestamp(r[0]) for r in c.found} - {None}
    if starts and any(s.minute % 5 or s.second for s in starts):  # type: ignore[union-attr]
        return "Windows must start every 5 minutes. " + HOP_ARGS
    return None


def _cumulate_hint(c: Compared) -> str | None:
    starts = {as_timestamp(r[0]) for r in c.found} - {None}
    lengths = _window_lengths(c.found)
    if any(s.minute or s.second for s in starts):  # type: ignore[union-attr]
        return "Wrong window sizes: every CUMULATE window starts on the hour. " + CUMULATE_ARGS
    if lengths and (max(lengths) > ref.HOUR or any(n % TEN_MIN for n in lengths)):
        return (f"Wrong window sizes: windows of {_lengths(lengths)}; they grow by 10 minutes up to 1 hour. "
                + CUMULATE_ARGS)
    return None


def _session_hint(c: Compared) -> str | None:
    canonical_global = {(as_timestamp(_ts(s.start)), as_timestamp(_ts(s.end)))
                        for s in ref.sessions(c.data, by_shop=False)}
    bounds = {(as_timestamp(str(r[1])), as_timestamp(str(r[2]))) for r in c.found}
    if (bounds and bounds <= canonical_global) or c.view.updates():
        return SESSION_PARTITION_HINT
    return _session_gap_hint(c)


def _session_gap_hint(c: Compared) -> str | None:
    """A session ends one gap after its last order: the gap the output's sessions show (else the one session.sql
    writes), named when it is not 5 minutes."""
    shown = set()
    for shop, start, end, *_ in c.found:
        lo, hi = _ms(start), _ms(end)
        if lo is None or hi is None:
            continue
        inside = [o.ts for o in c.data if o.shop == shop and lo <= o.ts < hi]
        if inside:
            shown.add(hi - max(inside))
    written = session_gap_ms(_sql(c.view))
    fix = "SESSION(TABLE orders PARTITION BY shop, DESCRIPTOR(order_time), INTERVAL '5' MINUTES)"
    in_sql = f" ({written[1]} in session.sql)" if written is not None and written[0] != SESSION_GAP else ""
    if len(shown) == 1 and (gap := shown.pop()) != SESSION_GAP:
        return (f"Sessions that end {_minutes(gap)} after their last order: a gap of {_minutes(gap)}{in_sql}, where "
                f"the lab's gap is 5 minutes: {fix}.")
    if in_sql:
        return f"A SESSION gap of {_minutes(written[0])}{in_sql}, where the lab's gap is 5 minutes: {fix}."
    return None


_WINDOW_COLUMNS = ("window_start", "window_end")


def _sql(view: StepView) -> str | None:
    """The step's saved SQL without comments (None when there is none to read)."""
    return saved_sql(view.ctx, f"{view.step}.sql")


def _topn_partition_hint(view: StepView) -> str:
    """Why a Top-N updates, named from how its saved SQL partitions the ranking (the generic hint without it)."""
    if (grouping := _window_end_hint(view)) is not None:
        return grouping
    columns = ranking_partition(_sql(view))
    if not columns or set(_WINDOW_COLUMNS) <= set(columns):
        return TOPN_PARTITION_HINT  # no SQL to read, or the partition is right and the updates come from elsewhere
    windowed = [c for c in columns if c in _WINDOW_COLUMNS]
    partition = (f"{windowed[0]} only" if windowed == columns else ", ".join(columns)) if windowed else \
        f"{', '.join(columns)} (no window column)"
    return TOPN_PARTITION_BY_HINT.format(partition=partition)


def _topn_hint(n: int):
    def hint(c: Compared) -> str | None:
        if c.view.updates():
            return _topn_partition_hint(c.view)
        if any(rank is None or rank > n for rank in (as_int(r[4]) for r in c.found)):
            return f"Keep the top {n} per window: WHERE rn <= {n}."
        columns = ranking_partition(_sql(c.view)) or []
        extra = [col for col in columns if col not in _WINDOW_COLUMNS]
        if set(_WINDOW_COLUMNS) <= set(columns) and extra:
            return TOPN_EXTRA_PARTITION_HINT.format(partition=", ".join(columns), extra=", ".join(extra), n=n,
                                                    found=len(c.found))
        return None
    return hint


def _window_end_hint(view: StepView) -> str | None:
    """The hint naming a GROUP BY of the TVF's rows without window_end, when the step's SQL has one."""
    mistake = grouping_without_end(_sql(view))
    if mistake is None:
        return None
    rest = "".join(f", {c.strip()}" for c in mistake.grouped.split(",") if "window_start" not in c.lower())
    return NO_WINDOW_END_HINT.format(named=mistake.named(), rest=rest)


def _window_end_grouped(view: StepView) -> Verdict | None:
    """The rows guard of an aggregating step: grouped by window_start without window_end is a regular aggregation,
    whatever aggregate hides window_end and whatever rows it ends with."""
    mistake = grouping_without_end(_sql(view))
    if mistake is None:
        return None
    return wrong(f"expected {view.step}.sql to group by window_start and window_end; found {mistake.named()}: a "
                 "regular aggregation over the TVF's rows, not a window aggregation.", _window_end_hint(view) or "")


def _proctime_hint(view: StepView, found: int) -> str | None:
    column = proctime_descriptor(_sql(view), saved_sql(view.ctx, "ddl.sql"))
    if column is None:
        return None
    return PROCTIME_HINT.format(column=column, effect=PROCTIME_NO_ROWS if found == 0 else "")


def _diagnosed(diagnose):
    """A rows diagnosis that first names a processing-time window (any window step may have one)."""
    def hint(c: Compared) -> str | None:
        return _proctime_hint(c.view, len(c.found)) or (diagnose(c) if diagnose is not None else None)
    return hint


def _guarded(*guards):
    """The first guard that stops the comparison."""
    def guard(view: StepView) -> Verdict | None:
        return next((v for g in guards if (v := g(view)) is not None), None)
    return guard


def _no_ties(ties_of, ranked_of, what: str, tiebreak: str):
    """The Top-N guard: data with ties in `what` has no unique answer unless ties are broken explicitly. The answer
    of `ORDER BY {what} DESC, {tiebreak}` (the reference's own choice, `ranked_of`) passes; any other fails here."""
    def guard(view: StepView) -> Verdict | None:
        ties: list[ref.Tie] = ties_of(view.data)
        if not ties or compare_rows(_ranked(ranked_of(view.data)), view.rows(), tolerance=TOLERANCE).ok:
            return None  # no ties, or broken the way the hint says: the rows check decides
        shown = "; ".join(f"{', '.join(t.keys)} at {format_number(t.value, keep_zeros=True)} in "
                          f"[{_ts(t.window[0])}, {_ts(t.window[1])})" for t in ties[:3])
        csv_name = (Path(view.ctx.data_dir) / FILE).name
        return wrong(f"expected one unique answer per window, or ties broken by {tiebreak}; the data has "
                     f"{len(ties)} tie(s) in {what} that decide the Top-N answer ({shown}"
                     f"{'; ...' if len(ties) > 3 else ''}) and the rows are not those of ORDER BY {what} DESC, "
                     f"{tiebreak}: {csv_name} is not the lab's data.",
                     f"{what.capitalize()} ties broken by chance: ROW_NUMBER picks one of the tied rows, and which "
                     "one may change from run to run. The lab's generated data has no ties: restore it (`flinklab "
                     "fixtures generate`, then `flink-up` provisions it), or break ties explicitly (ORDER BY "
                     f"{what} DESC, {tiebreak}).")
    return guard


def _ascending(ranked_of, n: int):
    """The rows of the same Top-N ranked the other way round (ORDER BY value without DESC): per window, the n
    smallest, ranked 1..n from the smallest."""
    def rows(orders: list[ref.Order]) -> list[tuple]:
        per_window: dict[tuple[int, int], list[ref.Ranked]] = {}
        for r in ranked_of(orders, n=len(orders)):
            per_window.setdefault(r.window, []).append(r)
        return _ranked([ref.Ranked(w, rn, r.key, r.value, r.orders)
                        for w, ranked in sorted(per_window.items())
                        for rn, r in enumerate(reversed(ranked[-n:]), 1)])
    return rows


def _ascending_hint(value: str) -> str:
    return (f"The smallest rows ranked first: ORDER BY {value} sorts ascending unless DESC follows it. Write "
            f"ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY {value} DESC).")


def _report_hint(field: str, got: Any, want: Mapping[str, Any]) -> str | None:
    if field == "orders" and got == 2 * want["orders"]:
        return ("HOP counts summed as if they were orders: every order sits in two HOP windows (size / slide = 2). "
                "Count the orders in tumble.out, where each appears once.")
    if field == "hop_orders_total" and got == want["orders"]:
        return ("hop_orders_total is the sum of hop.out's orders column: each order is counted in two windows, so "
                "it is twice the number of orders.")
    return None


def _ranked(rows: list[ref.Ranked]) -> list[tuple]:
    return [(_ts(r.window[0]), _ts(r.window[1]), r.key, r.value, r.rn) for r in rows]


# The legacy Grouped Window Functions: GROUP BY TUMBLE(order_time, INTERVAL ...) and its TUMBLE_START(...) & co.
# A window TVF's first argument is a table (TABLE t, or DATA => TABLE t), so a call without one is the old syntax.
_LEGACY_WINDOW = re.compile(
    r"\b(TUMBLE|HOP|SESSION)(?:_START|_END|_ROWTIME|_PROCTIME)?\s*\((?!\s*(?:TABLE\b|DATA\s*=>))", re.IGNORECASE)
_TVF_OF = {
    "TUMBLE": "TABLE(TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '10' MINUTES))",
    "HOP": "TABLE(HOP(TABLE orders, DESCRIPTOR(order_time), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES))",
    "SESSION": "TABLE(SESSION(TABLE orders PARTITION BY shop, DESCRIPTOR(order_time), INTERVAL '5' MINUTES))",
}


def _window_tvf(view: StepView) -> Verdict:
    """The step's saved SQL windows with a TVF, not a legacy group window function (same rows, old lesson)."""
    path = Path(view.ctx.workspace) / f"{view.step}.sql"
    if not path.is_file():  # outputs graded without their SQL (e.g. copied in): nothing to read
        return ok(f"no {path.name} to read")
    legacy = _LEGACY_WINDOW.search(code_only(path.read_text(encoding="utf-8", errors="replace")))
    if legacy is None:
        return ok()
    call = legacy.group(0).rstrip("( \t\n").upper()
    return wrong(f"expected a window TVF in {path.name}; found the legacy group window function {call}(...).",
                 f"{call}(order_time, INTERVAL ...) is the legacy Grouped Window Function syntax, which window TVFs "
                 f"replace: window FROM {_TVF_OF[legacy.group(1).upper()]} and GROUP BY window_start, window_end.")


def _tvf(step: str) -> Judge:
    return Judge(f"{step}: a window TVF, not a legacy group window function", 1, _window_tvf, needs_columns=False)


def _insert_only(hint: str, diagnose=None) -> Changelog:
    return Changelog("insert-only", 1, hint, why="a window emits its result once", batch_hint=STREAMING_HINT,
                     diagnose=diagnose)


# ---- the table -------------------------------------------------------------------------------------------------

CHECKS = LabChecks(
    lab="windows",
    load=lambda data_dir: ref.load_orders(Path(data_dir) / FILE),
    tolerance=TOLERANCE,
    reference_ddl=lambda: (Path(__file__).resolve().parent / "sql" / "ddl.sql").read_text(encoding="utf-8"),
    wording=Wording(problem="expected the {step} result in {file}; {error}.", error_hints=ERROR_HINTS,
                    rows_message="expected {n_expected} rows ({columns}), found {n_found}: {diff}."),
    steps=(
        StepSpec("tumble", ("order_id", "shop", "amount", "order_time", "window_start", "window_end",
                            "window_time"), (
            Rows("tumble: every order with its window", 2,
                 lambda orders: [(o.order_id, o.shop, o.amount, _ts(o.ts), _ts(s), _ts(e), _ts(ref.window_time(e)))
                                 for o, (s, e) in ref.tumble_rows(orders)],
                 "SELECT order_id, shop, amount, order_time, window_start, window_end, window_time FROM TUMBLE(...).",
                 diagnose=_diagnosed(_tumble_hint)),
            Judge("tumble: an order exactly on a boundary opens the next window", 1, _on_boundary),
            _tvf("tumble"),
        )),
        StepSpec("tumble_agg", ("window_start", "window_end", "shop", "orders", "revenue"), (
            Rows("tumble_agg: orders and revenue per shop and 10-minute window", 2,
                 lambda orders: [(_ts(s), _ts(e), shop, a.orders, a.revenue)
                                 for (s, e, shop), a in ref.tumble_agg(orders).items()],
                 "COUNT(*) AS orders, SUM(amount) AS revenue FROM TUMBLE(TABLE orders, DESCRIPTOR(order_time), "
                 "INTERVAL '10' MINUTES) GROUP BY window_start, window_end, shop.",
                 diagnose=_diagnosed(_tumble_agg_hint), guard=_window_end_grouped),
            _insert_only(TIME_FLOOR_HINT, _window_end_hint),
            _tvf("tumble_agg"),
        )),
        StepSpec("hop", ("window_start", "window_end", "orders"), (
            Rows("hop: orders per 10-minute window, every 5 minutes", 2,
                 lambda orders: [(_ts(s), _ts(e), a.orders) for (s, e), a in ref.hop_agg(orders).items()],
                 "COUNT(*) AS orders FROM HOP(TABLE orders, DESCRIPTOR(order_time), INTERVAL '5' MINUTES, "
                 "INTERVAL '10' MINUTES) GROUP BY window_start, window_end.", diagnose=_diagnosed(_hop_hint),
                 guard=_window_end_grouped),
            _insert_only(TIME_FLOOR_HINT, _window_end_hint),
            _tvf("hop"),
        )),
        StepSpec("hop_reversed", (), (
            ExpectedError(
                "hop_reversed: Flink rejects a size that is not a multiple of the slide", 1,
                phrase="integral multiple of slide", shown="... size must be an integral multiple of slide ...",
                wrong_error_hint="hop_reversed.sql is hop.sql's aggregation with the two intervals swapped: "
                "HOP(TABLE orders, DESCRIPTOR(order_time), INTERVAL '10' MINUTES, INTERVAL '5' MINUTES).",
                no_error_hint="Flink rejects swapped HOP arguments only for a window aggregation in streaming "
                "mode: keep GROUP BY window_start, window_end and SET 'execution.runtime-mode' = 'streaming' (the "
                "raw TVF silently drops rows instead).",
                batch_note="a batch table: the check does not exist in batch mode"),
        )),
        StepSpec("cumulate", ("window_start", "window_end", "orders", "revenue"), (
            Rows("cumulate: orders and revenue since the hour, every 10 minutes", 2,
                 lambda orders: [(_ts(s), _ts(e), a.orders, a.revenue)
                                 for (s, e), a in ref.cumulate_agg(orders).items()],
                 "COUNT(*) AS orders, SUM(amount) AS revenue FROM CUMULATE(TABLE orders, DESCRIPTOR(order_time), "
                 "INTERVAL '10' MINUTES, INTERVAL '1' HOUR) GROUP BY window_start, window_end.",
                 diagnose=_diagnosed(_cumulate_hint), guard=_window_end_grouped),
            _insert_only(TIME_FLOOR_HINT, _window_end_hint),
            _tvf("cumulate"),
        )),
        StepSpec("session", ("shop", "window_start", "window_end", "orders"), (
            Rows("session: sessions per shop (5-minute gap)", 2,
                 lambda orders: [(s.key, _ts(s.start), _ts(s.end), s.orders) for s in ref.sessions(orders)],
                 "COUNT(*) AS orders FROM SESSION(TABLE orders PARTITION BY shop, DESCRIPTOR(order_time), "
                 "INTERVAL '5' MINUTES) GROUP BY shop, window_start, window_end; a gap of exactly 5 minutes stays "
                 "in one session.", diagnose=_diagnosed(_session_hint), guard=_window_end_grouped),
            _insert_only(SESSION_PARTITION_HINT, _window_end_hint),
            _tvf("session"),
        ), column_hints={"shop": SESSION_NO_SHOP_HINT}),
        StepSpec("top_shops", ("window_start", "window_end", "shop", "revenue", "rn"), (
            Rows("top_shops: the 2 shops with the most revenue per 10-minute window", 2,
                 lambda orders: _ranked(ref.top_shops(orders)),
                 "ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY revenue DESC) AS rn over the "
                 "10-minute TUMBLE aggregation, then WHERE rn <= 2.",
                 mistakes=((_ascending(ref.top_shops, 2), _ascending_hint("revenue")),),
                 diagnose=_diagnosed(_topn_hint(2)),
                 guard=_guarded(_window_end_grouped, _no_ties(ref.revenue_ties, ref.top_shops, "revenue", "shop"))),
            _insert_only(TOPN_PARTITION_HINT, _topn_partition_hint),
            _tvf("top_shops"),
        )),
        StepSpec("top_orders", ("window_start", "window_end", "order_id", "amount", "rn"), (
            Rows("top_orders: the 3 largest orders per 30-minute window", 2,
                 lambda orders: _ranked(ref.top_orders(orders)),
                 "ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY amount DESC) AS rn directly on "
                 "TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '30' MINUTES), then WHERE rn <= 3.",
                 mistakes=((_ascending(ref.top_orders, 3), _ascending_hint("amount")),),
                 diagnose=_diagnosed(_topn_hint(3)),
                 guard=_no_ties(ref.amount_ties, ref.top_orders, "amount", "order_id")),
            _insert_only(TOPN_PARTITION_HINT, _topn_partition_hint),
            _tvf("top_orders"),
        )),
    ),
    report=ReportSpec(
        REPORT_FIELDS, ref.expected_report, SOURCES,
        hint="Read it from {source} (rows are final: window results are insert-only).",
        field_hints={
            "cumulate_windows_per_start": "Count the cumulate.out rows sharing one window_start: 1 hour / 10 "
                                          "minutes = 6.",
            "longest_session_s": "The longest window_end − window_start in session.out, in seconds (the end "
                                 "includes the 5-minute gap).",
        },
        diagnose=lambda ctx: _report_hint, from_outputs=build_report, tolerance=TOLERANCE),
)

#: What `Lab.checks` calls: every requirement of the windows lab, graded from the saved files against the CSV.
checks = CHECKS
