"""``giskard-nb report`` (through ``main``) and ``giskard-nb view`` (a subprocess stopped by Ctrl-C)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

from giskard_nb.cli import main

from .conftest import assert_inert, ctrl_c_reaches_it

REPO = Path(__file__).resolve().parents[2]


def test_report_of_an_evaluation_a_scan_and_a_comparison(records, tmp_path, capsys):
    hub = str(records.path)
    out = tmp_path / "evaluation.html"
    assert main(["report", records.before.id[:-3], "--hub", hub, "-o", str(out)]) == 0
    assert "wrote the evaluation 'v1 " in capsys.readouterr().out
    assert_inert(out.read_text(encoding="utf-8"))
    scan = tmp_path / "scan.html"
    assert main(["report", records.scan.id, "--hub", hub, "-o", str(scan)]) == 0
    assert 'id="grade">' in scan.read_text(encoding="utf-8")
    both = tmp_path / "comparison.html"
    assert main(["report", records.before.id, records.after.id, "--hub", hub, "-o", str(both)]) == 0
    assert "Regressions (1)" in both.read_text(encoding="utf-8")


def test_report_usage_errors_exit_2(records, tmp_path, capsys):
    hub = str(records.path)
    out = tmp_path / "x.html"
    assert main(["report", "nothing-like-this", "--hub", hub, "-o", str(out)]) == 2
    assert "no evaluation or scan has an id starting with" in capsys.readouterr().err
    assert main(["report", records.before.id, records.scan.id, "--hub", hub, "-o", str(out)]) == 2
    assert "compare two evaluations" in capsys.readouterr().err
    assert not out.exists()
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert main(["report", records.scan.id, "--hub", hub, "-o", str(blocker / "x.html")]) == 2
    assert "cannot write the report to" in capsys.readouterr().err
    assert main(["view", str(tmp_path / "missing.db")]) == 2
    assert "no Hub at" in capsys.readouterr().err and not (tmp_path / "missing.db").exists()


def test_view_serves_the_hub_and_stops_on_ctrl_c(records, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO), "GISKARD_NB_HOME": str(tmp_path)}
    process = subprocess.Popen(
        [sys.executable, "-m", "giskard_nb.cli", "view", str(records.path), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=ctrl_c_reaches_it,
        env=env,
    )
    try:
        line = process.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/", line).group()
        with urllib.request.urlopen(url, timeout=10) as response:
            assert response.status == 200 and records.project.id in response.read().decode()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    assert "stopped" in out and "Traceback" not in err
