"""The commands the docs show, read from their ```console blocks and run as a learner would (CONTRIBUTING.md,
"Docs that run").

A block is a fence opened with ```console. In it, a line starting with `$ ` is a command (a line ending with `\\`
continues it; a here-document's lines up to its terminator belong to it); a line starting with `Flink SQL> ` is
typed at the prompt of the command before it (its stdin); any other line is output the page shows, and each such
line must appear in what the command printed (`...` stands for lines left out).

The HTML comment on the line before the fence says where the block runs:

- none: in the unit tests, with no cluster (and no JVM);
- `<!-- docs: live -->`: in the live tests, on the session's cluster;
- `<!-- docs: skip REASON -->`: nowhere, for the REASON given (a command that would touch what a test must not);
- `exit=N` after `live` or nothing: every command of the block exits with N instead of 0.

A block runs in one bash, so a variable one command sets is there for the next. A page's blocks of one kind run
top to bottom in one scratch home: a `cd` carries over to the next block, and so do the files commands write (a
live block cannot build on a unit block: they run in different tests). `~` is
that home, and the defaults the lab texts use stand for the test's own: the data dir `/opt/lab/fixtures/data`, the
REST port `127.0.0.1:8081` and the gateway's `127.0.0.1:8083`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: the lab texts' data dir, replaced in commands by the data dir of the test's settings
LAB_DATA_DIR = "/opt/lab/fixtures/data"
PROMPT = "Flink SQL> "
KINDS = ("unit", "live", "skip")
_MARK = re.compile(r"<!--\s*docs:\s*(live|skip)?\s*(exit=(\d+))?\s*(.*?)\s*-->")
_FENCE = re.compile(r"^(\s*)```(\S*)")
_HEREDOC = re.compile(r"<<-?\s*'?\"?([A-Za-z_]+)'?\"?")


@dataclass(frozen=True)
class Command:
    """One `$ ` command of a block: what bash runs, what is typed at its prompt, and the output the page shows."""

    text: str
    line: int
    stdin: str | None = None
    shown: tuple[str, ...] = ()


@dataclass(frozen=True)
class Block:
    """One ```console block of a page."""

    page: Path
    line: int
    kind: str
    reason: str = ""
    exit_code: int = 0
    commands: tuple[Command, ...] = field(default_factory=tuple)

    @property
    def where(self) -> str:
        return f"{_shown_path(self.page)}:{self.line}"


def _shown_path(page: Path) -> str:
    return str(page.relative_to(ROOT)) if page.is_relative_to(ROOT) else str(page)


def pages() -> list[Path]:
    """Every page whose commands run: README.md and the docs site's pages."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def blocks(page: Path) -> list[Block]:
    """The console blocks of `page`, in order."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    previous = ""
    i = 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if not fence:
            if lines[i].strip():
                previous = lines[i]
            i += 1
            continue
        indent, lang = len(fence.group(1)), fence.group(2)
        end = i + 1
        while end < len(lines) and not lines[end].strip().startswith("```"):
            end += 1
        if lang == "console":
            mark = _MARK.search(previous) if previous.strip().startswith("<!--") else None
            kind = (mark.group(1) or "unit") if mark else "unit"
            found.append(Block(
                page=page, line=i + 1, kind=kind, reason=mark.group(4) if mark else "",
                exit_code=int(mark.group(3)) if mark and mark.group(3) else 0,
                commands=tuple(_commands([line[indent:] for line in lines[i + 1:end]], i + 2)),
            ))
        previous = ""
        i = end + 1
    return found


def _commands(lines: list[str], first_line: int) -> list[Command]:
    commands: list[Command] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("$ "):
            if commands and line.startswith(PROMPT):
                last = commands[-1]
                commands[-1] = Command(last.text, last.line, (last.stdin or "") + line[len(PROMPT):] + "\n",
                                       last.shown)
            elif commands and line.strip():
                last = commands[-1]
                commands[-1] = Command(last.text, last.line, last.stdin, (*last.shown, line.rstrip()))
            i += 1
            continue
        start = i
        text = [line[2:]]
        while text[-1].endswith("\\") and i + 1 < len(lines):
            i += 1
            text.append(lines[i])
        heredoc = _HEREDOC.search(" ".join(text))
        if heredoc:
            while i + 1 < len(lines):
                i += 1
                text.append(lines[i])
                if lines[i].strip() == heredoc.group(1):
                    break
        commands.append(Command("\n".join(text), first_line + start))
        i += 1
    return commands


