"""What the grader image's build context takes from this environment: the packages flinklab needs to run (the
closure of its requirements), not the test tools and notebooks installed beside it. The image itself is built and
run under a real engine in tests/docker/test_grader_image.py."""

from __future__ import annotations

from importlib import metadata

import pytest

from flinklab.cluster.grader_image import _requirement_name, runtime_entries


@pytest.fixture(scope="module")
def entries() -> set[str]:
    return runtime_entries([metadata.distribution("flinklab")])


def test_what_flinklab_and_pyflink_import_is_in(entries: set[str]) -> None:
    for top in ("typer", "rich", "httpx", "starlette", "uvicorn", "prompt_toolkit", "pygments", "docker",
                "cryptography", "pyflink", "py4j"):
        assert top in entries, top
    assert any(e.startswith("typer-") and e.endswith(".dist-info") for e in entries)


def test_the_test_tools_and_notebooks_installed_beside_it_are_not(entries: set[str]) -> None:
    installed = {top for dist in ("pytest", "hypothesis", "jupyterlab", "nbclient", "ruff")
                 for top in runtime_entries([metadata.distribution(dist)])}
    assert {"pytest", "hypothesis", "jupyterlab", "nbclient"} <= installed  # the test environment has them
    assert not {"_pytest", "pytest", "hypothesis", "jupyterlab", "nbclient", "ruff"} & entries


@pytest.mark.parametrize("line, name", [
    ("typer>=0.9", "typer"),
    ("apache-flink==2.2.1", "apache-flink"),
    ("pandas>=2; extra == 'notebook'", None),
    ('pytest ; python_version >= "3.8" and extra == "test"', None),
    ('tomli>=1; python_version < "3.11"', "tomli"),
    ("zope.interface [docs] >= 5", "zope.interface"),
])
def test_an_extras_requirement_is_left_out_and_others_are_named(line: str, name: str | None) -> None:
    assert _requirement_name(line) == name
