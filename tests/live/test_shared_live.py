"""`flink-up --shared` on a real cluster (issue 20 item 3): only the lab's user's processes reach its REST API.

ONE cluster for the whole file, started by the real `flink-up --shared` in a state dir of its own (the suite's
shared live cluster is not --shared). Its dirs are under a 0755 temporary dir, like a home's ~/.local/state, so
that what keeps the second user (tests/second_user.py) out is the tls dir's and the files' own modes, not a
private pytest dir.
"""

from __future__ import annotations

import http.client
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from helpers.env import free_port, make_settings, settings_env
from helpers.second_user import NOT_ROOT, as_user

from flinklab.cluster.base import read_record
from flinklab.environment.lifecycle import bring_down
from flinklab.flink.tls import FILES, KEY, cluster_rest, load, tls_dir
from flinklab.gateway.webui import PREFIX
from flinklab.settings import Settings

pytestmark = [pytest.mark.live, pytest.mark.skipif(os.geteuid() != 0, reason=NOT_ROOT)]
BIN = Path(sys.executable).parent
TIMEOUT = 300.0


@pytest.fixture(scope="module")
def shared() -> Iterator[tuple[Settings, str]]:
    """(settings, what `flink-up --shared` printed) of a running --shared cluster and its gateway."""
    root = Path(tempfile.mkdtemp(prefix="flinklab-shared-"))
    root.chmod(0o755)
    settings = make_settings(root, rest_port=free_port(), gateway_port=free_port(), backend="local")
    env = {**settings_env(settings), "FLINKLAB_BACKEND": "local", "FLINKLAB_DATA_DIR": str(settings.data_dir)}
    try:
        start = time.monotonic()
        up = subprocess.run([str(BIN / "flink-up"), "--shared"], env=env, capture_output=True, text=True,
                            timeout=TIMEOUT)
        print(f"flink-up --shared took {time.monotonic() - start:.1f}s")
        assert up.returncode == 0, up.stdout + up.stderr
        yield settings, up.stdout
    finally:
        bring_down(settings)
        shutil.rmtree(root, ignore_errors=True)


def test_flink_up_records_it_and_names_the_gateways_web_ui(shared: tuple[Settings, str]) -> None:
    settings, printed = shared
    record = read_record(settings)
    assert record is not None and record.shared and record.rest_url == f"https://127.0.0.1:{settings.rest_port}"
    assert f"Web UI: {settings.gateway_url}{PREFIX}/ " in printed.replace("\n", " ")


def test_the_key_material_and_the_config_are_the_lab_users_only(shared: tuple[Settings, str]) -> None:
    settings, _ = shared
    directory = tls_dir(settings.state_dir)
    assert oct(directory.stat().st_mode & 0o777) == "0o700"
    assert {p.name: oct(p.stat().st_mode & 0o777) for p in directory.iterdir()} == {n: "0o600" for n in FILES}
    config = settings.state_dir / "local" / "conf" / "config.yaml"
    assert oct(config.stat().st_mode & 0o777) == "0o600"
    password = load(settings.state_dir).password
    assert f'"{password}"' in config.read_text()
    # the password is in no log (Flink masks it) and no process's command line
    logs = [p for p in settings.state_dir.rglob("*") if p.is_file() and (p.suffix in (".log", ".out", ".err"))]
    assert logs and not [p for p in logs if password in p.read_text(errors="replace")]
    seen = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if password.encode() in (proc / "cmdline").read_bytes():
                    seen.append(proc.name)
            except OSError:
                pass
    assert seen == []


def test_status_and_a_sql_client_query_work_for_the_lab_user(shared: tuple[Settings, str], tmp_path: Path) -> None:
    settings, _ = shared
    env = settings_env(settings)
    status = subprocess.run([str(BIN / "flinklab"), "status"], env=env, capture_output=True, text=True,
                            timeout=TIMEOUT)
    assert status.returncode == 0, status.stdout + status.stderr
    assert f"REST:          https://127.0.0.1:{settings.rest_port} (mutual TLS: --shared)" in status.stdout
    assert "TaskManagers:  1 of 1" in status.stdout
    script = tmp_path / "q.sql"
    script.write_text("SET 'sql-client.execution.result-mode' = 'tableau';\n"
                      "SET 'execution.runtime-mode' = 'batch';\nSELECT 'over TLS' AS answer;\n")
    run = subprocess.run([str(BIN / "sql-client.sh"), "-f", str(script)], env=env, capture_output=True, text=True,
                         timeout=TIMEOUT)
    assert run.returncode == 0 and "over TLS" in run.stdout and "1 row in set" in run.stdout, run.stdout + run.stderr
    # the query ran as a job on the cluster, through the gateway's session with the client certificate
    jobs = cluster_rest(read_record(settings).rest_url, settings.state_dir).jobs()
    assert [job.state for job in jobs if job.name.startswith("SELECT 'over TLS'")] == ["FINISHED"]
    start = time.monotonic()
    for _ in range(10):  # what TLS costs a client: a new handshake and context per call (measured, not asserted)
        cluster_rest(read_record(settings).rest_url, settings.state_dir).overview()
    print(f"GET /overview over mutual TLS: {(time.monotonic() - start) * 100:.0f} ms per call")


