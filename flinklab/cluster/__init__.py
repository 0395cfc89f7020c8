"""Cluster backends: local JVM processes or Docker containers, one interface (see base.ClusterBackend)."""
