"""Full-screen result views of the shell (Flink's CliTableResultView and CliChangelogResultView), each a
prompt_toolkit Application over a result the executor feeds; frame.py lays out the text, view.py runs it."""
