"""The docs say what the code does: the command reference is the commands' `--help` of today, "Writing a lab"
names exactly what `flinklab new-lab` writes, and the README stays a five-minute read that links only to what
exists."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def test_the_cli_reference_is_the_commands_help_of_today() -> None:
    """docs/cli.md is what scripts/cli_reference.py writes now; a changed or added command's --help fails this."""
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "cli_reference.py"), "--check"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_cli_reference_has_every_command_flinklab_help_lists() -> None:
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    listed = subprocess.run([str(BIN / "flinklab"), "--help"], capture_output=True, text=True,
                            env={"TYPER_USE_RICH": "0", "PATH": str(BIN), "COLUMNS": "80"}).stdout
    names = re.findall(r"^  (\S+)  ", listed.split("Commands:")[1], re.M)
    assert names and all(f"## flinklab {name}\n" in page for name in names), names


def _public_names(source: str) -> set[str]:
    names: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {name for name in names if not name.startswith("_")}


def _lab_call(source: str) -> dict[str, str]:
    """The keywords of the `Lab(...)` call in `source`, each with its value's source."""
    calls = [node for node in ast.walk(ast.parse(source))
             if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Lab"]
    assert len(calls) == 1, "one Lab(...) call"
    return {kw.arg: ast.unparse(kw.value) for kw in calls[0].keywords}


def test_writing_a_lab_names_what_the_skeleton_writes(tmp_path: Path) -> None:
    """The page's table of files and names, and its Lab(...) call, against what `flinklab new-lab topn` writes
    today (read from its output, so a change to the skeleton fails here until the page follows)."""
    made = subprocess.run([str(BIN / "flinklab"), "new-lab", "topn", "--dir", str(tmp_path)], capture_output=True,
                          text=True, timeout=120)
    assert made.returncode == 0, made.stdout + made.stderr
    root = tmp_path / "flinklab-topn"
    written = {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}

    page = (ROOT / "docs" / "writing-a-lab.md").read_text(encoding="utf-8")
    table = page.split("<!-- skeleton-table -->")[1].split("<!-- /skeleton-table -->")[0]
    rows = [line.split("|")[1:-1] for line in table.strip().splitlines()[2:]]
    on_page = {re.search(r"`([^`]+)`", file).group(1): set(re.findall(r"`(\w+)`", defines))
               for file, _what, defines in rows}
    assert set(on_page) == written, f"files: the page {sorted(set(on_page) ^ written)} differ from the skeleton"
    for file, names in on_page.items():
        if file.endswith(".py"):
            assert names == _public_names((root / file).read_text()), f"{file}: the page names {sorted(names)}"

    snippet = next(block for block in re.findall(r"```python\n(.*?)```", page, re.S) if "Lab(" in block)
    skeleton = _lab_call((root / "flinklab_topn" / "__init__.py").read_text())
    shown = _lab_call(snippet)
    assert shown == skeleton, f"the page's Lab(...) {shown} is not the skeleton's {skeleton}"
    for name in ("REPORT_FIELDS", "checks"):  # the names issue 32 found wrong on the old page
        assert name in skeleton.values()


def test_the_readme_is_a_five_minute_read_that_links_only_to_what_exists() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 150
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme)
    local = [link for link in links if not re.match(r"https?://", link)]
    assert local and all((ROOT / link).exists() for link in local), [x for x in local if not (ROOT / x).exists()]
    for needed in ("scripts/demo.sh", "scripts/test.sh", "ddl.sql", "flinklab run", "flinklab check"):
        assert needed in readme


def test_every_docs_page_is_in_the_site_and_named_by_the_readme() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f": {page.name}" in nav, f"{page.name} is not in mkdocs.yml's nav"
        if page.name != "index.md":
            assert f"(docs/{page.name})" in readme, f"README.md does not link docs/{page.name}"


def test_no_page_points_to_a_file_that_does_not_exist() -> None:
    """Names like DESIGN.md, scripts/x.py or deploy/... in the top-level files and the docs exist."""
    texts = [ROOT / name for name in ("README.md", "DESIGN.md", "CONTRIBUTING.md", "CHANGELOG.md")]
    texts += sorted((ROOT / "docs").glob("*.md"))
    missing = []
    for text in texts:
        for name in re.findall(r"`((?:scripts|deploy|docs)/[\w./-]+\.\w+|[A-Z]+\.md)`", text.read_text()):
            if not (ROOT / name).exists():
                missing.append(f"{text.name}: {name}")
    assert not missing, missing


def _mkdocs_build(root: Path, site: Path) -> subprocess.CompletedProcess:
    # not --quiet: mkdocs then drops the warnings that --strict turns into a failure
    return subprocess.run([str(BIN / "mkdocs"), "build", "--strict", "--site-dir", str(site)], cwd=root,
                          capture_output=True, text=True, timeout=300, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})


def test_the_docs_site_builds_strict_and_a_broken_link_fails_it(tmp_path: Path) -> None:
    built = _mkdocs_build(ROOT, tmp_path / "site")
    assert built.returncode == 0, built.stderr[-3000:]

    copy = tmp_path / "copy"
    shutil.copytree(ROOT / "docs", copy / "docs")
    shutil.copy(ROOT / "mkdocs.yml", copy / "mkdocs.yml")
    with (copy / "docs" / "labs.md").open("a", encoding="utf-8") as page:
        page.write("\nSee [a page that is not there](not-there.md).\n")
    broken = _mkdocs_build(copy, tmp_path / "site2")
    assert broken.returncode != 0 and "not-there.md" in broken.stderr
