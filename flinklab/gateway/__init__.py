"""flinklab's SQL Gateway: Flink's SQL Gateway REST API on PyFlink (the PyPI Flink has no gateway jar).

service.py holds sessions and operations; app.py maps Flink's REST API onto it; server.py builds the service and
serves it from a thread; java_shim.py runs the JVM in a container on a host without Java. The gateway process and
its start/stop for `flink-up` / `flink-down` are in flinklab.environment (serve_gateway.py, gateway.py).
"""
