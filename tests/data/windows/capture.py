"""Capture the windows lab's golden outputs: the reference solution and every mistake in mistakes/, run for real.

    .venv/bin/python tests/data/windows/capture.py [--rest-port 8081]

Needs a running Flink cluster that can read local paths (a local cluster does). Writes outputs/solution/ (every
.out and report.json), outputs/mistakes/<mistake>/ (the output the mistaken step rewrote) and outputs/ties/ (a copy
of the data with two shops' revenues tied in one window, and top_shops.out run on it). The offline check tests grade
these files; recapture when the fixtures or the SQL change.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # tests/, for labtools

from helpers.labtools import capture_lab, run_with_sql, save_outputs  # noqa: E402

from flinklab.lab_api import render_csv  # noqa: E402
from flinklab.labs.windows import LAB  # noqa: E402
from flinklab.labs.windows import reference as ref  # noqa: E402
from flinklab.labs.windows.fixtures import FILE  # noqa: E402
from flinklab.settings import Settings  # noqa: E402
from flinklab.usecases.run import run_lab  # noqa: E402


def tie_revenues(rows: list[list[str]]) -> list[list[str]]:
    """The data with the runner-up shop of the first window holding two or more shops raised to the leader's
    revenue: a tie at the top of that window's Top-N (the lab's data never has one)."""
    orders = ref.parse_rows(rows)
    per_window: dict[tuple[int, int], list[ref.Ranked]] = {}
    for r in ref.top_shops(orders, n=99):
        per_window.setdefault(r.window, []).append(r)
    window, ranked = next((w, r) for w, r in sorted(per_window.items()) if len(r) >= 2)
    first, second = ranked[0], ranked[1]
    target = next(o for o in orders if o.shop == second.key and ref.tumble_windows(o.ts, ref.MINUTE * 10)[0] == window)
    out = [list(r) for r in rows]
    for row in out:
        if row[0] == str(target.order_id):
            row[2] = f"{target.amount + first.value - second.value:.2f}"
    return out


def tie_amounts(rows: list[list[str]]) -> list[list[str]]:
    """The data with the 4th-largest order of the first 30-minute window raised to the 3rd's amount: a tie at the
    cut of that window's Top-3."""
    orders = ref.parse_rows(rows)
    ranked = [r for r in ref.top_orders(orders, n=4) if r.window == ref.top_orders(orders, n=4)[0].window]
    third, fourth = ranked[2], ranked[3]
    out = [list(r) for r in rows]
    for row in out:
        if row[0] == fourth.key:
            row[2] = f"{third.value:.2f}"
    return out


def tiebreak_sql(step: str) -> str:
    """The reference SQL of a Top-N step with the tie-break the grader's hint suggests added to its ORDER BY."""
    sql = (LAB.solution_dir / f"{step}.sql").read_text(encoding="utf-8")
    value, key = ("revenue", "shop") if step == "top_shops" else ("amount", "order_id")
    return sql.replace(f"ORDER BY {value} DESC)", f"ORDER BY {value} DESC, {key})")


def capture_ties(settings: Settings, client, workspace: Path) -> None:
    """outputs/ties/: top_shops.out run on a copy of the data whose first contested window has a revenue tie."""
    data = settings.data_dir
    rows = [line.split(",") for line in (data / FILE).read_text(encoding="utf-8").splitlines() if line]
    (data / FILE).write_text(render_csv([tuple(r) for r in tie_revenues(rows)]), encoding="utf-8")
    run_lab(settings, LAB, only="top_shops", client=client)
    save_outputs(workspace, HERE / "outputs" / "ties", ["top_shops.out"])
    shutil.copy(data / FILE, HERE / "outputs" / "ties" / FILE)
    # the hint's own fix on the same data: ORDER BY revenue DESC, shop (kept as top_shops_tiebreak.out)
    run_with_sql(settings, LAB, "top_shops", tiebreak_sql("top_shops"), client)
    shutil.copy(workspace / "top_shops.out", HERE / "outputs" / "ties" / "top_shops_tiebreak.out")
    # an amount tie at the Top-3 cut, and the hint's fix for it: ORDER BY amount DESC, order_id
    amount_ties = HERE / "outputs" / "ties" / "amount"
    amount_ties.mkdir(parents=True, exist_ok=True)
    (data / FILE).write_text(render_csv([tuple(r) for r in tie_amounts(rows)]), encoding="utf-8")
    shutil.copy(data / FILE, amount_ties / FILE)
    run_with_sql(settings, LAB, "top_orders", tiebreak_sql("top_orders"), client)
    shutil.copy(workspace / "top_orders.out", amount_ties / "top_orders_tiebreak.out")
    print("captured ties")


if __name__ == "__main__":
    capture_lab(LAB, HERE, extra=capture_ties)
