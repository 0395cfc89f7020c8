#!/usr/bin/env python3
"""Benchmark of the interactive shell (issue 19); prints figures, asserts nothing.

    .venv/bin/python scripts/shell_bench.py            # its own cluster, on free ports and temporary dirs

Called by scripts/bench.py as its `shell` section (hook 04); standalone it prints the same lines. Figures:
- start to prompt: `sql-client.sh` on a pseudo-terminal until `Flink SQL>` shows, beside
  `sql-client.sh --help` (target: within 0.5 s of it);
- completion: the complete-statement round trip, p50 and p95 (target p95 <= 50 ms);
- one bounded query through the shell (typed at the prompt, to the prompt back) and through `sql-client.sh -f`
  (the statement's time in the file runner), the shell's extra in percent (target <= 5 %);
- the table view over 10,000 rows changing all the time: the cost of one refresh (snapshot, page, drawing) next to
  the refresh interval it must fit in.
"""

from __future__ import annotations

import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

Figure = Callable[..., None]
DDL = ("CREATE TABLE nums (n BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '20000', "
       "'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '20000');\n")
QUERY = "SELECT COUNT(*) AS c, SUM(n) AS s FROM nums"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _print_figure(label: str, seconds: float, floor: float | None = None, floor_label: str = "floor") -> None:
    text = f"{seconds * 1000:8.1f} ms"
    if floor is not None:
        text += f"  ({seconds - floor:+.3f} s over {floor_label})"
    print(f"  {label:<52} {text}")


def _median(times: list[float]) -> float:
    return sorted(times)[len(times) // 2]


def start_to_prompt(env: dict[str, str], runs: int = 5) -> float:
    """Median seconds from spawning the shell to its prompt on the screen."""
    from helpers.shell_term import Term

    times = []
    for _ in range(runs + 1):
        t0 = time.perf_counter()
        term = Term(["-hist", os.devnull], env)
        term.wait_prompt(timeout=60)
        times.append(time.perf_counter() - t0)
        term.send("\x04")
        term.exit_status()
    return _median(times[1:])


def help_start(env: dict[str, str], runs: int = 5) -> float:
    code = "import sys; sys.argv[0] = 'sql-client.sh'; from flinklab.cli import sql_client_main; sql_client_main()"
    times = []
    for _ in range(runs + 1):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code, "--help"], env=env, stdout=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - t0)
    return _median(times[1:])


def completion_times(url: str, rounds: int = 200) -> list[float]:
    """Seconds per complete-statement call on a session that has a table."""
    from flinklab.sqlclient.shell.gateway import ShellApi

    api = ShellApi(url)
    handle = api.open_session({})
    api.configure_session(handle, DDL.rstrip().rstrip(";"))
    statement = "SELECT n FROM nu"
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        api.complete(handle, statement, len(statement))
        times.append(time.perf_counter() - t0)
    api.close_session(handle)
    api.close()
    return times[10:]  # the first calls warm the planner's parser


def shell_query(env: dict[str, str], ddl: Path, runs: int = 3) -> float:
    """Median seconds from Enter to the prompt back for QUERY typed in the shell (tableau)."""
    from helpers.shell_term import Term

    term = Term(["-i", str(ddl), "-hist", os.devnull, "-D", "sql-client.execution.result-mode=tableau",
                 "-D", "execution.runtime-mode=batch"], env)
    term.wait_prompt(timeout=60)
    times = []
    for _ in range(runs + 1):
        term.clear()
        t0 = time.perf_counter()
        term.type_line(QUERY + ";")
        term.wait(lambda: "1 row in set" in term.text() and
                  term.screen.display[term.screen.cursor.y].rstrip() == "Flink SQL>", "the result", 120)
        times.append(time.perf_counter() - t0)
    term.type_line("QUIT;")
    term.exit_status()
    return _median(times[1:])


