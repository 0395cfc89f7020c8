"""The SQL client: a thin client of the SQL gateway (Flink's REST protocol), no JVM.

client.py runs scripts as `sql-client.sh -f` does; protocol.py speaks the gateway's REST API; printer.py holds
every text the client prints, laid out by tableau.py; flinklab.flink.sql_split cuts scripts into statements.
"""
