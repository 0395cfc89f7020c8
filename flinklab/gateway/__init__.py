"""flinklab's SQL Gateway: Flink's SQL Gateway REST API on PyFlink (the PyPI Flink has no gateway jar).

service.py holds sessions and operations; app.py maps Flink's REST API onto it; server.py is the process;
process.py starts, finds and stops that process for `flink-up` / `flink-down`.
"""
