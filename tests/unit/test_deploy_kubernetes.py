"""deploy/kubernetes/ offline: the manifests parse, and their image, Flink version, data dir, REST port and Flink
options are the ones flinklab's code uses, and the class cluster is hardened (NetworkPolicy, read-only data, no
token for the TaskManagers, no secret). They are not applied to a Kubernetes cluster anywhere in this project."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from flinklab.flink.options import BEHAVIOUR_OPTIONS, REST_OPTIONS, shape_options
from flinklab.settings import DEFAULT_DATA_DIR, DEFAULT_REST_PORT, Settings
from flinklab.version import DEFAULT_FLINK_IMAGE, FLINK_MINOR

PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent  # the checkout

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


def _merged(base: object, override: object) -> object:
    """The operator's merge of a role's podTemplate into the top-level one (FlinkUtils.mergePodTemplates): objects
    field by field, arrays element by element (by position: merge-arrays-by-name is off by default)."""
    if isinstance(base, dict) and isinstance(override, dict):
        return {**base, **{k: _merged(base[k], v) if k in base else v for k, v in override.items()}}
    if isinstance(base, list) and isinstance(override, list):
        return [_merged(b, o) for b, o in zip(base, override)] + base[len(override):] + override[len(base):]
    return override


def _role_pods(fd: dict) -> dict[str, dict]:
    """role -> the pod spec the operator gives its pods (top-level podTemplate merged with the role's)."""
    spec = fd["spec"]
    return {role: _merged(spec["podTemplate"], spec[role].get("podTemplate", {}))["spec"]
            for role in ("jobManager", "taskManager")}


def _walk(node: object, path: str = ""):
    """(path, key) of every mapping key under `node`."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield path, key
            yield from _walk(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _walk(value, f"{path}[{i}]")


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
    # every behaviour and REST option of the one table (flinklab.flink.options), as local and docker set them
    shared = {**BEHAVIOUR_OPTIONS, **REST_OPTIONS}
    assert all(isinstance(value, str) for value in conf.values())  # YAML true/8 would reach Flink as another text
    assert {key: conf.get(key) for key in shared} == shared
    assert conf["web.submit.enable"] == "false"  # no jar upload on the class cluster
    # the shape is the class cluster's own: its memory comes from the operator's resources, its slots are more
    shape = shape_options(Settings.from_env({"HOME": "/nonexistent"}))
    assert set(conf) - set(shared) == {"taskmanager.numberOfTaskSlots", "rest.port"}
    assert int(conf["taskmanager.numberOfTaskSlots"]) > int(shape["taskmanager.numberOfTaskSlots"])
    assert int(conf["rest.port"]) == DEFAULT_REST_PORT


def test_lab_data_volume_is_mounted_at_the_data_dir(manifests: dict) -> None:
    for role, pod in _role_pods(manifests["FlinkDeployment/flinklab-class"]).items():
        mounts = {m["name"]: m["mountPath"] for m in _main_container(pod)["volumeMounts"]}
        assert mounts["lab-data"] == str(DEFAULT_DATA_DIR), role
    pod = manifests["FlinkDeployment/flinklab-class"]["spec"]["podTemplate"]["spec"]
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
    # the learner's address reaches the pod (with Cluster the node rewrites it and the NetworkPolicy sees the node)
    assert service["externalTrafficPolicy"] == "Local"


def test_a_network_policy_limits_the_jobmanager_to_the_class(manifests: dict) -> None:
    policy = manifests["NetworkPolicy/flinklab-class-jobmanager"]["spec"]
    service = manifests["Service/flinklab-class-rest-nodeport"]["spec"]
    selects = policy["podSelector"]["matchLabels"]
    assert selects == {"app": "flinklab-class", "component": "jobmanager"}
    assert selects.items() <= service["selector"].items()  # the pods the REST service sends learners to
    assert policy["policyTypes"] == ["Ingress"]
    rules = policy["ingress"]
    from_outside = [r for r in rules if any("ipBlock" in peer for peer in r["from"])]
    # exactly one address range to edit, and it opens the REST port only
    assert len(from_outside) == 1 and len(from_outside[0]["from"]) == 1
    assert from_outside[0]["ports"] == [{"protocol": "TCP", "port": DEFAULT_REST_PORT}]
    assert "except" not in from_outside[0]["from"][0]["ipBlock"]
    # every other rule names pods (the operator; the cluster's own), never an address or everyone
    for rule in rules:
        assert rule.get("from"), rule  # an empty `from` would admit every source
        for peer in rule["from"]:
            assert "ipBlock" in peer or "podSelector" in peer, peer
    operator = [r for r in rules if any(p.get("podSelector", {}).get("matchLabels", {}).get(
        "app.kubernetes.io/name") == "flink-kubernetes-operator" for p in r["from"])]
    assert len(operator) == 1 and operator[0]["ports"] == [{"protocol": "TCP", "port": DEFAULT_REST_PORT}]
    own = [r for r in rules if r["from"] == [{"podSelector": {"matchLabels": {"app": "flinklab-class"}}}]]
    assert len(own) == 1  # its TaskManagers: RPC and blob ports


def test_the_taskmanagers_accept_only_their_cluster(manifests: dict) -> None:
    policy = manifests["NetworkPolicy/flinklab-class-taskmanagers"]["spec"]
    assert policy["podSelector"]["matchLabels"] == {"app": "flinklab-class", "component": "taskmanager"}
    assert policy["policyTypes"] == ["Ingress"]
    assert policy["ingress"] == [{"from": [{"podSelector": {"matchLabels": {"app": "flinklab-class"}}}]}]


def test_the_lab_data_is_read_only_for_every_flink_pod(manifests: dict) -> None:
    for role, pod in _role_pods(manifests["FlinkDeployment/flinklab-class"]).items():
        data = [v for v in pod["volumes"] if "persistentVolumeClaim" in v]
        assert data and all(v["persistentVolumeClaim"]["readOnly"] is True for v in data), role
        names = {v["name"] for v in data}
        mounts = [m for c in pod["containers"] + pod.get("initContainers", []) for m in c.get("volumeMounts", [])
                  if m["name"] in names]
        assert mounts and all(m.get("readOnly") is True for m in mounts), (role, mounts)


def test_no_secret_is_mounted_and_the_taskmanagers_get_no_token(manifests: dict) -> None:
    for name, doc in manifests.items():
        for path, key in _walk(doc):
            assert key not in ("secret", "secretRef", "secretKeyRef", "imagePullSecrets"), (name, path, key)
    pods = _role_pods(manifests["FlinkDeployment/flinklab-class"])
    assert pods["taskManager"]["automountServiceAccountToken"] is False
    # the JobManager keeps the service account's token: in native mode it creates the TaskManager pods
    assert "automountServiceAccountToken" not in pods["jobManager"]
    assert manifests["Pod/flinklab-data-loader"]["spec"]["automountServiceAccountToken"] is False


def test_the_readme_attach_command_matches_the_service(manifests: dict) -> None:
    readme = (PROJECT_ROOT / "README.md").read_text()
    section = readme.split("## A class on one cluster", 1)[1].split("\n## ", 1)[0]
    node_port = manifests["Service/flinklab-class-rest-nodeport"]["spec"]["ports"][0]["nodePort"]
    assert f"flink-up --backend remote --rest-url http://NODE:{node_port}" in section
    assert "deploy/kubernetes/flinklab-class.yaml" in section and "not run in this project's CI" in section
