"""Pictures a learner would rather look at: the windows lab's timeline, a compiled plan's graph with its state, and
a self-contained HTML report of `flinklab check` with both for the failed steps.

Every picture is built in two parts: a model computed from files (the lab's CSV through its reference, the saved
step outputs through the grading parsers, a plan JSON through `grading.plans`), and renderers of that model (a
rich renderable for the terminal, standalone SVG written by `svg.py`). Nothing here asks the cluster.
"""
