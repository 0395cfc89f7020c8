"""The interactive shell of `sql-client.sh`: a prompt session (app.py), a completer (completer.py) and an executor
(executor.py), as pgcli splits them; statements are split by the file runner's splitter and printed by its printer.
Full-screen result views (views/) are fed by the same result pages as the tableau."""
