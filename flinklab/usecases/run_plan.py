"""Planning a run (`prepare_run`): which steps, which workspace, which steps cannot run and why, and every error the
user can fix raised once, before anything is installed or written."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from flinklab.cluster.base import resolve_rest_url
from flinklab.errors import NoClusterError, UsageError
from flinklab.flink.sql_split import split_statements, strip_comments
from flinklab.flink.tls import cluster_rest
from flinklab.lab_api import Lab, Step
from flinklab.settings import Settings

#: what a run says of a step file without a statement (an output of it would be graded as nothing)
NO_STATEMENT = "holds no SQL statement (it is empty or only comments)"


def holds_no_statement(path: Path) -> bool:
    """True when the SQL file at `path` is empty or only comments (one that cannot be read is the client's to
    report, as `sql-client.sh -f` does)."""
    try:
        sql = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return not any(strip_comments(statement) for statement in split_statements(sql))


def skip_reasons(lab: Lab, steps: list[Step], workspace: Path) -> tuple[dict[str, str], list[str]]:
    """Why each step that cannot run is skipped (its SQL file or the init file is missing, or its SQL file holds
    no statement), and the missing workspace files, sorted."""
    init_missing = not (workspace / lab.init_file).is_file()
    skip_reason: dict[str, str] = {}
    for step in steps:
        if not (workspace / step.sql_file).is_file():
            skip_reason[step.id] = f"{step.sql_file} is missing"
        elif holds_no_statement(workspace / step.sql_file):
            skip_reason[step.id] = f"{step.sql_file} {NO_STATEMENT}: write the step's query in it"
        elif step.uses_init and init_missing:
            skip_reason[step.id] = f"needs {lab.init_file}, which is missing"
    needed = {s.sql_file for s in steps} | ({lab.init_file} if any(s.uses_init for s in steps) else set())
    return skip_reason, sorted(name for name in needed if not (workspace / name).is_file())


@dataclass(frozen=True)
class RunPlan:
    """What a run will do, worked out once before anything is installed or written: the steps (all, or `--only`
    one), the workspace, and, for the learner's own files, which steps are skipped and why."""

    lab: Lab
    steps: list[Step]
    workspace: Path
    solution: bool
    #: step id -> why it cannot run (its SQL file or the init file is missing, or its SQL file holds no
    #: statement); empty with `solution`
    skip_reason: dict[str, str]
    #: the workspace files the run needs and does not find, sorted
    missing: list[str]


def require_cluster(settings: Settings) -> None:
    """NoClusterError (one line, exit 2) when no Flink cluster answers where `flink-up` left it."""
    rest_url = resolve_rest_url(settings)
    if not cluster_rest(rest_url, settings.state_dir, 3).is_up():
        raise NoClusterError(rest_url)


def prepare_run(settings: Settings, lab: Lab, *, solution: bool = False, only: str | None = None,
                strict: bool = False) -> RunPlan:
    """Plan a run, raising the user's errors once, before anything is installed or written: an unknown `only`
    step, no workspace for the learner's files; with `strict` (the CLI) also nothing runnable (every file
    missing: named) and no cluster answering. Without `strict` a run of nothing skips every step."""
    steps = [lab.step(only)] if only else list(lab.steps)
    workspace = settings.workspace(lab.name)
    if not solution and not workspace.is_dir():
        raise UsageError(
            f"No workspace for {lab.name!r} at {workspace}.",
            f"Write your SQL files there (or point --workspace at them), or run the reference: "
            f"`flinklab run {lab.name} --solution`.",
        )
    # With --solution every file is installed first; what is skipped is known only after the install.
    skip_reason, missing = ({}, []) if solution else skip_reasons(lab, steps, workspace)
    if strict and len(skip_reason) == len(steps):  # nothing could run: say which files, before asking for a cluster
        empty = [s.sql_file for s in steps if (workspace / s.sql_file).is_file()
                 and holds_no_statement(workspace / s.sql_file)]
        why = [f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} missing"] if missing else []
        if empty:
            why.append(f"{', '.join(empty)} {'holds' if len(empty) == 1 else 'hold'} no SQL statement (empty or "
                       "only comments)")
        raise UsageError(
            f"Nothing to run in {workspace}: {'; '.join(why)}.",
            f"Write them (see `flinklab labs {lab.name}`), or run the reference: "
            f"`flinklab run {lab.name} --solution`.",
        )
    if strict:
        require_cluster(settings)
    return RunPlan(lab, steps, workspace, solution, skip_reason, missing)
