"""deploy/kubernetes/ offline: the manifests parse, and their image, Flink version, data dir, REST port and Flink
options are the ones flinklab's code uses. They are not applied to a Kubernetes cluster anywhere in this project."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from flinklab.flink.options import BEHAVIOUR_OPTIONS, shape_options
from flinklab.settings import DEFAULT_DATA_DIR, DEFAULT_REST_PORT, Settings
from flinklab.version import DEFAULT_FLINK_IMAGE, FLINK_MINOR

PROJECT_ROOT = Path(__file__).resolve().parent.parent  # the checkout

DEPLOY = PROJECT_ROOT / "deploy" / "kubernetes"


@pytest.fixture(scope="module")
def manifests() -> dict[str, dict]:
    """kind/name -> document, over every manifest in deploy/kubernetes/."""
    found: dict[str, dict] = {}
    for path in sorted(DEPLOY.glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            found[f"{doc['kind']}/{doc['metadata']['name']}"] = doc
    return found


def _main_container(pod_spec: dict) -> dict:
    return next(c for c in pod_spec["containers"] if c["name"] == "flink-main-container")


def test_the_manifests_say_they_are_not_run_in_ci() -> None:
    for path in DEPLOY.glob("*.yaml"):
        assert "NOT run in this project's CI" in path.read_text(), path


def test_a_session_cluster_on_the_pinned_image(manifests: dict) -> None:
    fd = manifests["FlinkDeployment/flinklab-class"]
    assert fd["apiVersion"] == "flink.apache.org/v1beta1"
    assert "job" not in fd["spec"]  # session mode: learners submit the jobs
    assert fd["spec"]["image"] == DEFAULT_FLINK_IMAGE
    assert fd["spec"]["flinkVersion"] == "v" + FLINK_MINOR.replace(".", "_")


def test_flink_options_match_the_options_table(manifests: dict) -> None:
    conf = manifests["FlinkDeployment/flinklab-class"]["spec"]["flinkConfiguration"]
    # every behaviour option of the one table (flinklab.flink.options), as local and docker set them
    assert {key: str(conf.get(key)) for key in BEHAVIOUR_OPTIONS} == BEHAVIOUR_OPTIONS
    # the shape is the class cluster's own: its memory comes from the operator's resources, its slots are more
    shape = shape_options(Settings.from_env({"HOME": "/nonexistent"}))
    assert set(conf) - set(BEHAVIOUR_OPTIONS) == {"taskmanager.numberOfTaskSlots", "rest.port"}
    assert int(conf["taskmanager.numberOfTaskSlots"]) > int(shape["taskmanager.numberOfTaskSlots"])
    assert int(conf["rest.port"]) == DEFAULT_REST_PORT


def test_lab_data_volume_is_mounted_at_the_data_dir(manifests: dict) -> None:
    spec = manifests["FlinkDeployment/flinklab-class"]["spec"]
    pod = spec["podTemplate"]["spec"]  # the top-level template: JobManager and TaskManagers both
    assert not any("podTemplate" in spec[role] for role in ("jobManager", "taskManager"))
    mounts = {m["name"]: m["mountPath"] for m in _main_container(pod)["volumeMounts"]}
    assert mounts["lab-data"] == str(DEFAULT_DATA_DIR)
    claim = next(v for v in pod["volumes"] if v["name"] == "lab-data")["persistentVolumeClaim"]["claimName"]
    pvc = manifests[f"PersistentVolumeClaim/{claim}"]
    assert "ReadWriteMany" in pvc["spec"]["accessModes"]
    loader = manifests["Pod/flinklab-data-loader"]["spec"]
    assert loader["volumes"][0]["persistentVolumeClaim"]["claimName"] == claim
    assert loader["containers"][0]["volumeMounts"][0]["mountPath"] == str(DEFAULT_DATA_DIR)


def test_rest_service_reaches_the_jobmanager(manifests: dict) -> None:
    service = manifests["Service/flinklab-class-rest-nodeport"]["spec"]
    assert service["selector"]["app"] == "flinklab-class" and service["selector"]["component"] == "jobmanager"
    port = service["ports"][0]
    assert port["targetPort"] == port["port"] == DEFAULT_REST_PORT


def test_the_readme_attach_command_matches_the_service(manifests: dict) -> None:
    readme = (PROJECT_ROOT / "README.md").read_text()
    section = readme.split("## A class on one cluster", 1)[1].split("\n## ", 1)[0]
    node_port = manifests["Service/flinklab-class-rest-nodeport"]["spec"]["ports"][0]["nodePort"]
    assert f"flink-up --backend remote --rest-url http://NODE:{node_port}" in section
    assert "deploy/kubernetes/flinklab-class.yaml" in section and "not run in this project's CI" in section
