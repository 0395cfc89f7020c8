"""No one but the lab's user reaches its gateway (issue 20), on the shared live cluster and gateway.

A second Unix user (tests/second_user.py) plays the classmate on a shared machine. It tries what
worked before the token: open a session and read a file of the lab's user through a `filesystem` table with
`'format' = 'raw'`. The same attempt by the lab's own user, without the token, reads the file: the attack is real,
and the door is what stops it.

Creating a user needs root: CI runs as root. As another user this file cannot test a second user and says so.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from flink_gateway import connect
from flink_gateway_api import AuthenticatedClient, Client
from flink_gateway_api.api.default import open_session
from flink_gateway_api.models import OpenSessionRequestBody
from helpers.env import settings_env
from helpers.second_user import NOT_ROOT, as_user

from flinklab.access import read_token, token_path
from flinklab.environment.gateway import log_file
from flinklab.settings import Settings
from flinklab.sqlclient.protocol import GatewayClient

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(os.geteuid() != 0, reason=NOT_ROOT),
]
BIN = Path(sys.executable).parent
SECRET = "the lab user's private words"
TIMEOUT = 120.0


@pytest.fixture(scope="module")
def secret_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("private") / "secret.txt"
    path.write_text(SECRET + "\n")
    path.chmod(0o600)
    return path


def _run(client: httpx.Client, session: str, statement: str) -> list[list[Any]]:
    """One statement through the REST protocol, by hand: its rows (fields) up to EOS."""
    answer = client.post(f"/v3/sessions/{session}/statements", json={"statement": statement})
    answer.raise_for_status()
    uri = f"/v3/sessions/{session}/operations/{answer.json()['operationHandle']}/result/0?rowFormat=JSON"
    rows: list[list[Any]] = []
    while uri:
        page = client.get(uri)
        page.raise_for_status()
        body = page.json()
        rows += [row["fields"] for row in (body.get("results") or {}).get("data") or []]
        uri = body.get("nextResultUri") if body["resultType"] != "EOS" else None
    return rows


def read_file_through_sql(url: str, path: Path, headers: dict[str, str]) -> Any:
    """What a classmate would try: a raw filesystem table over someone's file. The file's lines, or the HTTP
    status that stopped it."""
    with httpx.Client(base_url=url, headers=headers, timeout=TIMEOUT) as client:
        opened = client.post("/v3/sessions", json={"properties": {"execution.runtime-mode": "batch"}})
        if opened.status_code != 200:
            return {"status": opened.status_code, "body": opened.json()}
        session = opened.json()["sessionHandle"]
        try:
            _run(client, session, f"CREATE TEMPORARY TABLE loot (line STRING) WITH ('connector' = 'filesystem', "
                                  f"'path' = '{path}', 'format' = 'raw')")
            return {"lines": [row[0] for row in _run(client, session, "SELECT line FROM loot")]}
        finally:
            client.delete(f"/v3/sessions/{session}")


def test_a_second_user_gets_401_and_cannot_read_the_lab_users_file(flink_cluster: Settings, stranger,
                                                                   secret_file: Path) -> None:
    url = flink_cluster.gateway_url
    # the lab's own user, without the token (the peer socket is its own): the attack itself works
    mine = read_file_through_sql(url, secret_file, {})
    assert mine == {"lines": [SECRET]}
    # the classmate: neither without a token, nor with a made-up one, nor by reading the token file
    for headers in ({}, {"Authorization": "Bearer " + "x" * 43}, {"Authorization": ""}):
        theirs = as_user(stranger, lambda h=headers: read_file_through_sql(url, secret_file, h))
        assert theirs["status"] == 401, theirs
        assert theirs["body"]["errors"][0].startswith("Unauthorized")
    assert "PermissionError" in as_user(stranger, lambda: token_path(flink_cluster.state_dir).read_text())["raised"]
    assert "PermissionError" in as_user(stranger, lambda: secret_file.read_text())["raised"]
    # the same client a classmate runs, on the gateway's open paths: only product and version
    assert as_user(stranger, lambda: httpx.get(f"{url}/v3/info").json()) == \
        {"productName": "Apache Flink", "version": "2.2.1"}


def test_clients_with_the_token_in_a_header_get_in_from_any_user(flink_cluster: Settings, stranger) -> None:
    """Clients that send the header work whoever runs them: shown as the second user (no peer-owner pass), given
    the token as a teacher would hand it over."""
    url, token = flink_cluster.gateway_url, read_token(flink_cluster.state_dir)

    def flinklabs_client() -> Any:
        api = GatewayClient(url, token=lambda: token)
        session = api.open_session({"execution.runtime-mode": "batch"})
        api.close_session(session)
        return {"session": len(session)}

    def db_api_driver() -> Any:
        with httpx.Client(headers={"Authorization": f"Bearer {token}"}, timeout=TIMEOUT) as http, \
                connect(url, properties={"execution.runtime-mode": "batch"}, http_client=http) as conn:
            cur = conn.cursor()
            cur.execute("SELECT 40 + 2 AS answer")
            return cur.fetchall()

    def openapi_client(with_token: bool) -> Any:
        base = f"{url}/v3"
        client = AuthenticatedClient(base_url=base, token=token) if with_token else Client(base_url=base)
        with client:
            answer = open_session.sync_detailed(client=client, body=OpenSessionRequestBody())
            return {"status": int(answer.status_code)}

    assert as_user(stranger, flinklabs_client) == {"session": 36}
    assert as_user(stranger, db_api_driver) == [[42]]
    assert as_user(stranger, lambda: openapi_client(True)) == {"status": 200}
    assert as_user(stranger, lambda: openapi_client(False)) == {"status": 401}
    assert "401" in as_user(stranger, lambda: GatewayClient(url).open_session())["raised"]


def test_the_lab_users_own_tools_work_and_the_token_is_in_no_command_line_log_or_output(
        flink_cluster: Settings, tmp_path: Path) -> None:
    token = read_token(flink_cluster.state_dir)
    env = settings_env(flink_cluster)
    script = tmp_path / "q.sql"
    script.write_text("SET 'sql-client.execution.result-mode' = 'tableau';\n"
                      "SET 'execution.runtime-mode' = 'batch';\nSELECT 'ok' AS answer;\n")
    run = subprocess.run([str(BIN / "sql-client.sh"), "-f", str(script)], env=env, capture_output=True, text=True,
                         timeout=TIMEOUT)
    assert run.returncode == 0 and "| answer |" in run.stdout and "ok" in run.stdout, run.stdout + run.stderr
    # a plain HTTP client without any header, run by the lab's own user
    opened = httpx.post(f"{flink_cluster.gateway_url}/v3/sessions", json={})
    assert opened.status_code == 200
    httpx.delete(f"{flink_cluster.gateway_url}/v3/sessions/{opened.json()['sessionHandle']}")
    status = subprocess.run([str(BIN / "flinklab"), "status"], env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert str(token_path(flink_cluster.state_dir)) in status.stdout.replace("\n", "")
    # nowhere to be seen: not in any process's command line or environment, nor in the gateway's log or an output
    seen = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            for name in ("cmdline", "environ"):
                try:
                    if token.encode() in (proc / name).read_bytes():
                        seen.append(f"{proc.name}/{name}")
                except OSError:
                    pass
    assert seen == []
    assert token not in log_file(flink_cluster).read_text(errors="replace")
    assert token not in run.stdout + run.stderr + status.stdout + status.stderr


@pytest.mark.parametrize("fault, expected", [
    ("missing", "No SQL gateway token at {path}."),
    ("world-readable", "The SQL gateway token {path} is open to others (mode 0644, must be 0600): refused."),
    ("not-a-token", "The SQL gateway token {path} does not hold a token."),
])
def test_sql_client_with_a_token_file_it_cannot_use_says_so_in_one_line(flink_cluster: Settings, tmp_path: Path,
                                                                         fault: str, expected: str) -> None:
    """The lab's own client, its state dir's token file missing or untrustworthy: one line naming the file (and
    flink-up), exit 2, the statement never sent."""
    state = tmp_path / "state"
    state.mkdir()
    path = token_path(state)
    if fault != "missing":
        path.write_text(read_token(flink_cluster.state_dir) if fault == "world-readable" else "not a token\n")
        path.chmod(0o644 if fault == "world-readable" else 0o600)
    script = tmp_path / "q.sql"
    script.write_text("SET 'execution.runtime-mode' = 'batch';\n")
    run = subprocess.run([str(BIN / "sql-client.sh"), "-f", str(script)], capture_output=True, text=True,
                         env={**settings_env(flink_cluster), "FLINKLAB_STATE_DIR": str(state)}, timeout=TIMEOUT)
    assert run.returncode == 2, run.stdout + run.stderr
    lines = [line for line in (run.stdout + run.stderr).splitlines() if line.strip()]
    assert expected.format(path=path) in lines[0].replace("Error: ", ""), lines
    assert "flink-up" in run.stdout + run.stderr and "Traceback" not in run.stderr
    assert "Flink SQL>" not in run.stdout  # nothing ran
