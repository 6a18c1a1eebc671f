"""The JupyterLab browser tests share one server per session (``jupyterlab_session``); each test gets
its own folder, notebook, kernel and workspace in it (``jupyterlab``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .jupyter import jupyterlab_server, shut_down_kernels


@pytest.fixture(scope="session")
def jupyterlab_session(tmp_path_factory: pytest.TempPathFactory):
    """One JupyterLab server on 127.0.0.1 for the session, its folders in a temporary directory."""
    try:
        with jupyterlab_server(tmp_path_factory.mktemp("jupyterlab")) as server:
            yield server
    except RuntimeError as exc:
        pytest.fail(str(exc))


@pytest.fixture
def jupyterlab(jupyterlab_session: dict, tmp_path: Path, request: pytest.FixtureRequest):
    """The session's JupyterLab with a folder of the test's own under its root (``root``, named
    ``folder`` relative to the server's root; also the test's workspace name) and the test's
    ``tmp`` folder; the kernels of the test's notebooks are shut down when it ends."""
    folder = re.sub(r"[^A-Za-z0-9_-]", "-", request.node.name)[:80]
    root = jupyterlab_session["root"] / folder
    root.mkdir()
    yield {**jupyterlab_session, "folder": folder, "root": root, "tmp": tmp_path}
    shut_down_kernels(jupyterlab_session, folder)
