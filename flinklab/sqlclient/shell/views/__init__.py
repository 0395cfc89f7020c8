"""Full-screen result views of the shell, one class per view as Flink's client has them: base.py (CliResultView),
table.py (CliTableResultView), changelog.py (CliChangelogResultView); modes.py maps result modes to them; frame.py
lays out the text; screen.py runs the current view on the terminal."""
