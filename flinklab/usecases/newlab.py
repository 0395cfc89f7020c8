"""`flinklab new-lab NAME`: write the skeleton of a lab as its own installable package (README "Writing a lab").

The skeleton is a working one-step lab (items per category, batch) so `pip install -e flinklab-NAME` then
`flinklab run NAME --solution` and `flinklab check NAME` pass before the author changes anything; each file says
what to replace.
"""

from __future__ import annotations

import re
from pathlib import Path

from flinklab.errors import UsageError
from flinklab.lab_api.csvdata import render_csv

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

from flinklab.lab_api import FixtureSpec, Lab, Step

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

from collections import Counter
from pathlib import Path

from flinklab.lab_api import decimal_cell, read_csv, text_cell

from flinklab_{name}.fixtures import FILE

Item = tuple[str, str, object]  # item_id, category, amount (a Decimal)


def load(data_dir: Path) -> list[Item]:
    """The items in file order (a one-line error naming the file and line when the CSV is unreadable)."""
    return read_csv(Path(data_dir) / FILE, (("item_id", text_cell), ("category", text_cell), ("amount", decimal_cell)))


def items_per_category(items: list[Item]) -> list[tuple[str, int]]:
    """The count step's answer: (category, items), sorted."""
    return sorted(Counter(item[1] for item in items).items())


def report(items: list[Item]) -> dict[str, int]:
    """report.json as the reference computes it."""
    return {{"categories": len(items_per_category(items))}}
'''

REPORT = '''"""report.json as a table: each field is a count or a sum over one step's output (or a function of the
outputs, where it needs code), built the way the guide tells a learner to (flinklab.grading.report_fields)."""

from __future__ import annotations

from pathlib import Path

from flinklab.lab_api import ReportField, report_field_names, report_field_sources, report_from_fields

FIELDS = (
    ReportField("categories", ("count",)),  # the rows of count.out; ("count",), "sum", "items" would sum a column
)
REPORT_FIELDS = report_field_names(FIELDS)
SOURCES = report_field_sources(FIELDS)


def build_report(workspace: Path) -> dict:
    """report.json from the saved outputs; a field whose output is unusable is left out."""
    return report_from_fields(workspace, FIELDS)
'''

CHECKS = '''"""The lab's checks as a table (flinklab.grading.spec): per step the columns its output must have and its
checks, each with its name, points and hint. A failure says what was expected and what was found.

A mistake whose rows you can compute goes in `mistakes` (its rows, its hint); write a `diagnose=` function only
for a hint that needs code, and a `Judge` only for a check that is not a row comparison.
"""

from __future__ import annotations

from flinklab.lab_api import Changelog, LabChecks, ReportSpec, Rows, StepSpec

from flinklab_{name} import reference as ref
from flinklab_{name}.report import REPORT_FIELDS, SOURCES

CHECKS = LabChecks(
    lab="{name}",
    load=ref.load,
    steps=(
        StepSpec("count", ("category", "items"), (
            Rows("count: items per category", 2, ref.items_per_category,
                 "GROUP BY category and name the columns category, items."),
            Changelog("batch", 1, "Run count.sql in batch mode: SET 'execution.runtime-mode' = 'batch';"),
        )),
    ),
    report=ReportSpec(REPORT_FIELDS, ref.report, SOURCES, hint="Count the rows of {{source}}."),
)

#: What `Lab.checks` calls.
checks = CHECKS
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
