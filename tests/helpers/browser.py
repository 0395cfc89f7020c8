"""A headless Chromium (Debian's `chromium`) driven over its own DevTools protocol (`--remote-debugging-port`, one
websocket: websocket-client, which jupyter_server already depends on), and a JupyterLab server started headless on
127.0.0.1, for the tests that look at a notebook as a person sees it."""

from __future__ import annotations

import base64
import itertools
import json
import secrets
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import websocket

from helpers.env import free_port


def _get_json(url: str, timeout: float = 60.0) -> Any:
    """GET `url` as JSON, asking again while the server is not up yet (its process was just started)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:  # noqa: S310 - 127.0.0.1 only
                return json.loads(answer.read())
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


class Chromium:
    """One headless browser page, driven by DevTools commands."""

    def __init__(self, profile: Path, width: int = 1280, height: int = 900):
        binary = shutil.which("chromium") or shutil.which("chromium-browser")
        if binary is None:
            pytest.fail("chromium is not installed: `scripts/install.sh --test` installs it (apt-get install "
                        "chromium).")
        port = free_port()
        self.proc = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
             f"--remote-debugging-port={port}", "--remote-debugging-address=127.0.0.1", f"--user-data-dir={profile}",
             f"--window-size={width},{height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            pages = [t for t in _get_json(f"http://127.0.0.1:{port}/json") if t.get("type") == "page"]
            self.ws = websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=60, suppress_origin=True)
        except BaseException:
            self.close()
            raise
        self._ids = itertools.count(1)

    def call(self, method: str, **params: Any) -> dict:
        """One DevTools command and its result (events that arrive meanwhile are skipped)."""
        number = next(self._ids)
        self.ws.send(json.dumps({"id": number, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == number:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    def evaluate(self, expression: str) -> Any:
        """The page's value of a JavaScript expression (a promise is awaited)."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 120.0, what: str = "") -> Any:
        """Until `expression` is truthy in the page; its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            assert time.monotonic() < deadline, f"timed out waiting for {what or expression}"
            time.sleep(0.1)  # polling the page's DOM

    def screenshot(self, path: Path) -> bytes:
        data = base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])
        path.write_bytes(data)
        return data

    def close(self) -> None:
        if getattr(self, "ws", None) is not None:
            self.ws.close()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class JupyterLab:
    """`jupyter lab` on 127.0.0.1 with a token, serving `root`, its app exposed to the page (window.jupyterapp)."""

    def __init__(self, root: Path, env: dict[str, str], log: Path):
        self.port = free_port()
        self.token = secrets.token_hex(16)
        self.url = f"http://127.0.0.1:{self.port}"
        # its user settings under the test's dir (never ~/.jupyter), without the "Jupyter news?" toast
        settings = log.parent / "jupyterlab-settings"
        notification = settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
        notification.parent.mkdir(parents=True, exist_ok=True)
        notification.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}), encoding="utf-8")
        env = {**env, "JUPYTERLAB_SETTINGS_DIR": str(settings),
               "JUPYTERLAB_WORKSPACES_DIR": str(log.parent / "jupyterlab-workspaces")}
        self._log = log.open("w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1", f"--port={self.port}",
             f"--IdentityProvider.token={self.token}", f"--ServerApp.root_dir={root}", "--expose-app-in-browser",
             "--allow-root", "--ServerApp.terminals_enabled=False", "--LabApp.extension_manager=readonly",
             "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
            env=env, stdout=self._log, stderr=subprocess.STDOUT)
        try:
            _get_json(f"{self.url}/api/status?token={self.token}", timeout=120)
        except BaseException:
            self.close()
            raise

    #: the notebook panel of `name` in JupyterLab's main area, made the current one (commands act on it)
    @staticmethod
    def panel(name: str) -> str:
        return (f"(() => {{ const p = Array.from(jupyterapp.shell.widgets('main')).find(w => w.context && "
                f"w.context.path === {json.dumps(name)}); if (p) jupyterapp.shell.activateById(p.id); return p; }})()")

    def close(self) -> None:
        self.proc.terminate()  # the server shuts its kernels down
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._log.close()
