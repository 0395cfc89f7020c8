"""Every command the docs show runs (tests/helpers/docs_console.py): here the blocks that need no cluster, and the
rules every page's blocks keep. The blocks that need the cluster run in tests/live/test_docs_commands_live.py."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.docs_console import KINDS, PageRun, blocks, learner_env, pages
from helpers.env import free_port

ALL = [block for page in pages() for block in blocks(page)]


def test_the_pages_show_commands_in_console_blocks() -> None:
    """A shell command is shown in a ```console block (so a test runs it), never in a bash/sh fence."""
    fenced = [f"{page.name}:{n}" for page in pages()
              for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
              if re.match(r"\s*```(bash|sh|shell|zsh)\s*$", line)]
    assert not fenced, f"shell fences outside ```console blocks: {fenced}"
    assert len(ALL) >= 10, "the pages lost their console blocks"


@pytest.mark.parametrize("block", ALL, ids=[b.where for b in ALL])
def test_a_block_is_commands_with_a_place_to_run(block) -> None:
    assert block.kind in KINDS
    assert block.commands, f"{block.where}: a console block without a `$ ` command"
    if block.kind == "skip":
        assert len(block.reason) > 10, f"{block.where}: a skipped block says why (<!-- docs: skip REASON -->)"
    if block.kind == "unit":  # the unit tests start no JVM: what starts one is marked live
        starts_java = [c.text for c in block.commands if re.search(r"\bflink-up\b|\bflinklab up\b|\bembedded\b",
                                                                   c.text)]
        assert not starts_java, f"{block.where}: {starts_java} start a JVM; mark the block <!-- docs: live -->"


def test_skipped_blocks_are_few() -> None:
    skipped = [b.where for b in ALL if b.kind == "skip"]
    assert len(skipped) * 4 <= len(ALL), f"more than a quarter of the blocks are not run: {skipped}"


def test_the_parser_reads_continuations_heredocs_prompts_and_output(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- docs: live exit=1 -->\n"
        "```console\n"
        "$ flinklab check windows \\\n  --html x.html\n"
        "$ cat > a.sql <<'EOF'\nSELECT 1;\nEOF\n"
        "$ sql-client.sh -i ddl.sql\nFlink SQL> SHOW TABLES;\nFlink SQL> QUIT;\n"
        "$ echo hi\nhi\n"
        "```\n",
        encoding="utf-8",
    )
    (block,) = blocks(page)
    assert (block.kind, block.exit_code, block.line) == ("live", 1, 2)
    check, heredoc, shell, echo = block.commands
    assert check.text == "flinklab check windows \\\n  --html x.html"
    assert heredoc.text == "cat > a.sql <<'EOF'\nSELECT 1;\nEOF" and heredoc.shown == ()
    assert shell.stdin == "SHOW TABLES;\nQUIT;\n"
    assert echo.shown == ("hi",)


@pytest.fixture(scope="module")
def unit_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every lab's CSVs, as `flink-up` would provision them (no cluster: the generator writes them)."""
    data = tmp_path_factory.mktemp("docs-data")
    flinklab = Path(sys.executable).parent / "flinklab"
    subprocess.run([str(flinklab), "fixtures", "generate", "--out", str(data)], check=True, capture_output=True)
    return data


UNIT_PAGES = [page for page in pages() if any(b.kind == "unit" for b in blocks(page))]


@pytest.mark.parametrize("page", UNIT_PAGES, ids=[p.name for p in UNIT_PAGES])
def test_a_pages_commands_run_without_a_cluster(page: Path, tmp_path: Path, unit_data_dir: Path) -> None:
    """The page's unit blocks, in order, in a scratch home; the ports are free ones, so no command can reach a
    cluster that happens to run on this machine."""
    home = tmp_path / "home"
    home.mkdir()
    env = learner_env(home, data_dir=unit_data_dir, state_dir=tmp_path / "state", cache_dir=tmp_path / "cache",
                      rest_port=free_port(), gateway_port=free_port())
    run = PageRun(home, env, unit_data_dir)
    for block in blocks(page):
        if block.kind == "unit":
            run.run(block, timeout=120)


def test_the_runner_carries_cd_checks_output_and_exit_status(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "```console\n$ mkdir -p ~/w && cd ~/w\n$ pwd\n~/w\n$ echo /opt/lab/fixtures/data\n```\n\n"
        "<!-- docs: exit=3 -->\n```console\n$ exit 3\n```\n\n"
        "```console\n$ echo hi\nbye\n```\n\n"
        "```console\n$ false\n```\n",
        encoding="utf-8",
    )
    carries, exits, wrong_output, fails = blocks(page)
    home = tmp_path / "home"
    home.mkdir()
    env = learner_env(home, data_dir=tmp_path / "data", state_dir=tmp_path / "s", cache_dir=tmp_path / "c",
                      rest_port=1, gateway_port=2)
    run = PageRun(home, env, tmp_path / "data")
    with pytest.raises(AssertionError, match="did not print"):  # `~/w` is shown literally; pwd prints the path
        run.run(carries)
    assert run.cwd == home / "w"
    run.run(exits)
    with pytest.raises(AssertionError, match=r"did not print \['bye'\]"):
        run.run(wrong_output)
    with pytest.raises(AssertionError, match="exited 1, the page expects 0"):
        run.run(fails)
