"""Flink's own SQL-client golden files replayed through our `sql-client.sh -f` on the session's live cluster.

One test per (file, statement), id `file.q:NNN-first-words`. Each file runs as few `sql-client.sh` invocations as
it can (a JVM start costs ~10 s): the whole file in one script, and when our client stops at a failing statement
(it exits 1 where the real client goes on), the rest in a new invocation whose script first re-runs the session
setup so far (:class:`qfiles.Replay`). The runner's defaults are passed as `-D` (qfiles.HARNESS_DEFINES); the
`$VAR_...` placeholders get fresh temp dirs per file, the cluster's port and address, and the UDF jar (LowerUDF).

Which cases are left out and which differ today is listed in ONE place, tests/data/q/skips.yaml: `xfail` entries
are strict (a fixed case fails the run until its entry goes); an `intermittent` error (a bug that hits a random
case in some runs) turns the case it hits into an expected failure, reported as such.
Set FLINKLAB_Q_REPORT=/path/report.json to also get every case's expected block, our block and the diff.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest
from helpers.env import settings_env
from helpers.javac import compile_java, find_javac
from helpers.qfiles import (
    HARNESS_DEFINES,
    FileRules,
    QCase,
    Replay,
    compare,
    expected_block,
    is_error_block,
    load_intermittent,
    load_q,
    load_rules,
    q_files,
    script_text,
    split_output,
)

from flinklab.settings import Settings

REPO = Path(__file__).resolve().parent.parent.parent
RULES = load_rules()
INTERMITTENT = load_intermittent()


@dataclass
class FileRun:
    """What our client printed for each case of one file."""

    cases: list[QCase]
    blocks: dict[int, str] = field(default_factory=dict)
    not_reached: dict[int, str] = field(default_factory=dict)  #: case index -> why the harness has no block
    invocations: int = 0
    logs: list[str] = field(default_factory=list)


def sql_client_env(settings: Settings) -> dict[str, str]:
    """The console script on this cluster, importing the flinklab of this checkout."""
    env = settings_env(settings)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
    return env


#: The UDF CliClientITCase compiles into its jar (Flink's UserDefinedFunctions: GENERATED_LOWER_UDF_CLASS), which
#: set.q registers (`create function func1 as 'LowerUDF'`) and calls in a query: a scalar function in the default
#: package that lower-cases a string
LOWER_UDF = """public class LowerUDF extends org.apache.flink.table.functions.ScalarFunction {
    public String eval(String str) {
        return str.toLowerCase();
    }
}
"""


@functools.cache
def lower_udf_class() -> bytes:
    """LOWER_UDF's class file, compiled once per test run by the JDK's javac beside the java that runs Flink (or on
    PATH), against PyFlink's jars."""
    javac = find_javac()
    assert javac, "the replay compiles set.q's LowerUDF with javac: install a JDK (Java 17's javac)"
    with tempfile.TemporaryDirectory(prefix="lower-udf-") as work:
        source = Path(work) / "LowerUDF.java"
        source.write_text(LOWER_UDF, encoding="utf-8")
        compiled = compile_java(javac, source, Path(work))
        assert compiled.returncode == 0, compiled.stdout + compiled.stderr
        return (Path(work) / "LowerUDF.class").read_bytes()


def udf_jar(directory: Path) -> Path:
    """CliClientITCase's UDF jar, named as it names it, holding `LowerUDF` (lower_udf_class): set.q's ADD JAR, SHOW
    JARS and REMOVE JAR list it, and its query runs the function on the cluster, which gets the jar with the job."""
    directory.mkdir(parents=True, exist_ok=True)
    jar = directory / "test-classloader-udf.jar"
    with zipfile.ZipFile(jar, "w") as zf:
        zf.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
        zf.writestr("LowerUDF.class", lower_udf_class())
    return jar


def harness_variables(settings: Settings, workdir: Path) -> dict[str, str]:
    """CliClientITCase's placeholders, with values of this run (fresh dirs per file, as its @BeforeEach)."""
    jar = udf_jar(workdir / "test-jar")
    padding = len(str(jar)) - len("jars")  # the SHOW JARS tableau is as wide as the path (see set.q)
    variables = {
        "$VAR_UDF_JAR_PATH": str(jar),
        "$VAR_UDF_JAR_PATH_DASH": "-" * padding,
        "$VAR_UDF_JAR_PATH_SPACE": " " * padding,
        "$VAR_PIPELINE_JARS_URL": jar.as_uri(),
        "$VAR_REST_PORT": str(settings.rest_port),
        "$VAR_JOBMANAGER_RPC_ADDRESS": settings.bind_host,
    }
    for name in ("STREAMING_PATH", "STREAMING_PATH2", "BATCH_PATH", "BATCH_PATH2"):
        path = workdir / name.lower()
        path.mkdir(parents=True, exist_ok=True)
        variables[f"$VAR_{name}"] = str(path)
    return variables


