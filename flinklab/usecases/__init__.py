"""The use cases: run, check, provision, new-lab, fixtures (and grade, up/down), as library functions.

Each takes what it needs (settings, a lab, paths) and returns a result or yields typed events; the faces (the CLI,
the notebook) parse their input, call one use case once and render what it returns.

- run (run_plan.py, run.py, run_report.py): `prepare_run` plans a run and raises the user's errors once (unknown
  step, no workspace, nothing to run, no cluster); `run_planned` runs it (typed `RunProgress` callbacks) into a
  `LabRun`; `run_lab` is both.
- check (check.py): `grade_lab` grades the saved work into a `GradeReport` (never asks the cluster).
- provision (provision.py): the lab data files `flink-up` provisions and the labs' workspaces.
- solution (solution.py): install a lab's reference SQL without losing the learner's files.
- fixtures (fixtures.py): generate a lab's CSVs.
- newlab (newlab.py): write the skeleton of a new lab package.
"""
