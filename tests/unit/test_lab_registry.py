"""Labs are plug-ins found through the entry-point group `flinklab.labs`: the built-in ones register like any other,
and a plug-in that cannot load is one line naming it while the other labs keep working."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from flinklab.course.registry import GROUP, available_labs, get_lab
from flinklab.settings import Settings
from flinklab.usecases.provision import lab_data_files


def _distribution(root: Path, name: str, entry_points: dict[str, str], modules: dict[str, str]) -> Path:
    """A real installed distribution (a dist-info folder on a sys.path entry) registering `entry_points`."""
    info = root / f"{name}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    lines = "".join(f"{k} = {v}\n" for k, v in entry_points.items())
    (info / "entry_points.txt").write_text(f"[{GROUP}]\n{lines}")
    for module, text in modules.items():
        (root / f"{module}.py").write_text(text)
    return root


def _flinklab(args: list[str], tmp_path: Path, extra_path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(extra_path), "HOME": str(tmp_path), "COLUMNS": "200",
           "FLINKLAB_STATE_DIR": str(tmp_path / "state"), "FLINKLAB_WORKSPACE": str(tmp_path / "ws")}
    return subprocess.run([sys.executable, "-c", "from flinklab.cli import main; main()", *args], env=env,
                          capture_output=True, text=True, timeout=120)


def test_the_built_in_labs_are_entry_points():
    assert {"joins", "windows"} <= set(available_labs())
    assert get_lab("joins").package == "flinklab.labs.joins"
    assert get_lab("windows").solution_dir.is_dir()


def test_lab_data_files_are_every_labs_committed_csvs(tmp_settings: Settings):
    files = lab_data_files()
    names = [p.name for p in files]
    assert {"joins_users.csv", "joins_orders.csv", "joins_shipments.csv", "joins_rates.csv",
            "windows_orders.csv"} <= set(names)
    assert names == sorted(names) and all(p.is_file() for p in files)


def test_a_bad_plugin_is_one_line_and_the_others_still_work(tmp_path: Path):
    points = {"broken": "bad_lab_broken:LAB", "notalab": "bad_lab_wrong:LAB", "misnamed": "joins_alias:LAB"}
    site = _distribution(tmp_path / "site", "bad-labs", points,
                         {"bad_lab_broken": "import no_such_module_anywhere\n", "bad_lab_wrong": "LAB = 42\n",
                          "joins_alias": "from flinklab.labs.joins import LAB\n"})
    listed = _flinklab(["labs"], tmp_path, site)
    assert listed.returncode == 0, listed.stderr
    assert "joins: Three joins" in listed.stdout and "windows: Window TVFs" in listed.stdout
    errors = listed.stderr.strip().splitlines()
    assert len(errors) == 3, listed.stderr
    assert "Traceback" not in listed.stderr
    assert any("'broken'" in e and "ModuleNotFoundError" in e and "no_such_module_anywhere" in e for e in errors)
    assert any("'notalab'" in e and "is a int, not a flinklab Lab" in e for e in errors)
    assert any("'misnamed'" in e and "is the lab 'joins'" in e for e in errors)

    checked = _flinklab(["check", "broken"], tmp_path, site)
    assert checked.returncode == 2
    assert checked.stderr.count("\n") == 1 and "lab plug-in 'broken'" in checked.stderr, checked.stderr


def test_labs_lab_prints_the_guide_step_by_step(tmp_path: Path):
    from flinklab.course.guide import guide_sections

    for name in ("joins", "windows"):
        lab = get_lab(name)
        headings = [h for h, _ in guide_sections(lab)]
        for n, step in enumerate(lab.steps, 1):  # every step has its section, in the lab's order
            assert any(h.startswith(f"Step {n}: {step.id} ") for h in headings), (name, step.id, headings)
        shown = _flinklab(["labs", name], tmp_path, tmp_path)
        assert shown.returncode == 0, shown.stderr
        last = f"Step {len(lab.steps)}: {lab.steps[-1].id}"
        assert f"Step 1: {lab.steps[0].id}" in shown.stdout and last in shown.stdout


def test_a_guide_shows_the_learners_own_paths_and_the_clients_real_exit_status(tmp_path: Path):
    """`flinklab labs LAB` prints the guide with this machine's workspace, data dir and Web UI, where the guide file
    writes the lab texts' defaults; and it states what the learner's guide (docs/learner.md) states about the
    client's exit status."""
    from flinklab.course.guide import guide_sections
    from flinklab.settings import Settings

    learner = (Path(__file__).resolve().parent.parent.parent / "docs" / "learner.md").read_text(encoding="utf-8")
    assert "it exits 1 when a statement fails (Flink's exits 0" in learner
    settings = Settings.from_env({"HOME": str(tmp_path)}, workspace_root=tmp_path / "my ws", data_dir=tmp_path / "d",
                                 rest_port=18555)
    for name in ("joins", "windows"):
        lab = get_lab(name)
        raw = (lab.root / lab.guide_file).read_text(encoding="utf-8")
        assert "/opt/lab/fixtures/data" in raw and "~/flink" in raw  # the lab texts' defaults, in the file
        text = "\n".join(body for _, body in guide_sections(lab, settings))
        for default in ("/opt/lab/fixtures/data", "/root/flink", "~/flink", "127.0.0.1:8081"):
            assert default not in text, (name, default)
        assert f"`{tmp_path / 'my ws' / name}/`" in text and f"`{tmp_path / 'd'}/`" in text
        assert "http://127.0.0.1:18555" in text
        assert "exits with 1 (Flink's own client exits 0)" in text and "exits with 0" not in text
    joins = "\n".join(body for _, body in guide_sections(get_lab("joins"), settings))
    assert f"'file://{tmp_path / 'my ws' / 'joins'}/regular-plan.json'" in joins  # COMPILE PLAN's target
    shown = _flinklab(["labs", "windows", "--data-dir", str(tmp_path / "elsewhere")], tmp_path, tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert f"'{tmp_path / 'elsewhere'}/windows_orders.csv'" in shown.stdout  # ddl.sql's path, as this learner's
    assert f"workspace: {tmp_path / 'ws' / 'windows'};" in shown.stdout  # FLINKLAB_WORKSPACE
    assert "/root/flink" not in shown.stdout and "/opt/lab/fixtures/data" not in shown.stdout


def test_labs_says_each_step_is_a_new_session_and_who_writes_the_plans(tmp_path: Path):
    shown = _flinklab(["labs"], tmp_path, tmp_path)
    assert shown.returncode == 0, shown.stderr
    text = " ".join(shown.stdout.split())
    assert "a new session: what several steps use (tables, views, SET) belongs in ddl.sql" in text
    assert "regular-plan.json, interval-plan.json, temporal-plan.json: written by the plans step (plans.sql)" in text


def test_the_workspaces_flink_up_lists_follow_the_course(tmp_settings) -> None:
    """flink-up's "Next" line names the first workspace: the course's first lab (windows, which joins comes after),
    then flinklab's own labs before a plug-in's (the test venv has the dedup plug-in, which sorts first by name)."""
    from flinklab.course.registry import available_labs, built_in
    from flinklab.usecases.provision import lab_workspaces

    assert "dedup" in available_labs() and not built_in("dedup")
    assert built_in("joins") and built_in("windows")
    assert get_lab("joins").after == ("windows",)
    names = [w.lab.name for w in lab_workspaces(tmp_settings)]
    assert names[:2] == ["windows", "joins"] and "dedup" in names[2:]


def test_the_labs_are_scanned_once_until_an_install_changes_sys_path(tmp_path: Path, monkeypatch) -> None:
    """Listing the labs reads every installed distribution's metadata: one scan serves a process until a dir on
    sys.path changes (a lab installed there while a notebook's kernel runs is found by the next call)."""
    from importlib import metadata


    scans = []
    real = metadata.entry_points

    def counting(**kwargs):
        scans.append(kwargs)
        return real(**kwargs)

    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(metadata, "entry_points", counting)
    for _ in range(5):
        assert "late" not in available_labs()
    assert len(scans) == 1
    _distribution(site, "late-lab", {"late": "late_lab:LAB"}, {"late_lab": "from flinklab.labs.joins import LAB\n"})
    later = os.stat(site).st_mtime_ns + 1_000_000_000  # as a pip install seconds later leaves it (the clock is coarse)
    os.utime(site, ns=(later, later))
    assert "late" in available_labs() and len(scans) == 2
    assert "late" in available_labs() and len(scans) == 2
