"""Shared Flink pieces the cluster backends, the gateway and the client all use, and nothing above them:
the REST client (rest.py), Flink's options as one table (options.py), process helpers (procs.py), the Java
lookup (java.py), the SQL splitter (sql_split.py) and the readiness-error pieces (waits.py)."""
