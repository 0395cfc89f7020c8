"""The console scripts import only what the invoked command needs (speed is measured in scripts/bench.py; these
tests assert which modules are loaded, which is what makes the start fast), and the table that says which module
registers each command is complete."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.standin import JSON, serve

from flinklab.cli.app import COMMAND_MODULES, COMMANDS, load_commands

PROJECT = Path(__file__).resolve().parent.parent.parent
# flinklab.cluster.registry is only names (Settings validates a backend name against it); the rest is heavy.
HEAVY = ("flinklab.cluster.base", "flinklab.cluster.local", "flinklab.cluster.docker", "flinklab.flink.rest",
         "flinklab.usecases.cluster", "flinklab.usecases.run", "flinklab.gateway", "docker", "pyflink", "py4j",
         "httpx", "uvicorn", "starlette", "flinklab.cluster.image", "flinklab.pictures")
#: What `sql-client.sh -f` (with or without `-i`) must not have imported when it sends its first request to the
#: gateway: the typer app and its rendering, the shell, the gateway, what only `flink-up` needs (token and TLS
#: material: secrets, subprocess, flinklab.flink.procs) and urllib.request (the REST client is http.client's, as the
#: gateway's client is). Each of them was once on that path.
NOT_BEFORE_THE_GATEWAY = ("typer", "click", "rich", "pygments", "prompt_toolkit", "flinklab.cli.app",
                          "flinklab.sqlclient.shell", "flinklab.gateway", "flinklab.flink.procs", "urllib.request",
                          "secrets", "hmac", "subprocess", "tempfile", "pyflink", "py4j", "httpx", "docker")
#: Run before the entry point: its first request to the gateway ends the process (status 99) with what is loaded
FIRST_GATEWAY_REQUEST = (
    "from flinklab.sqlclient.protocol import GatewayClient\n"
    "def _first_request(*args):\n"
    "    raise SystemExit(99)\n"
    "GatewayClient._send = _first_request\n"
)


def test_every_registered_command_is_in_the_table():
    import importlib

    load_commands(COMMAND_MODULES)
    app = importlib.import_module("flinklab.cli.app").app
    names = {info.name for info in app.registered_commands} | {info.name for info in app.registered_groups}
    assert names == set(COMMANDS), "add the command to flinklab.cli.app.COMMANDS"
    assert set(COMMANDS.values()) <= set(COMMAND_MODULES)


def _modules_after(entry: str, prog: str, args: list[str], tmp_path: Path, *, before: str = "",
                   env: dict[str, str] | None = None) -> tuple[int, set[str]]:
    code = (
        "import json, sys\n"
        f"{before}"
        f"sys.argv = [{prog!r}, *{args!r}]\n"
        f"from flinklab.cli import {entry}\n"
        "try:\n"
        f"    {entry}()\n"
        "except SystemExit as exc:\n"
        "    status = exc.code\n"
        "print(json.dumps([status, sorted(sys.modules)]), file=sys.stderr)\n"
    )
    env = {"PYTHONPATH": str(PROJECT), "HOME": str(tmp_path), "FLINKLAB_WORKSPACE": str(tmp_path / "ws"),
           "FLINKLAB_DATA_DIR": str(tmp_path / "data"), "FLINKLAB_STATE_DIR": str(tmp_path / "state"),
           "PATH": "/usr/bin:/bin", **(env or {})}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    status, modules = json.loads(done.stderr.strip().splitlines()[-1])
    return status, set(modules)


@pytest.mark.parametrize(("entry", "prog", "args", "expected_status"), [
    ("main", "flinklab", ["check", "joins"], 2),  # a one-line error: no workspace
    ("main", "flinklab", ["check", "--help"], 0),
    ("main", "flinklab", ["fixtures", "generate", "--scale", "0"], 2),  # a one-line error: a bad --scale
    ("sql_client_main", "sql-client.sh", ["--help"], 0),
    ("main", "flinklab", ["--help"], 0),  # every command module, none of what the commands run
])
def test_commands_without_a_cluster_import_no_cluster_code(entry, prog, args, expected_status, tmp_path):
    status, modules = _modules_after(entry, prog, args, tmp_path)
    assert status == expected_status
    heavy = sorted(m for m in modules if m.startswith(HEAVY))
    assert not heavy, heavy


def test_flinklab_help_lists_every_command(tmp_path):
    status, modules = _modules_after("main", "flinklab", ["--help"], tmp_path)
    assert status == 0
    assert {f"flinklab.cli.{m}" for m in COMMAND_MODULES} <= modules


def test_sql_client_help_imports_neither_typer_nor_rich(tmp_path):
    status, modules = _modules_after("sql_client_main", "sql-client.sh", ["--help"], tmp_path)
    assert status == 0
    assert not sorted(m for m in modules if m.split(".")[0] in ("typer", "rich", "click")), "--help built the app"
    assert "flinklab.cli.sql_run" not in modules  # nor what a call needs


def test_the_quick_help_lists_what_the_typer_app_parses():
    """sql-client.sh --help (sql_options.quick_help) names every option the typer app accepts and shows, with its
    flags, metavar and help, the mode argument and the summary; no hidden option."""
    import typer.main

    from flinklab.cli.sql import sql_client_app
    from flinklab.cli.sql_options import quick_help

    command = typer.main.get_command(sql_client_app)
    text = quick_help()
    lines = text.splitlines()
    assert lines[0] == "Usage: sql-client.sh [OPTIONS] [gateway|embedded]"
    assert command.help in text
    shown = [p for p in command.params if not getattr(p, "hidden", False)]
    for param in shown:
        if param.param_type_name == "argument":
            assert any(line.split() == [param.metavar, *param.help.split()] for line in lines), param.name
            continue
        left = f"{', '.join(param.opts)} {param.metavar}"
        assert any(line.strip().startswith(left) and line.strip().endswith(param.help) for line in lines), left
    hidden = [opt for p in command.params if getattr(p, "hidden", False) for opt in p.opts]
    assert hidden and not [opt for opt in hidden if f" {opt}" in text or f"{opt}," in text]
    options = [line for line in lines if line.startswith("  -")]
    assert len(options) == len([p for p in shown if p.param_type_name == "option"]) + 1  # and --help


@pytest.fixture
def stand_in_cluster() -> Iterator[int]:
    """A cluster's REST endpoint as far as the client's cluster check asks it (GET /overview); its port."""
    with serve(lambda request: (200, JSON, b'{"taskmanagers": 1}')) as url:
        yield int(url.rsplit(":", 1)[1])


@pytest.mark.parametrize("with_init", [True, False])
def test_sql_client_f_reaches_the_gateway_with_only_what_it_needs(with_init: bool, stand_in_cluster: int,
                                                                  tmp_path: Path) -> None:
    """`sql-client.sh [-i ddl.sql] -f q.sql` up to its first request to the gateway (the cluster checked first, as
    it is): what is loaded then is what every call's start costs."""
    (tmp_path / "ddl.sql").write_text("CREATE TABLE t (a INT) WITH ('connector' = 'datagen');\n")
    (tmp_path / "q.sql").write_text("SELECT 1;\n")
    args = [*(["-i", str(tmp_path / "ddl.sql")] if with_init else []), "-f", str(tmp_path / "q.sql")]
    status, modules = _modules_after("sql_client_main", "sql-client.sh", args, tmp_path, before=FIRST_GATEWAY_REQUEST,
                                     env={"FLINKLAB_REST_PORT": str(stand_in_cluster), "PYTHONDONTWRITEBYTECODE": "1"})
    assert status == 99, "it did not get as far as the gateway"
    assert {"flinklab.cli.sql_run", "flinklab.sqlclient.client", "flinklab.flink.rest"} <= modules
    loaded = sorted(m for m in modules if any(m == name or m.startswith(f"{name}.") for name in NOT_BEFORE_THE_GATEWAY))
    assert not loaded, loaded
    # and each of flinklab's is compiled (scripts/install.sh: an editable install is not, and where
    # PYTHONDONTWRITEBYTECODE is set, as here, every call compiled them again: 40 ms of its 90 ms of imports)
    uncompiled = [m for m in sorted(modules) if m.split(".")[0] == "flinklab"
                  and not _compiled(Path(importlib.util.find_spec(m).origin))]
    assert not uncompiled, f"no current .pyc (install.sh runs python -m compileall flinklab): {uncompiled}"


def _compiled(source: Path) -> bool:
    """A .pyc of `source` that Python uses as it is: made from this text (its header's source mtime and size)."""
    cached = Path(importlib.util.cache_from_source(str(source)))
    if not cached.is_file():
        return False
    header = cached.read_bytes()[:16]
    stat = source.stat()
    return (int.from_bytes(header[8:12], "little") == int(stat.st_mtime) & 0xFFFFFFFF
            and int.from_bytes(header[12:16], "little") == stat.st_size & 0xFFFFFFFF)
