"""flinklab: a real Flink cluster, a sql-client-compatible runner, and graded Flink SQL labs."""

from flinklab.version import FLINK_VERSION

__all__ = ["FLINK_VERSION"]
