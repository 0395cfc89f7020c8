"""Cluster backends (listed in flinklab.settings.BACKENDS, loaded by registry.py: local JVMs, Docker containers, an
attached remote cluster) behind one interface (base.ClusterBackend). The `flink-up`/`flink-down` use cases around
them are in flinklab.environment."""
