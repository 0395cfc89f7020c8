"""`flinklab new-lab NAME`: write the skeleton of a lab as its own installable package (README "Writing a lab").

The skeleton is a working one-step lab (items per category, batch) so `pip install -e flinklab-NAME` then
`flinklab run NAME --solution` and `flinklab check NAME` pass before the author changes anything; each file says
what to replace.
"""

from __future__ import annotations

import re
from pathlib import Path

from flinklab.course.fixtures_io import render_csv
from flinklab.errors import UsageError

NAME = re.compile(r"[a-z][a-z0-9_]{0,30}\Z")

PYPROJECT = '''[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "flinklab-{name}"
version = "0.1.0"
description = "The {name} lab for flinklab."
requires-python = ">=3.11"
dependencies = ["flinklab"]

# flinklab finds the lab through this entry point (group flinklab.labs), named as the lab.
[project.entry-points."flinklab.labs"]
{name} = "flinklab_{name}:LAB"

[tool.setuptools]
packages = ["flinklab_{name}"]

# The reference SQL, the committed CSVs and the guide travel with the package.
[tool.setuptools.package-data]
flinklab_{name} = ["sql/*.sql", "data/*.csv", "*.md"]
'''

INIT = '''"""The {name} lab. Replace the step, the data and the checks with your own; keep `package=__name__`."""

from __future__ import annotations

from flinklab.course.lab import FixtureSpec, Lab, Step

from flinklab_{name} import fixtures
from flinklab_{name}.checks import checks
from flinklab_{name}.report import REPORT_FIELDS, build_report

LAB = Lab(
    name="{name}",
    title="The {name} lab",
    steps=(
        # sql-client.sh -i ddl.sql -f count.sql > count.out: one Step per SQL file the learner writes
        Step("count", "Items per category (batch)", "count.sql", "count.out", mode="batch"),
    ),
    fixtures=FixtureSpec(files=(fixtures.FILE,), generate=fixtures.generate, default_seed=1),
    report_fields=REPORT_FIELDS,
    build_report=build_report,
    checks=checks,
    package=__name__,
    guide_file="guide.md",
)
'''

FIXTURES = '''"""The lab's CSV, deterministic for a seed and a scale (`flinklab fixtures generate {name}`
rewrites data/)."""

from __future__ import annotations

import random

FILE = "{name}_items.csv"
CATEGORIES = ("books", "games", "music")


def generate(seed: int, scale: int) -> dict[str, list[tuple[str, ...]]]:
    """{{FILE: rows (item_id, category, amount)}}; every category has an item at any scale."""
    rng = random.Random(seed)
    rows = []
    for n in range(10 * scale):
        category = CATEGORIES[n] if n < len(CATEGORIES) else rng.choice(CATEGORIES)
        rows.append((f"i{{n + 1:04d}}", category, f"{{rng.randint(100, 9999) / 100:.2f}}"))
    return {{FILE: rows}}
'''

REFERENCE = '''"""The expected answers, computed in plain Python from the CSV (never from Flink)."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

from flinklab_{name}.fixtures import FILE


def items_per_category(data_dir: Path) -> list[tuple[str, int]]:
    """(category, items), sorted."""
    with open(Path(data_dir) / FILE, newline="", encoding="utf-8") as f:
        counts = Counter(row[1] for row in csv.reader(f))
    return sorted(counts.items())
'''

REPORT = '''"""report.json, built from the saved outputs the way the guide tells a learner to."""

from __future__ import annotations

from pathlib import Path

from flinklab.grading.changelog import final_rows
from flinklab.grading.outputs import read_step

FIELD_SOURCES = {{"categories": "count.out"}}
REPORT_FIELDS = tuple(FIELD_SOURCES)


def build_report(workspace: Path) -> dict:
    """Each field is the row count of its output; a field whose output is unusable is left out."""
    report = {{}}
    for field, source in FIELD_SOURCES.items():
        out = read_step(Path(workspace), source)
        if out.table is not None:
            report[field] = len(final_rows(out.table))
    return report
'''

