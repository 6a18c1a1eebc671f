"""Exports are safe and atomic: formulas defused in every CSV path, invalid text replaced, and a
failed write never destroys the previous report (security review items 6 and 9)."""

from __future__ import annotations

import csv
import io
import json
import os
import stat
from pathlib import Path

import pandas as pd
import pytest

from giskard_nb import Scenario, StringMatching, Suite
from giskard_nb.cli import main
from giskard_nb.core.files import atomic_write, escape_formula
from giskard_nb.frames import write_frame
from giskard_nb.hub import Hub

FORMULAS = [
    '=HYPERLINK("http://127.0.0.1:9/?"&A1,"click")',
    "+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
]


def _cells(text: str | Path) -> list[str]:
    if isinstance(text, Path):  # read as written (a CR inside a cell is kept)
        text = text.read_bytes().decode("utf-8")
    return [cell for row in csv.reader(io.StringIO(text, newline="")) for cell in row]


def test_escape_formula_defuses_every_leading_trigger_and_leaves_the_rest() -> None:
    for formula in FORMULAS:
        assert escape_formula(formula) == "'" + formula
    for safe in ("hello = world", "a-b", "", "'already quoted", " =1"):
        assert escape_formula(safe) == safe
    assert escape_formula(-3) == -3 and escape_formula(None) is None


def test_write_frame_csv_escapes_formulas_with_an_opt_out(tmp_path: Path) -> None:
    df = pd.DataFrame({"reply": FORMULAS, "n": range(len(FORMULAS))})
    escaped = _cells(write_frame(df, tmp_path / "out.csv"))
    assert all("'" + f in escaped for f in FORMULAS)
    assert not any(c.startswith(("=", "+", "-", "@")) for c in escaped)
    assert {"0", "5"} <= set(escaped)  # numbers are left alone
    raw = write_frame(df, tmp_path / "raw.csv", escape_formulas=False)
    assert set(FORMULAS) <= set(_cells(raw))
    # JSON keeps the text exactly: only spreadsheets run formulas
    assert json.loads(write_frame(df, tmp_path / "out.json").read_text())[0]["reply"] == FORMULAS[0]


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "json"])
def test_a_lone_surrogate_is_replaced_and_never_wipes_the_previous_file(
    tmp_path: Path, fmt: str
) -> None:
    target = tmp_path / f"results.{fmt}"
    target.write_text("previous report", encoding="utf-8")
    df = pd.DataFrame({"reply": ["fine", "bad \ud800 text"], "data": [{"k": "\udfff"}, None]})
    write_frame(df, target)
    text = target.read_text(encoding="utf-8")
    assert "bad \ufffd text" in text and "previous report" not in text
    assert len(text.splitlines()) >= 2  # every row, not the header alone


def test_atomic_write_keeps_the_previous_file_on_failure_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "report.xml"
    target.write_text("old", encoding="utf-8")
    os.chmod(target, 0o640)
    with pytest.raises(RuntimeError), atomic_write(target) as handle:
        handle.write("half a report")
        raise RuntimeError("disk full")
    assert target.read_text() == "old" and os.listdir(tmp_path) == ["report.xml"]
    with atomic_write(target) as handle:
        handle.write("new")
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # the replaced file keeps its mode


def test_atomic_write_never_reuses_a_planted_temporary_file(tmp_path: Path) -> None:
    planted = tmp_path / f"report.csv.{os.getpid()}.tmp"
    planted.write_text("attacker's")
    with atomic_write(tmp_path / "report.csv") as handle:
        handle.write("ours")
    assert planted.read_text() == "attacker's"
    assert (tmp_path / "report.csv").read_text() == "ours"


async def test_suite_junit_with_a_lone_surrogate_writes_and_keeps_the_old_report_on_failure(
    tmp_path: Path,
) -> None:
    def agent(messages):
        return "reply with a lone surrogate \ud800 and a formula =1+1"

    scenario = Scenario("s \udc00").interact("hi", agent).check(StringMatching(keyword="absent"))
    result = await Suite("suite \ud800", scenarios=[scenario]).run()
    target = tmp_path / "junit.xml"
    target.write_text("<previous/>", encoding="utf-8")
    xml = result.to_junit_xml(target)
    written = target.read_text(encoding="utf-8")
    assert written == xml.replace("\ud800", "\ufffd") or "\ufffd" in written
    assert "<previous/>" not in written and "<failure" in written
    import xml.etree.ElementTree as ET

    ET.fromstring(written.encode())  # well-formed


@pytest.fixture
def evaluated(tmp_path: Path):
    """A Hub evaluation whose agent replies with a formula and whose test case starts with one."""
    db = tmp_path / "hub.db"
    hub = Hub(str(db))
    project = hub.projects.create("sec")
    item = {
        "messages": [{"role": "user", "content": '=HYPERLINK("http://127.0.0.1:9","x")'}],
        "checks": [{"identifier": "string_match", "params": {"keyword": "nope"}}],
    }
    dataset = hub.datasets.upload(project.id, [item], name="formulas")
    evaluation = hub.evaluations.create_local(
        lambda m: "@SUM(1+1)*cmd|' /C calc'!A0", dataset.id, progress=False
    )
    hub.close()
    return db, evaluation.id


def _csv_has_no_live_formula(text: str) -> None:
    cells = _cells(text)
    assert any(c.startswith("'@SUM") for c in cells)
    assert not any(c.startswith(("=", "+", "@")) for c in cells)


def test_hub_export_to_stdout_and_file_escapes_formulas(evaluated, tmp_path, capsys) -> None:
    db, evaluation_id = evaluated
    assert main(["hub", "export", evaluation_id, "--hub", str(db)]) == 0
    _csv_has_no_live_formula(capsys.readouterr().out)
    out = tmp_path / "x.csv"
    assert main(["hub", "export", evaluation_id, "--hub", str(db), "--output", str(out)]) == 0
    _csv_has_no_live_formula(out.read_text(encoding="utf-8"))
    assert main(["hub", "export", evaluation_id, "--hub", str(db), "--raw-csv"]) == 0
    assert any(c.startswith("@SUM") for c in _cells(capsys.readouterr().out))


def test_eval_csv_escapes_formulas(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GISKARD_NB_HOME", str(tmp_path / "home"))
    (tmp_path / "formula_agent.py").write_text(
        'def agent(messages):\n    return \'=HYPERLINK("http://127.0.0.1:9","x")\'\n'
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    cases = tmp_path / "cases.jsonl"
    case = {
        "messages": "-1+1",
        "checks": [{"identifier": "string_match", "params": {"keyword": "zz"}}],
    }
    cases.write_text(json.dumps(case) + "\n")
    out = tmp_path / "results.csv"
    args = ["eval", "--dataset", str(cases), "--agent", "formula_agent:agent", "--memory"]
    code = main([*args, "--csv", str(out), "--no-progress"])
    assert code == 1  # the case fails; the report is still written
    cells = _cells(out.read_text(encoding="utf-8"))
    assert any(c.startswith("'=HYPERLINK") for c in cells)
    assert not any(c.startswith(("=", "+", "@")) for c in cells)