def knock(port: int, cert_dir: str | None) -> dict[str, Any]:
    """What a client gets from the REST port: over plain HTTP (status and body of GET /overview), and over HTTPS
    without verifying the server (like `curl -k`), with the client certificate in `cert_dir` or without one."""
    answers: dict[str, Any] = {}
    plain = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        plain.request("GET", "/overview")
        response = plain.getresponse()
        answers["http"] = [response.status, response.getheader("location"), response.read().decode(errors="replace")]
    except OSError as exc:
        answers["http"] = f"{type(exc).__name__}: {exc}"
    finally:
        plain.close()
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    if cert_dir is not None:
        context.load_cert_chain(f"{cert_dir}/rest-cert.pem", f"{cert_dir}/{KEY}")
    secure = http.client.HTTPSConnection("127.0.0.1", port, timeout=20, context=context)
    try:
        secure.request("GET", "/overview")
        response = secure.getresponse()
        answers["https"] = [response.status, response.read().decode(errors="replace")]
    except OSError as exc:  # ssl.SSLError is one
        answers["https"] = f"{type(exc).__name__}: {exc}"
    finally:
        secure.close()
    return answers


def test_the_rest_port_answers_no_one_without_the_certificate(shared: tuple[Settings, str], stranger) -> None:
    settings, _ = shared
    port = settings.rest_port
    mine = knock(port, str(tls_dir(settings.state_dir)))
    assert mine["https"][0] == 200 and '"taskmanagers":1' in mine["https"][1]  # the port is up, and TLS is why
    for who, answers in (("the lab user", knock(port, None)), ("the second user", as_user(stranger,
                                                                                           lambda: knock(port, None)))):
        # plain HTTP: Flink's TLS port only redirects to https, with no data
        assert answers["http"][0] == 301 and answers["http"][1].startswith("https://"), (who, answers)
        assert "taskmanagers" not in answers["http"][2], (who, answers)
        # HTTPS without the certificate: the handshake is refused
        assert isinstance(answers["https"], str) and "SSLError" in answers["https"], (who, answers)
        assert re.search(r"CERTIFICATE_REQUIRED|BAD_CERTIFICATE|bad certificate|certificate required",
                         answers["https"]), (who, answers)
    # and the second user cannot take the lab user's certificate or the config with its password
    for path in (tls_dir(settings.state_dir) / KEY, settings.state_dir / "local" / "conf" / "config.yaml"):
        assert "PermissionError" in as_user(stranger, lambda p=path: Path(p).read_text())["raised"]


def rpc_knock(port: int, cert_dir: str | None) -> str:
    """What a client gets from the JobManager's RPC port: a TLS handshake (with the certificate or without), or
    for a plain connection the bytes it is answered (Flink's RPC speaks first only over TLS)."""
    if cert_dir is None:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as plain:
            plain.sendall(b"GET / HTTP/1.0\r\n\r\n")
            plain.settimeout(10)
            try:
                return f"plain: {plain.recv(100)!r}"
            except OSError as exc:
                return f"plain: {type(exc).__name__}"
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    context.load_cert_chain(f"{cert_dir}/rest-cert.pem", f"{cert_dir}/{KEY}")
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw, context.wrap_socket(raw) as secure:
        return f"tls: {secure.version()}"


def test_the_jobmanagers_rpc_port_speaks_mutual_tls_too(shared: tuple[Settings, str], stranger) -> None:
    settings, _ = shared
    port = read_record(settings).details.rpc_port
    assert rpc_knock(port, str(tls_dir(settings.state_dir))).startswith("tls: TLSv1.")
    for answer in (rpc_knock(port, None), as_user(stranger, lambda: rpc_knock(port, None))):
        assert answer in ("plain: b''", "plain: ConnectionResetError"), answer  # closed, nothing said
    bare = ssl.create_default_context()
    bare.check_hostname, bare.verify_mode = False, ssl.CERT_NONE

    def handshake_without_certificate() -> str:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=10) as raw, bare.wrap_socket(raw) as secure:
                secure.settimeout(10)
                secure.recv(1)
                return "answered"
        except OSError as exc:
            return f"{type(exc).__name__}: {exc}"

    assert "BAD_CERTIFICATE" in as_user(stranger, handshake_without_certificate)


def test_the_web_ui_is_the_gateways_for_the_lab_user_only(shared: tuple[Settings, str], stranger) -> None:
    settings, _ = shared
    base = f"{settings.gateway_url}{PREFIX}"
    index = httpx.get(f"{base}/", timeout=TIMEOUT)
    assert index.status_code == 200 and "<title>Apache Flink Web Dashboard</title>" in index.text
    overview = httpx.get(f"{base}/overview", timeout=TIMEOUT)
    assert overview.status_code == 200 and overview.json()["taskmanagers"] == 1

    def strangers_view() -> list[int]:
        return [httpx.get(f"{base}/", timeout=TIMEOUT).status_code,
                httpx.get(f"{base}/overview", timeout=TIMEOUT).status_code,
                httpx.get(f"{base}/overview", headers={"Authorization": "Bearer " + "x" * 43},
                          timeout=TIMEOUT).status_code]

    assert as_user(stranger, strangers_view) == [401, 401, 401]


def test_a_browser_draws_the_dashboard_from_the_clusters_answers(shared: tuple[Settings, str],
                                                                 tmp_path: Path) -> None:
    """Flink's dashboard under the gateway's prefix: its relative API calls reach the cluster (the commit id and
    the slot count on the page come only from /config and /overview)."""
    settings, _ = shared
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.fail("chromium is not installed: `scripts/install.sh --test` installs it (apt-get install chromium).")
    commit = cluster_rest(read_record(settings).rest_url, settings.state_dir).get("/config")["flink-revision"]
    page = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=20000", "--dump-dom",
         f"{settings.gateway_url}{PREFIX}/#/overview"], capture_output=True, text=True, timeout=TIMEOUT)
    assert page.returncode == 0, page.stderr[-2000:]
    assert "Available Task Slots" in page.stdout
    assert commit.split(" ")[0] in page.stdout and "2.2.1" in page.stdout