CHECKS = '''"""The lab's checks: every requirement one CheckResult; a failure says what was expected and
hints the mistake."""

from __future__ import annotations

from decimal import Decimal

from flinklab.grading.changelog import final_rows
from flinklab.grading.checks import CheckResult, failed, passed
from flinklab.grading.context import GradingContext
from flinklab.grading.outputs import StepChecks, read_step, run_hint
from flinklab.grading.report_checks import report_field_checks
from flinklab.grading.values import compare_rows

from flinklab_{name} import reference as ref
from flinklab_{name}.report import FIELD_SOURCES, REPORT_FIELDS

COLUMNS = ("category", "items")


def checks(ctx: GradingContext) -> list[CheckResult]:
    """Every check of the lab."""
    name = "count: items per category"
    out = read_step(ctx.workspace, "count.out")
    step = StepChecks(out, "count", COLUMNS, problem="" if out.ok else f"expected a result; {{out.error}}.",
                      hint="" if out.ok else run_hint("{name}", "count"))
    expected = ref.items_per_category(ctx.data_dir)
    results = []
    unusable = step.unusable(name, 2)
    if unusable is not None:
        results.append(unusable)
    else:
        diff = compare_rows(expected, final_rows(step.table), columns=COLUMNS)
        results.append(passed(name, 2, step="count") if diff.ok else failed(
            name, 2, f"expected {{len(expected)}} rows: {{diff.describe()}}.",
            "GROUP BY category and name the columns category, items.", step="count"))
    results += report_field_checks(
        ctx, REPORT_FIELDS, {{"categories": len(expected)}}, integer_fields=REPORT_FIELDS, sources=FIELD_SOURCES,
        hint_for=lambda field, found, want: f"Count the rows of {{FIELD_SOURCES[field]}}.", tolerance=Decimal(0),
        lab_name="{name}")
    return results
'''

DDL = '''-- The lab's source table; the path is the lab texts' data dir (flinklab rewrites it to this machine's).
CREATE TABLE items (
  item_id  STRING,
  category STRING,
  amount   DECIMAL(10, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = '/opt/lab/fixtures/data/{name}_items.csv',
  'format' = 'csv'
);
'''

COUNT = '''SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'batch';

SELECT category, COUNT(*) AS items FROM items GROUP BY category;
'''

GUIDE = '''# The {name} lab

`ddl.sql` declares `items` (`item_id`, `category`, `amount`) over `{name}_items.csv`.

## count

Count the items of each category in batch mode: columns `category, items`. Checked: one row per category with
its count.

## report

`report.json` holds `categories`: the rows of `count.out`.
'''


def write_skeleton(name: str, parent: Path) -> Path:
    """Write `parent/flinklab-NAME/` (a package `flinklab_NAME` registering the lab `name`); its path."""
    if not NAME.match(name):
        raise UsageError(f"{name!r} is not a lab name.",
                         "Use lower-case letters, digits and _ (starting with a letter), e.g. `flinklab new-lab topn`.")
    root = Path(parent).expanduser() / f"flinklab-{name}"
    if root.exists():
        raise UsageError(f"{root} exists already.", "Choose another --dir or remove it.")
    package = root / f"flinklab_{name}"
    files = {
        root / "pyproject.toml": PYPROJECT, package / "__init__.py": INIT, package / "fixtures.py": FIXTURES,
        package / "reference.py": REFERENCE, package / "report.py": REPORT, package / "checks.py": CHECKS,
        package / "sql" / "ddl.sql": DDL, package / "sql" / "count.sql": COUNT, package / "guide.md": GUIDE,
    }
    try:
        for path, template in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(template.format(name=name), encoding="utf-8")
        # The committed CSV is the generator's default output (what `flinklab fixtures generate NAME` writes).
        namespace: dict = {}
        exec(compile(FIXTURES.format(name=name), str(package / "fixtures.py"), "exec"), namespace)  # noqa: S102
        rows = namespace["generate"](1, 1)[namespace["FILE"]]
        (package / "data").mkdir()
        (package / "data" / namespace["FILE"]).write_text(render_csv(rows), encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"Cannot write {root}: {exc.strerror or exc}.", "Choose a writable --dir.") from None
    return root
