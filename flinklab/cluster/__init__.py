"""Cluster backends (listed in registry.py: local JVMs, Docker containers, an attached remote cluster), one
interface (base.ClusterBackend), and the `flink-up`/`flink-down` use cases (lifecycle.py)."""
