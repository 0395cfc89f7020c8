"""The sql-client-compatible runner: statement splitting, Flink's tableau format, execution on PyFlink.

Import the runner from `flinklab.sqlclient.runner` (it needs PyFlink); the splitter and tableau are pure Python.
"""

from flinklab.sqlclient.splitter import split_statements, strip_comments

__all__ = ["split_statements", "strip_comments"]