@dataclass
class PageRun:
    """A page's commands run in order in one scratch home, with `env` (the test's dirs and ports)."""

    home: Path
    env: dict[str, str]
    data_dir: Path
    cwd: Path = field(init=False)

    def __post_init__(self) -> None:
        # the page starts where a learner does: in a checkout (the scratch dir links to the real one's parts)
        start = self.home / "flinklab"
        start.mkdir(parents=True, exist_ok=True)
        for part in ROOT.iterdir():
            if part.name not in (".git",) and not (start / part.name).exists():
                (start / part.name).symlink_to(part)
        self.cwd = start

    def run(self, block: Block, timeout: float = 600.0) -> None:
        """Run the commands of `block` in one bash (so a variable set by one is there for the next), each with its
        exit status and output checked; AssertionError naming the page line of the first that fails."""
        cwd_file = self.home / ".docs-cwd"
        parts = ["exec 2>&1", "set -o pipefail"]
        for command in block.commands:
            text = self._ours(command.text)
            if command.stdin is not None:
                parts.append(f"{{ {text}\n}} <<'{_STDIN_END}'\n{self._ours(command.stdin)}{_STDIN_END}")
            else:
                parts.append(f"{{ {text}\n}} </dev/null")
            parts.append(f"printf '\\n{_RC}%s@@\\n' $?; pwd > '{cwd_file}'")
        done = subprocess.run(["bash", "-c", "\n".join(parts) + "\n"], cwd=self.cwd, env=self.env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
        if cwd_file.exists():
            self.cwd = Path(cwd_file.read_text().strip())
        pieces = re.split(rf"\n?{_RC}(\d+)@@\n", done.stdout)
        outputs, codes = pieces[0::2], [int(code) for code in pieces[1::2]]
        for n, command in enumerate(block.commands):
            where = f"{_shown_path(block.page)}:{command.line}"
            printed = outputs[n] if n < len(outputs) else ""
            code = codes[n] if n < len(codes) else (done.returncode if n == len(codes) else None)
            assert code is not None, f"{where}: `{command.text}` did not run (the shell ended before it)"
            assert code == block.exit_code, (
                f"{where}: `{command.text}` exited {code}, the page expects {block.exit_code}:\n{printed[-3000:]}")
            missing = [line for line in command.shown if line.strip() != "..." and line.strip() not in printed]
            assert not missing, f"{where}: `{command.text}` did not print {missing!r}:\n{printed[-3000:]}"

    def _ours(self, text: str) -> str:
        """`text` with the lab texts' defaults replaced by this run's data dir and ports."""
        return (text.replace(LAB_DATA_DIR, str(self.data_dir))
                .replace("127.0.0.1:8081", f"127.0.0.1:{self.env['FLINKLAB_REST_PORT']}")
                .replace("127.0.0.1:8083", f"127.0.0.1:{self.env['FLINKLAB_GATEWAY_PORT']}"))


#: what ends a command's typed input, and marks a command's exit status in the block's output
_STDIN_END = "__DOCS_STDIN_END__"
_RC = "@@docs-rc:"


def learner_env(home: Path, *, data_dir: Path, state_dir: Path, cache_dir: Path, rest_port: int,
                gateway_port: int) -> dict[str, str]:
    """A learner's environment in a scratch `home` (workspaces under ~/flink) with the test's dirs and ports."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FLINKLAB_", "XDG_"))}
    env.update(
        HOME=str(home),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        FLINKLAB_WORKSPACE=str(home / "flink"),
        FLINKLAB_DATA_DIR=str(data_dir),
        FLINKLAB_STATE_DIR=str(state_dir),
        FLINKLAB_CACHE_DIR=str(cache_dir),
        FLINKLAB_REST_PORT=str(rest_port),
        FLINKLAB_GATEWAY_PORT=str(gateway_port),
        FLINKLAB_BACKEND="local",
    )
    return env
