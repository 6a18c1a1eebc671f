"""Every command line of docs/report.md runs exactly as written: the ``report`` lines in a folder whose
Hub (``$HOME/.giskard_nb/hub.db``) and ``team.db`` hold the records they name, the ``view`` lines as
servers that answer their printed address and stop on Ctrl-C with exit 0."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import socket
import string
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from .conftest import ctrl_c_reaches_it

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "report.md"


def doc_lines() -> list[str]:
    blocks = re.findall(r"^```bash\n(.*?)^```", DOC.read_text(encoding="utf-8"), re.M | re.S)
    return [re.sub(r"\s+#.*$", "", line).strip() for b in blocks for line in b.splitlines() if line]


@pytest.fixture
def folder(records: Any, tmp_path: Path) -> Path:
    """The reader's folder: the Hub of the report tests as their default Hub and as ``team.db``."""
    (tmp_path / "home" / ".giskard_nb").mkdir(parents=True)
    shutil.copy(records.path, tmp_path / "home" / ".giskard_nb" / "hub.db")
    shutil.copy(records.path, tmp_path / "team.db")
    return tmp_path


def _env(folder: Path) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if k not in ("GISKARD_NB_HUB_URL", "GISKARD_NB_HOME")
    }
    return {**env, "HOME": str(folder / "home"), "PYTHONPATH": str(REPO)}


def test_the_page_shows_report_and_view_lines() -> None:
    lines = doc_lines()
    assert [w.split()[1] for w in lines] == ["report"] * 3 + ["view"] * 2, lines


def test_report_lines_run_as_written(records: Any, folder: Path, monkeypatch, capsys) -> None:
    from giskard_nb.cli import main

    monkeypatch.chdir(folder)
    monkeypatch.setenv("HOME", str(folder / "home"))
    monkeypatch.delenv("GISKARD_NB_HOME", raising=False)
    monkeypatch.delenv("GISKARD_NB_HUB_URL", raising=False)
    ids = {
        "EVALUATION_ID": records.before.id,
        "SCAN_ID": records.scan.id,
        "BEFORE_ID": records.before.id,
        "AFTER_ID": records.after.id,
    }
    for line in (line for line in doc_lines() if line.split()[1] == "report"):
        words = shlex.split(string.Template(line).substitute(ids))
        code = main(words[1:])
        err = capsys.readouterr().err
        assert code == 0, f"{line}: exit {code}\n{err}"
        page = (folder / words[words.index("-o") + 1]).read_text(encoding="utf-8")
        assert page.lower().startswith("<!doctype html>") and "Content-Security-Policy" in page


def _free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@pytest.mark.parametrize("index", [3, 4])
def test_view_lines_serve_and_stop(records: Any, folder: Path, index: int) -> None:
    line = doc_lines()[index]
    port = int(line.split("--port")[1]) if "--port" in line else 8765
    if not _free(port):
        pytest.skip(f"port {port} of the documented example is in use on this machine")
    words = shlex.split(line)
    process = subprocess.Popen(
        [sys.executable, "-m", "giskard_nb.cli", *words[1:]],
        cwd=folder,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=ctrl_c_reaches_it,
        env=_env(folder),
    )
    try:
        url = re.search(r"http://127\.0\.0\.1:\d+/", process.stdout.readline())
        assert url is not None and url.group() == f"http://127.0.0.1:{port}/", line
        with urllib.request.urlopen(url.group(), timeout=10) as response:
            assert response.status == 200 and records.project.id in response.read().decode()
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0 and "Traceback" not in err, err
