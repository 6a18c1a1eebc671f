"""One JupyterLab server on 127.0.0.1 for the browser tests of a session, and how a test opens and runs a
notebook in it with Playwright and Debian's Chromium.

Starting JupyterLab costs 10-20 s on a busy 2-core machine, so the server is shared (the ``jupyterlab``
fixture of ``conftest.py``); each test still gets a folder of its own under the server's root, its own
notebook there (hence its own kernel, shut down when the test ends) and its own JupyterLab workspace
(no tab of another test's notebook is restored in its page).
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def requirements() -> str | None:
    """Why the JupyterLab browser tests cannot run here, or None."""
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is not installed (run .ci/browser.sh: apt-get install chromium)"
    for module in ("playwright", "jupyterlab"):
        try:
            __import__(module)
        except ImportError:
            return f"{module} is not installed (run .ci/browser.sh: pip install -e '.[ci]')"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _api(server: dict, method: str, path: str) -> object:
    request = urllib.request.Request(
        f"{server['base']}/api/{path}",
        method=method,
        headers={"Authorization": f"token {server['token']}"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        body = response.read()
    return json.loads(body) if body else None


@contextmanager
def jupyterlab_server(tmp: Path) -> Iterator[dict]:
    """A JupyterLab server on 127.0.0.1 with every Jupyter/IPython folder in ``tmp``; its root is
    ``tmp / "root"``. Raises RuntimeError with the end of its log when it does not start."""
    root = tmp / "root"
    root.mkdir()
    settings = tmp / "lab-settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False})
    )
    env = {
        **os.environ,
        "HOME": str(tmp / "home"),
        "IPYTHONDIR": str(tmp / "ipython"),
        "JUPYTER_CONFIG_DIR": str(tmp / "jupyter-config"),
        "JUPYTER_DATA_DIR": str(tmp / "jupyter-data"),
        "JUPYTER_RUNTIME_DIR": str(tmp / "jupyter-runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(tmp / "lab-settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(tmp / "lab-workspaces"),
        "GISKARD_NB_HOME": str(tmp / "giskard-nb-home"),
    }
    port, token = _free_port(), secrets.token_hex(16)
    log_path = tmp / "jupyterlab.log"
    log = log_path.open("w")
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root",
            "--ip=127.0.0.1", f"--port={port}", "--port-retries=0",
            f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            "--LabApp.news_url=", "--ServerApp.open_browser=False",
        ],
        env=env, stdout=log, stderr=subprocess.STDOUT, cwd=root,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                log.flush()
                raise RuntimeError("JupyterLab did not start:\n" + log_path.read_text()[-3000:])
            time.sleep(0.3)
        yield {"base": base, "token": token, "root": root, "log": log_path}
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        log.close()


def shut_down_kernels(server: dict, folder: str) -> None:
    """Shut down the kernels of the notebooks under ``folder`` (relative to the server's root)."""
    for session in _api(server, "GET", "sessions"):
        if session.get("path", "").startswith(f"{folder}/"):
            _api(server, "DELETE", f"sessions/{session['id']}")


def open_and_run_all(page, jupyterlab: dict, notebook: str) -> str:
    """Open ``notebook`` (a file in the test's folder) in the test's own JupyterLab workspace, wait
    for an idle kernel, run every cell; the page title before."""
    path = f"{jupyterlab['folder']}/{notebook}"
    page.goto(
        f"{jupyterlab['base']}/lab/workspaces/{jupyterlab['folder']}/tree/{path}"
        f"?token={jupyterlab['token']}"
    )
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    # the status bar says "Python 3 (ipykernel) | Idle" once the kernel is connected
    page.wait_for_function(
        "() => [...document.querySelectorAll('.jp-StatusBar-TextItem')]"
        ".some(e => /\\| Idle/.test(e.textContent))",
        timeout=60_000,
    )
    title_before = page.title()
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_text("Run All Cells", exact=True).click()
    return title_before
