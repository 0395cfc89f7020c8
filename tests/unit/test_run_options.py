"""`flinklab run`'s options and statuses without a cluster: `--solution --only` installs one step's answer only,
a step expecting an error is judged by the lab's own ExpectedError, a timed-out step says why, the step timeout's
defaults and checks, progress lines while a step runs, and the next-step hint that keeps `--workspace`."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import pytest
from helpers.env import make_settings
from typer.testing import CliRunner

from flinklab.cli.app import app, console
from flinklab.course.registry import get_lab
from flinklab.usecases.run import LabRun, StepRun, expected_errors
from flinklab.usecases.run_timeout import DEFAULT_STEP_TIMEOUT, timed_out_line
from flinklab.usecases.solution import install_solution, solution_files_for

LAB = get_lab("windows")
OUTPUTS = Path(__file__).parent.parent / "data" / "windows" / "outputs"
#: what `flinklab run windows --only hop_reversed` printed with a ddl.sql whose orders table has no WATERMARK
#: (tests/live/test_run_timeout_live.py captures it anew with CAPTURE=1)
NO_WATERMARK = OUTPUTS / "mistakes" / "hop_reversed_no_watermark" / "hop_reversed.out"


@pytest.fixture
def settings(tmp_path: Path):
    return make_settings(tmp_path)


# --- --solution --only ---------------------------------------------------------------------------------------------


def test_only_one_step_installs_its_file_and_ddl_and_no_other_answer(settings):
    cumulate = LAB.step("cumulate")
    assert solution_files_for(LAB, [cumulate]) == ("ddl.sql", "cumulate.sql")
    assert solution_files_for(LAB, list(LAB.steps)) == LAB.solution_files
    workspace = settings.workspace("windows")
    workspace.mkdir(parents=True)
    (workspace / "cumulate.sql").write_text("-- my own attempt\n")
    (workspace / "hop.sql").write_text("-- my hop, not the step asked for\n")

    result = install_solution(settings, LAB, solution_files_for(LAB, [cumulate]))

    assert sorted(p.name for p in result.installed) == ["cumulate.sql", "ddl.sql"]
    # no other step's answer lands in the workspace; the learner's other files are as they were
    assert sorted(p.name for p in workspace.iterdir() if not p.name.startswith("cumulate.sql.bak-")) == \
        ["cumulate.sql", "ddl.sql", "hop.sql"]
    assert (workspace / "hop.sql").read_text() == "-- my hop, not the step asked for\n"
    [(original, backup)] = result.backups  # the learner's own cumulate.sql is kept, never overwritten
    assert original == workspace / "cumulate.sql" and backup.read_text() == "-- my own attempt\n"
    assert (workspace / "cumulate.sql").read_text() != "-- my own attempt\n"


def test_a_run_says_what_it_installed_and_where_your_file_went(settings):
    from flinklab.cli.run_view import install_lines

    workspace = settings.workspace("windows")
    workspace.mkdir(parents=True)
    (workspace / "tumble.sql").write_text("-- mine\n")
    result = install_solution(settings, LAB, solution_files_for(LAB, [LAB.step("tumble")]))
    with console.capture() as captured:
        for line in install_lines(result):
            console.print(line, soft_wrap=True)
    text = captured.get()
    assert text.startswith(f"Installed the reference ddl.sql, tumble.sql into {workspace} (2 written, 0 unchanged).")
    assert re.search(r"your tumble\.sql was moved to tumble\.sql\.bak-\d{8}-\d{6}", text)


# --- a step whose lesson is an error ------------------------------------------------------------------------------


def test_the_expected_error_is_the_labs_own():
    [expected] = expected_errors(LAB, LAB.step("hop_reversed"))
    assert expected.phrase == "integral multiple of slide"
    assert expected_errors(LAB, LAB.step("hop")) == []


def _status_of(workspace: Path, out: Path) -> StepRun:
    """What run_step decides for hop_reversed from a saved output, as after a run whose statement failed."""
    from flinklab.usecases.run import _unexpected_error

    step = LAB.step("hop_reversed")
    shutil.copy(out, workspace / step.out_file)
    run = StepRun(step=step, out_file=workspace / step.out_file, ran=True, ok=True)
    if (wrong := _unexpected_error(LAB, step, workspace)) is not None:
        run.ok, run.error = False, wrong
    return run


def test_another_error_than_the_expected_one_is_not_a_rejection(tmp_path: Path):
    right = _status_of(tmp_path, OUTPUTS / "solution" / "hop_reversed.out")
    assert right.ok and right.status == "ok (rejected)" and right.error == ""
    wrong = _status_of(tmp_path, NO_WATERMARK)
    assert not wrong.ok and wrong.status == "error (not the expected one)"
    assert wrong.error.startswith("expected the [ERROR] '... size must be an integral multiple of slide ...'; "
                                  "found another error: ")
    assert wrong.error.endswith("but is TIMESTAMP(3).") and "\n" not in wrong.error  # one period, one line


def test_statuses():
    step = LAB.step("hop_reversed")
    out = Path("hop_reversed.out")
    assert StepRun(step, out).status == "skipped"
    assert StepRun(step, out, ran=True, statements_ok=True).status == "failed (expected a rejection)"
    assert StepRun(step, out, ran=True).status == "error (not the expected one)"
    assert StepRun(step, out, ran=True, timed_out=True).status == "timed out"
    assert StepRun(LAB.step("hop"), out, ran=True, timed_out=True).status == "timed out"


# --- the step timeout ----------------------------------------------------------------------------------------------


def test_the_cli_default_is_the_runners():
    from flinklab.cli import labs

    assert labs.DEFAULT_STEP_TIMEOUT == DEFAULT_STEP_TIMEOUT


def test_a_timed_out_step_names_an_unbounded_source(tmp_path: Path):
    step = LAB.step("tumble")
    (tmp_path / "ddl.sql").write_text("CREATE TABLE orders (a INT) WITH (\n  'connector' = 'filesystem',\n"
                                      "  'source.monitor-interval' = '1s'\n);\n")
    (tmp_path / "tumble.sql").write_text("SELECT * FROM orders;\n")
    line = timed_out_line(LAB, step, tmp_path, 5, tmp_path / "tumble.out.partial")
    assert line == ("did not finish in 5 s and was cancelled, its Flink job too: ddl.sql sets "
                    "'source.monitor-interval', so its source never ends and a streaming query over it runs until "
                    "cancelled (tumble.out is unchanged; what it printed is in tumble.out.partial; --step-timeout "
                    "gives it longer).")
    (tmp_path / "ddl.sql").write_text("-- 'source.monitor-interval' = '1s' would never end\nCREATE TABLE t (a INT);\n")
    line = timed_out_line(LAB, step, tmp_path, 300, None)
    assert "sets 'source.monitor-interval'" not in line and "a source that never ends" in line
    assert "what it printed" not in line


@pytest.mark.parametrize("value", ["0", "-1", "nan"])
def test_a_step_timeout_must_be_positive(settings, value):
    result = CliRunner().invoke(app, ["run", "windows", "--step-timeout", value],
                                env={"FLINKLAB_WORKSPACE": str(settings.workspace_root)})
    assert result.exit_code == 2, result.output
    assert "give a number of seconds above 0" in result.output and "Traceback" not in result.output


# --- progress while a step runs -----------------------------------------------------------------------------------


def test_a_piped_run_says_which_steps_still_run(settings, capsys):
    from flinklab.cli.run_view import LiveProgress

    steps = [LAB.step("tumble"), LAB.step("hop")]
    assert not console.is_terminal  # pytest captures the output, as a pipe would
    with LiveProgress(settings, steps, 300, still_running_seconds=0.05) as progress:
        progress.step_started(steps[0])
        progress.statement_started(steps[0], 1, "SELECT window_start FROM TUMBLE(...)")
        progress.job_submitted(steps[0], "4f1c0a7e9b2d4c6e8f0a1b2c3d4e5f60")
        time.sleep(0.3)
        while_running = capsys.readouterr().out
        progress.step_finished(StepRun(steps[0], settings.workspace("windows") / "tumble.out", ran=True, ok=True,
                                       seconds=0.3))
        time.sleep(0.2)
        after = capsys.readouterr().out
    assert re.search(r"^still running: tumble \(0 s, #2 SELECT window_start FROM TUMBLE\(\.\.\.\), Flink job "
                     r"4f1c0a7e9b2d4c6e8f0a1b2c3d4e5f60\) \(each is cancelled after 300 s\)$", while_running,
                     re.MULTILINE), while_running
    assert "hop" not in while_running  # never started
    assert "still running" not in after  # nothing runs: nothing said


# --- the next step --------------------------------------------------------------------------------------------------


def test_the_next_step_keeps_the_workspace_and_data_dir(settings):
    from flinklab.cli.run_view import check_command_line, render_run

    assert check_command_line("windows") == "flinklab check windows"
    line = check_command_line("windows", workspace=Path("/tmp/my ws"), data_dir=Path("/d/it's"))
    assert line == "flinklab check windows --workspace '/tmp/my ws' --data-dir '/d/it'\"'\"'s'"
    run = LabRun(lab=LAB, workspace=settings.workspace("windows"), solution=False, report_error="no outputs")
    with console.capture() as captured:
        render_run(run, settings, check_command_line("windows", workspace=Path("/tmp/[b]my ws")))
    assert captured.get().rstrip().endswith("Next: flinklab check windows --workspace '/tmp/[b]my ws'")
