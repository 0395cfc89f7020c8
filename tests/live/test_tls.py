"""`flink-up --shared` without a cluster: the TLS material (a real keytool), Flink's options, the client context
against a real mutual-TLS server, the Web UI forwarder, the settings and the record, and bad input in one line.

keytool starts a JVM (seconds on a loaded machine): the material is made once for the module, and once more only
where making it is what is tested.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import stat
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import httpx
import pytest
from cryptography import x509
from helpers.env import free_port
from helpers.standin import JSON, Answer, serve
from starlette.applications import Starlette
from typer.testing import CliRunner

from flinklab.access import other_login_users
from flinklab.cli.app import app
from flinklab.cli.cluster import up_app
from flinklab.cluster.base import ClusterRecord, read_record, record_path, write_record
from flinklab.cluster.local import LocalDetails
from flinklab.cluster.local_config import flink_home, write_config
from flinklab.environment.select import backend_for
from flinklab.errors import ClusterError, UsageError
from flinklab.flink.java import find_java
from flinklab.flink.rest import RestUnavailable
from flinklab.flink.tls import (
    CERT,
    FILES,
    KEY,
    TlsError,
    cluster_client_options,
    cluster_rest,
    ensure,
    keytool_beside,
    load,
    tls_dir,
)
from flinklab.gateway import webui
from flinklab.gateway.service import GatewayConfig
from flinklab.settings import Settings

pytestmark = pytest.mark.live  # keytool is a JVM

runner = CliRunner()


@pytest.fixture(scope="module")
def keytool() -> str:
    return keytool_beside(find_java()[0])


@pytest.fixture(scope="module")
def state_dir(tmp_path_factory: pytest.TempPathFactory, keytool: str) -> Path:
    """A state dir with TLS material made by the real keytool (once for the module; tests must not change it)."""
    state = tmp_path_factory.mktemp("state")
    ensure(state, keytool)
    return state


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_material_is_private_and_its_certificate_names_loopback(state_dir: Path) -> None:
    directory = tls_dir(state_dir)
    assert _mode(directory) == 0o700
    assert {p.name for p in directory.iterdir()} == set(FILES)
    assert {p.name: _mode(p) for p in directory.iterdir()} == {name: 0o600 for name in FILES}
    cert = x509.load_pem_x509_certificate((directory / CERT).read_bytes())
    names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert [str(ip) for ip in names.get_values_for_type(x509.IPAddress)] == ["127.0.0.1"]
    assert names.get_values_for_type(x509.DNSName) == ["localhost"]
    assert b"PRIVATE KEY" in (directory / KEY).read_bytes()


def test_flinks_options_use_one_store_as_keystore_and_truststore(state_dir: Path) -> None:
    material = load(state_dir)
    options = material.flink_options()
    store = str(tls_dir(state_dir) / "rest.p12")
    assert options == {
        "security.ssl.rest.enabled": "true",
        "security.ssl.rest.authentication-enabled": "true",
        "security.ssl.rest.keystore": store,
        "security.ssl.rest.keystore-password": material.password,
        "security.ssl.rest.key-password": material.password,
        "security.ssl.rest.keystore-type": "PKCS12",
        "security.ssl.rest.truststore": store,
        "security.ssl.rest.truststore-password": material.password,
        "security.ssl.rest.truststore-type": "PKCS12",
    }
    assert len(material.password) >= 24
    # the cluster itself also speaks (always mutual) TLS on its internal ports, with the same store
    internal = {k.replace("security.ssl.rest.", "security.ssl.internal."): v for k, v in options.items()
                if k != "security.ssl.rest.authentication-enabled"}
    assert material.cluster_options() == {**options, **internal}
    # what the gateway's sessions get: the same options for an https cluster, none for a plain one
    assert cluster_client_options("https://127.0.0.1:1", state_dir) == options
    assert cluster_client_options("http://127.0.0.1:1", state_dir) == {}
    config = GatewayConfig("https://127.0.0.1:1", state_dir=state_dir)
    assert config.cluster_tls_options(config.cluster_url()) == options
    with pytest.raises(TlsError, match="no state dir"):
        GatewayConfig("https://127.0.0.1:1").cluster_tls_options("https://127.0.0.1:1")


def _overview(request: BaseHTTPRequestHandler) -> Answer:
    return 200, JSON, json.dumps({"taskmanagers": 1, "path": request.path,
                                  "authorization": request.headers.get("Authorization")}).encode()


@pytest.fixture(scope="module")
def mutual_tls_server(state_dir: Path) -> Iterator[str]:
    """An HTTPS server that, like a --shared JobManager, trusts only the material's certificate and requires it
    from every client; its URL."""
    material = load(state_dir)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(material.cert, material.key)
    context.load_verify_locations(material.cert)
    context.verify_mode = ssl.CERT_REQUIRED
    with serve(_overview, tls=context) as url:
        yield url


def test_flinklabs_client_presents_the_certificate_and_others_do_not_get_in(state_dir: Path, tmp_path: Path,
                                                                           mutual_tls_server: str) -> None:
    assert cluster_rest(mutual_tls_server, state_dir).overview()["taskmanagers"] == 1
    # the same server without the certificate (a client that skips verifying the server, like `curl -k`)
    bare = ssl.create_default_context()
    bare.check_hostname, bare.verify_mode = False, ssl.CERT_NONE
    rest = cluster_rest(mutual_tls_server, state_dir)
    rest.ssl_context = bare
    with pytest.raises(RestUnavailable):
        rest.overview()
    # another state dir has no material: one line naming what is missing
    with pytest.raises(TlsError, match=r"needs TLS material, and .*tls is missing"):
        cluster_rest(mutual_tls_server, tmp_path)


def _get(app: Starlette, path: str, **options: object) -> httpx.Response:
    async def get() -> httpx.Response:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gateway") as client:
            return await client.get(path, **options)

    return asyncio.run(get())


def test_the_gateway_forwards_the_web_ui_with_the_certificate(state_dir: Path, mutual_tls_server: str) -> None:
    forwarding = Starlette(routes=webui.routes(GatewayConfig(lambda: mutual_tls_server, state_dir=state_dir)))
    answer = _get(forwarding, "/cluster/jobs/overview?x=1", headers={"Authorization": "Bearer the-gateway-token"})
    # the gateway's token is the gateway's: it does not go on to the cluster
    assert answer.status_code == 200 and answer.json() == {"taskmanagers": 1, "path": "/jobs/overview?x=1",
                                                           "authorization": None}
    moved = _get(forwarding, "/cluster")
    assert moved.status_code == 308 and moved.headers["location"] == "/cluster/"
    nobody = Starlette(routes=webui.routes(GatewayConfig(f"https://127.0.0.1:{free_port()}", state_dir=state_dir)))
    answer = _get(nobody, "/cluster/overview")
    assert answer.status_code == 502 and "does not answer" in answer.json()["errors"][0]


def test_a_second_ensure_reuses_the_material_without_keytool(state_dir: Path) -> None:
    before = load(state_dir)
    assert ensure(state_dir, "/nonexistent/keytool") == before  # no keytool is run: it does not exist


@pytest.mark.parametrize(("target", "mode", "words"), [
    ("", 0o755, "is open to others (mode 0755, must be 0700): refused"),
    (KEY, 0o644, "is open to others (mode 0644, must be 0600): refused"),
])
def test_material_open_to_others_is_refused_in_one_line(state_dir: Path, tmp_path: Path, target: str, mode: int,
                                                        words: str) -> None:
    copy = tmp_path / "state"
    (copy / "tls").mkdir(parents=True, mode=0o700)
    for name in FILES:
        (copy / "tls" / name).write_bytes((tls_dir(state_dir) / name).read_bytes())
        (copy / "tls" / name).chmod(0o600)
    (copy / "tls" / target).chmod(mode)
    for attempt in (lambda: load(copy), lambda: ensure(copy, "/nonexistent/keytool")):
        with pytest.raises(TlsError) as caught:
            attempt()
        assert words in caught.value.message and str(copy / "tls" / target).rstrip("/") in caught.value.message
        assert "\n" not in caught.value.message and "flink-down" in (caught.value.hint or "")
    # nothing was repaired or replaced behind the user's back
    assert _mode(copy / "tls" / target) == mode
    assert (copy / "tls" / KEY).read_bytes() == (tls_dir(state_dir) / KEY).read_bytes()


def test_a_keytool_failure_is_one_line(tmp_path: Path, keytool: str) -> None:
    with pytest.raises(TlsError) as caught:
        ensure(tmp_path, keytool, validity_days=-1)  # keytool itself refuses this
    assert caught.value.message == ("keytool could not make the REST API's TLS key: keytool error: "
                                    "java.lang.Exception: Validity must be greater than zero")


def test_incomplete_material_is_made_anew(tmp_path: Path, keytool: str) -> None:
    (tmp_path / "tls").mkdir(mode=0o700)
    (tmp_path / "tls" / "rest.password").write_text("left over by an interrupted start\n")
    material = ensure(tmp_path, keytool)
    assert material.password != "left over by an interrupted start"
    assert load(tmp_path) == material
    assert {p.name: _mode(p) for p in tls_dir(tmp_path).iterdir()} == {name: 0o600 for name in FILES}


def test_config_yaml_is_0600_and_has_the_tls_options_only_when_shared(tmp_path: Path, state_dir: Path) -> None:
    settings = Settings.from_env({"HOME": str(tmp_path)}, state_dir=tmp_path / "state")
    for tls, wanted in ((None, {}), (load(state_dir), load(state_dir).cluster_options())):
        conf = tmp_path / ("shared" if tls else "plain")
        write_config(conf, flink_home(), settings, tmp_path / "tmp", 6123, tls)
        path = conf / "config.yaml"
        assert _mode(path) == 0o600
        options = {key: json.loads(value) for key, _, value in
                   (line.partition(": ") for line in path.read_text().splitlines() if not line.startswith("#"))}
        assert {k: v for k, v in options.items() if k.startswith("security.ssl.")} == wanted


def _record(settings: Settings, shared: bool) -> ClusterRecord:
    return ClusterRecord(
        backend="local", rest_host="127.0.0.1", rest_port=settings.rest_port, taskmanagers=1, slots=4,
        flink_version="2.2.1", data_dir=str(settings.data_dir), workspace_root=str(settings.workspace_root),
        shared=shared, details=LocalDetails(conf_dir=str(settings.state_dir / "local" / "conf"), log_dir="",
                                            flink_home="", rpc_port=1, jobmanager_pid=2**22 + 1))


def test_the_record_says_shared_and_an_older_record_is_plain(tmp_settings: Settings) -> None:
    write_record(tmp_settings, _record(tmp_settings, shared=True))
    assert read_record(tmp_settings).rest_url == f"https://127.0.0.1:{tmp_settings.rest_port}"
    data = json.loads(record_path(tmp_settings).read_text())
    del data["shared"]  # a record written before --shared existed
    record_path(tmp_settings).write_text(json.dumps(data))
    assert read_record(tmp_settings).rest_url == f"http://127.0.0.1:{tmp_settings.rest_port}"


def _env(settings: Settings) -> dict[str, str]:
    return {"HOME": str(settings.state_dir.parent / "home"), "FLINKLAB_STATE_DIR": str(settings.state_dir),
            "FLINKLAB_DATA_DIR": str(settings.data_dir), "FLINKLAB_WORKSPACE": str(settings.workspace_root),
            "FLINKLAB_REST_PORT": str(settings.rest_port), "FLINKLAB_GATEWAY_PORT": str(settings.gateway_port),
            "FLINKLAB_BACKEND": ""}


def test_status_of_a_shared_record_with_an_unsafe_tls_dir_is_one_line(tmp_settings: Settings,
                                                                      state_dir: Path) -> None:
    write_record(tmp_settings, _record(tmp_settings, shared=True))
    # no material at all
    result = runner.invoke(app, ["status"], env=_env(tmp_settings))
    assert result.exit_code == 2 and "needs TLS material" in result.output and "Traceback" not in result.output
    # material open to others
    directory = tls_dir(tmp_settings.state_dir)
    directory.mkdir(mode=0o755)
    directory.chmod(0o755)
    result = runner.invoke(app, ["status"], env=_env(tmp_settings))
    assert result.exit_code == 2 and f"The TLS directory {directory} is open to others" in result.output
    assert "Traceback" not in result.output


def test_shared_is_for_the_local_backend_only(tmp_settings: Settings) -> None:
    env = _env(tmp_settings)
    result = runner.invoke(up_app, ["--backend", "docker", "--shared"], env=env)
    assert result.exit_code == 2, result.output
    assert "--shared (the REST API behind mutual TLS) is for the local backend, not docker." in result.output
    assert read_record(tmp_settings) is None
    # auto never picks a backend that cannot: with a cluster to attach to, it passes remote over
    backend, why = backend_for(tmp_settings.with_overrides(shared=True, remote_url="http://127.0.0.1:1"))
    assert backend.name == "local"
    # a plain cluster is not made shared in place
    write_record(tmp_settings, _record(tmp_settings, shared=False))
    from flinklab.cluster.local import LocalBackend

    with pytest.raises(ClusterError, match="without --shared") as caught:
        LocalBackend(tmp_settings.with_overrides(shared=True)).up()
    assert "flink-down" in caught.value.hint


@pytest.mark.parametrize(("raw", "shared"), [("1", True), ("true", True), ("YES", True), ("0", False), ("", False),
                                             ("off", False)])
def test_flinklab_shared_in_the_environment(raw: str, shared: bool) -> None:
    assert Settings.from_env({"HOME": "/nonexistent", "FLINKLAB_SHARED": raw}).shared is shared


def test_a_bad_flinklab_shared_is_one_line() -> None:
    with pytest.raises(UsageError, match=r"FLINKLAB_SHARED='maybe' is neither true nor false"):
        Settings.from_env({"HOME": "/nonexistent", "FLINKLAB_SHARED": "maybe"})


def test_other_login_users_are_people_accounts_only(tmp_path: Path) -> None:
    passwd = tmp_path / "passwd"
    passwd.write_text("\n".join([
        "root:x:0:0:root:/root:/bin/bash",
        "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin",
        "alice:x:1000:1000::/home/alice:/bin/bash",
        "bob:x:1001:1001::/home/bob:/bin/zsh",
        "svc:x:1002:1002::/srv:/usr/sbin/nologin",
        "nobody:x:65534:65534:nobody:/nonexistent:/bin/sh",
        "me:x:1003:1003::/home/me:/bin/bash",
        "broken line",
    ]) + "\n")
    defs = tmp_path / "login.defs"
    defs.write_text("# comment\nUID_MIN\t\t 1000\n")
    assert other_login_users(passwd, defs, me=1003) == ["alice", "bob"]
    defs.write_text("UID_MIN 1001\n")
    assert other_login_users(passwd, defs, me=0) == ["bob", "me"]
    assert other_login_users(tmp_path / "missing", defs, me=0) == []



def test_the_shells_welcome_names_the_gateways_web_ui_for_a_shared_cluster() -> None:
    from flinklab.sqlclient.shell.app import ShellOptions, welcome

    shared = welcome("2.2.1", ShellOptions("http://127.0.0.1:8083", "https://127.0.0.1:8081"))
    assert "Flink cluster: https://127.0.0.1:8081 (its Web UI: http://127.0.0.1:8083/cluster/)" in shared
    plain = welcome("2.2.1", ShellOptions("http://127.0.0.1:8083", "http://127.0.0.1:8081"))
    assert "Flink cluster: http://127.0.0.1:8081 (its Web UI too)" in plain