def run_script(settings: Settings, script: Path) -> subprocess.CompletedProcess[str]:
    defines = [arg for key, value in HARNESS_DEFINES.items() for arg in ("-D", f"{key}={value}")]
    return subprocess.run(
        check=False,
        args=[str(Path(sys.executable).with_name("sql-client.sh")), "-f", str(script), *defines],
        env=sql_client_env(settings),
        capture_output=True,
        text=True,
        timeout=900,
    )


def replay_file(name: str, settings: Settings, workdir: Path) -> FileRun:
    """Run every non-skipped case of `name`, in as few invocations as our stop-at-first-error client allows."""
    rules = RULES.get(name, FileRules())
    run = FileRun(cases=load_q(name, harness_variables(settings, workdir)))
    todo = [c for c in run.cases if rules.marks.get(c.index) is None or rules.marks[c.index].kind != "skip"]
    replay = Replay()
    while todo:
        prefix = list(replay.statements)
        statements = prefix + [c.statement for c in todo]
        script = workdir / f"chunk{run.invocations:02d}.sql"
        script.write_text(script_text(statements), encoding="utf-8")
        proc = run_script(settings, script)
        run.invocations += 1
        run.logs.append(f"--- {script.name} (exit {proc.returncode})\n{proc.stdout}{proc.stderr}")
        blocks = split_output(proc.stdout, statements)
        replayed, ours = blocks[: len(prefix)], blocks[len(prefix):]
        if len(replayed) < len(prefix) or any(is_error_block(b) for b in replayed):
            why = f"re-running the session setup failed in {script.name}: {proc.stdout[-800:]}{proc.stderr[-400:]}"
            run.not_reached.update({c.index: why for c in todo})
            break
        for case, block in zip(todo, ours):
            run.blocks[case.index] = block
            replay.record(case.statement, succeeded=not is_error_block(block))
        if proc.returncode == 0 and len(ours) == len(todo):
            break
        if not ours:
            why = f"sql-client.sh exit {proc.returncode} before the first statement: {proc.stderr[-800:]}"
            run.not_reached.update({c.index: why for c in todo})
            break
        todo = todo[len(ours):]
    return run


@pytest.fixture(scope="session")
def q_run(flink_cluster: Settings, tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], FileRun]:
    """Replays a file once per test session (on first use) and hands out its FileRun."""
    runs: dict[str, FileRun] = {}

    def get(name: str) -> FileRun:
        if name not in runs:
            runs[name] = replay_file(name, flink_cluster, tmp_path_factory.mktemp(name.replace(".", "_")))
            (tmp_path_factory.getbasetemp() / f"{name}.log").write_text("\n".join(runs[name].logs))
        return runs[name]

    yield get
    report = os.environ.get("FLINKLAB_Q_REPORT")
    if report:
        Path(report).write_text(json.dumps(_report(runs), indent=1))


def _report(runs: dict[str, FileRun]) -> dict[str, object]:
    out: dict[str, object] = {}
    for name, run in runs.items():
        rules = RULES.get(name, FileRules())
        for case in run.cases:
            mark = rules.marks.get(case.index)
            entry: dict[str, object] = {"line": case.line, "sql": case.statement, "mark": mark.kind if mark else None}
            if case.index in run.blocks:
                expected = expected_block(case, rules)
                entry.update(expected=expected, actual=run.blocks[case.index],
                             diff=compare(expected, run.blocks[case.index]))
            elif case.index in run.not_reached:
                entry["not_reached"] = run.not_reached[case.index]
            out[case.case_id] = entry
        out[f"{name}:invocations"] = run.invocations
    return out


def _params() -> list[object]:
    params = []
    for name in q_files():
        rules = RULES.get(name, FileRules())
        for case in load_q(name):
            mark = rules.marks.get(case.index)
            marks = [pytest.mark.live]
            if mark is not None and mark.kind == "skip":
                marks.append(pytest.mark.skip(reason=mark.reason))
            elif mark is not None:
                marks.append(pytest.mark.xfail(strict=True, reason=mark.reason))
            params.append(pytest.param(name, case.index, id=case.case_id, marks=marks))
    return params


@pytest.mark.live
@pytest.mark.parametrize(("name", "index"), _params())
def test_q_case(q_run: Callable[[str], FileRun], name: str, index: int) -> None:
    run = q_run(name)
    case = run.cases[index]
    if index not in run.blocks:
        pytest.fail(f"{case.case_id} (line {case.line}) not run: {run.not_reached.get(index, 'no output block')}")
    diff = compare(expected_block(case, RULES.get(name, FileRules())), run.blocks[index])
    known = next((bug for bug in INTERMITTENT if diff is not None and bug.error in run.blocks[index]), None)
    if known is not None:
        pytest.xfail(f"intermittent {known.error!r} hit this case: {known.reason}")
    assert diff is None, f"{case.case_id} (line {case.line}) differs from Flink's golden block:\n{diff}"
