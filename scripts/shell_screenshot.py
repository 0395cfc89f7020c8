#!/usr/bin/env python3
"""Screenshots of the shell's result views for docs/shell.md, taken from a real run: the shell on a pseudo-terminal
against the running cluster (the FLINKLAB_* environment), the joins lab's tables from its ddl.sql, the screen as
a VT100 emulator (pyte) holds it, written as SVG text (each cell where the terminal drew it, reverse video, bold
and underline kept). Nothing is drawn by hand.

    .venv/bin/python scripts/shell_screenshot.py docs/shell-table-view.svg            # the table view
    .venv/bin/python scripts/shell_screenshot.py docs/shell-changelog-view.svg changelog  # after T: its changelog
"""

from __future__ import annotations

import os
import sys
import tempfile
from html import escape
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

QUERY = ("SELECT o.order_id, o.user_id, u.tier, o.currency, o.amount, o.order_time FROM orders AS o "
         "JOIN users AS u ON o.user_id = u.user_id;")
#: the changelog screenshot: a streaming aggregate, whose changelog holds updates (-U/+U)
UPDATING_QUERY = "SELECT currency, COUNT(*) AS orders, SUM(amount) AS total FROM orders GROUP BY currency;"
ROWS, COLS = 24, 100
CELL_W, CELL_H = 8.4, 17


def svg(screen: object) -> str:
    """The pyte screen as SVG: one <text> per run of equally styled cells."""
    lines = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{COLS * CELL_W:.0f}" height="{ROWS * CELL_H + 8}" '
             'font-family="DejaVu Sans Mono, Menlo, monospace" font-size="14">',
             '<rect width="100%" height="100%" fill="#1e1e1e"/>']
    buffer = screen.buffer  # type: ignore[attr-defined]
    for y in range(ROWS):
        row = buffer[y]
        x = 0
        while x < COLS:
            char = row[x]
            style = (char.reverse, char.bold, char.underscore)
            start = x
            text = ""
            while x < COLS and (row[x].reverse, row[x].bold, row[x].underscore) == style:
                text += row[x].data or " "
                x += 1
            reverse, bold, underline = style
            top = y * CELL_H + 4
            if reverse:
                lines.append(f'<rect x="{start * CELL_W:.1f}" y="{top}" width="{len(text) * CELL_W:.1f}" '
                             f'height="{CELL_H}" fill="#d4d4d4"/>')
            if text.strip():
                attrs = ' font-weight="bold"' if bold else ""
                attrs += ' text-decoration="underline"' if underline else ""
                fill = "#1e1e1e" if reverse else "#d4d4d4"
                lines.append(f'<text x="{start * CELL_W:.1f}" y="{top + CELL_H - 4}" fill="{fill}"{attrs} '
                             f'xml:space="preserve">{escape(text)}</text>')
    lines.append("</svg>")
    return "\n".join(lines) + "\n"


def main() -> int:
    from helpers.shell_term import Term

    from flinklab.settings import Settings

    target = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/shell-table-view.svg")
    view = sys.argv[2] if len(sys.argv) > 2 else "table"
    settings = Settings.from_env()
    source = next(p for p in (ROOT / "sql" / "joins" / "ddl.sql", ROOT / "flinklab" / "labs" / "joins" / "sql" /
                              "ddl.sql") if p.exists())
    ddl = source.read_text().replace("/opt/lab/fixtures/data", str(settings.data_dir))
    with tempfile.TemporaryDirectory() as tmp:
        init = Path(tmp) / "ddl.sql"
        init.write_text(ddl)
        mode = "streaming" if view == "changelog" else "batch"
        term = Term(["-i", str(init), "-hist", os.devnull, "-D", f"execution.runtime-mode={mode}",
                     "-D", "table.display.max-column-width=12"], dict(os.environ),
                    rows=ROWS, cols=COLS)
        try:
            term.wait_prompt()
            term.type_line(UPDATING_QUERY if view == "changelog" else QUERY)
            term.wait_for("Table program finished.")
            if view == "changelog":
                term.send("t")  # the same result as its changelog, nothing run again
                term.wait_for("SQL Query Result (Changelog)")
            term.send("s")
            term.send("s")  # the second row selected, as a learner about to open it
            term.settle()
            target.write_text(svg(term.screen))
            term.send("q")
            term.wait_prompt()
            term.type_line("QUIT;")
            term.exit_status()
        finally:
            term.close()
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
