"""The result modes of `sql-client.execution.result-mode` and the view each one opens (Flink's ResultDescriptor
picks CliTableResultView when materialized, CliChangelogResultView otherwise, and prints a tableau for TABLEAU).

The executor and the shell ask this table; nothing else tests the mode's name.
"""

from __future__ import annotations

from collections.abc import Mapping

from flinklab.sqlclient.client import RESULT_MODE
from flinklab.sqlclient.shell.views.base import ResultView
from flinklab.sqlclient.shell.views.changelog import ChangelogResultView
from flinklab.sqlclient.shell.views.table import TableResultView

#: result mode -> its full-screen view; a mode not here (TABLEAU, or a value the client rejects) prints.
VIEWS: dict[str, type[ResultView]] = {"TABLE": TableResultView, "CHANGELOG": ChangelogResultView}
#: the view the toggle key switches to, on the same result.
OTHER: dict[type[ResultView], type[ResultView]] = {TableResultView: ChangelogResultView,
                                                   ChangelogResultView: TableResultView}
DEFAULT_MODE = "TABLE"


def view_for(conf: Mapping[str, str]) -> type[ResultView] | None:
    """The view a query opens in a session with `conf`, or None when its result is printed."""
    return VIEWS.get(conf.get(RESULT_MODE, DEFAULT_MODE).strip().upper())