def file_query(env: dict[str, str], ddl: Path, root: Path, runs: int = 3) -> float:
    """Median seconds of QUERY's own time in `sql-client.sh -f` (its `(N seconds)` is not printed in batch with
    the time cost off, so the run is timed around the statement by the client's listener)."""
    from flinklab.settings import Settings
    from flinklab.sqlclient.client import SqlClient, StatementOutcome, run_invocation

    script = root / "q.sql"
    script.write_text("SET 'sql-client.execution.result-mode' = 'tableau';\nSET 'execution.runtime-mode' = 'batch';\n"
                      f"{QUERY};\n")
    settings = Settings.from_env(env)
    times: list[float] = []

    class Timer:
        def statement_started(self, index: int, statement: str) -> None:
            pass

        def statement_finished(self, outcome: StatementOutcome) -> None:
            if outcome.kind == "query":
                times.append(outcome.seconds)

    with SqlClient(settings) as client:
        for _ in range(runs + 1):
            with open(os.devnull, "w") as out:
                run_invocation(client, out, init_files=[ddl], script_file=script, listener=Timer())
    return _median(times[1:])


def view_refresh_cost(rows: int = 10_000, rounds: int = 20) -> tuple[float, float]:
    """(median, max) seconds of one table-view refresh (snapshot + page + drawing) while another thread changes
    all `rows` rows as fast as it can."""
    from prompt_toolkit.input import DummyInput
    from prompt_toolkit.output import DummyOutput

    from flinklab.sqlclient import tableau
    from flinklab.sqlclient.shell.result import QueryResult
    from flinklab.sqlclient.shell.views.screen import ViewScreen
    from flinklab.sqlclient.shell.views.table import TableResultView

    result = QueryResult([tableau.ColumnType("k", "BIGINT"), tableau.ColumnType("v", "BIGINT")], ["BIGINT"] * 2, 30)
    fold = result.table
    fold.apply([("+I", [str(k), "0"]) for k in range(rows)])
    screen = ViewScreen(result, TableResultView, output=DummyOutput(), input=DummyInput())
    view = screen.view
    stop = threading.Event()

    def churn() -> None:
        version = 0
        while not stop.is_set():
            fold.apply([change for k in range(0, rows, 10) for change in
                        (("-U", [str(k), str(version)]), ("+U", [str(k), str(version + 1)]))])
            version += 1

    thread = threading.Thread(target=churn, daemon=True)
    thread.start()
    costs = []
    try:
        for _ in range(rounds):
            t0 = time.perf_counter()
            view.refresh()
            screen.fragments()
            costs.append(time.perf_counter() - t0)
            time.sleep(0.05)
    finally:
        stop.set()
        thread.join()
    return statistics.median(costs), max(costs)


def bench_shell(root: Path, figure: Figure = _print_figure, section: Callable[[str], None] = print) -> None:
    """Bring up a cluster of its own under `root`, print the shell's figures, bring it down."""
    from flinklab.environment.lifecycle import bring_down, bring_up
    from flinklab.settings import Settings
    from flinklab.usecases.provision import lab_data_files

    section("The interactive shell (issue 19)")
    base = root / "shell"
    for sub in ("ws", "data", "state", "home"):
        (base / sub).mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "FLINKLAB_WORKSPACE": str(base / "ws"), "FLINKLAB_DATA_DIR": str(base / "data"),
           "FLINKLAB_STATE_DIR": str(base / "state"), "FLINKLAB_REST_PORT": str(_free_port()),
           "FLINKLAB_GATEWAY_PORT": str(_free_port()), "FLINKLAB_BACKEND": "local", "HOME": str(base / "home")}
    settings = Settings.from_env(env)
    ddl = base / "ddl.sql"
    ddl.write_text(DDL)
    bring_up(settings, data_files=lab_data_files())
    try:
        floor = help_start(env)
        figure("sql-client.sh --help", floor)
        figure("shell: start to prompt (target <= 0.5 s over --help)", start_to_prompt(env), floor, "--help")
        times = completion_times(settings.gateway_url)
        figure("shell: completion round trip p50", _median(times))
        figure("shell: completion round trip p95 (target <= 50 ms)", sorted(times)[int(len(times) * 0.95)])
        in_file = file_query(env, ddl, base)
        in_shell = shell_query(env, ddl)
        figure("the same batch query through -f (its statement)", in_file)
        figure(f"  through the shell (Enter to prompt): {100 * (in_shell / in_file - 1):+.1f} % (target <= 5 %)",
               in_shell, in_file, "-f")
        median, worst = view_refresh_cost()
        figure("table view, 10,000 changing rows: one refresh, median", median)
        figure("  worst of 20 (the default interval is 1 s)", worst)
    finally:
        bring_down(settings)


def main() -> int:
    root = Path(tempfile.mkdtemp(prefix="flinklab-shell-bench-"))
    try:
        bench_shell(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
