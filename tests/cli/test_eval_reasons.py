"""``giskard-nb eval`` shows each case's reason (terminal, JUnit, CSV), says what a file's columns
became, and does not pass a file where no case ran a check."""

from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from giskard_nb.cli import main

AGENTS = """
def hostile(messages):
    return "Closed\\x1b[2J\\x1b]0;pwned\\x07 today\\nsorry"
"""


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "bots.py").write_text(AGENTS, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _eval(*args: str, capsys) -> tuple[int, str, str]:
    code = main(["eval", "--memory", "--no-progress", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_real_reason_reaches_the_terminal_junit_and_csv(work: Path, capsys) -> None:
    cases = [
        {"question": "Is it correct?", "checks": [{"identifier": "correctness", "params": {"reference": "yes"}}]},
        {"question": "Open today?", "must_contain": "open"},
    ]  # fmt: skip
    (work / "cases.jsonl").write_text("\n".join(json.dumps(c) for c in cases), encoding="utf-8")
    code, out, err = _eval(
        "--dataset", "cases.jsonl", "--agent", "bots:hostile", "--junit", "junit.xml",
        "--csv", "results.csv", capsys=capsys,
    )  # fmt: skip
    assert code == 1, out + err
    assert "why:   correctness: no judge model is configured: call set_default_generator" in out
    assert "why:   must_contain: The text does not contain the keyword 'open'." in out
    assert "why:   error" not in out and "\x1b" not in out and "\x07" not in out

    suite = ET.parse(work / "junit.xml").getroot().find("testsuite")
    error = suite.find("testcase/error")
    assert error.get("message").startswith("correctness: no judge model is configured")
    failure = suite.find("testcase/failure")
    assert failure.get("message") == "must_contain: The text does not contain the keyword 'open'."
    assert "must_contain FAIL" in failure.text and "agent reply:" in failure.text

    with (work / "results.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert rows[0]["error"].startswith("correctness: no judge model is configured")
    assert rows[0]["reason"] == rows[0]["error"]
    assert rows[1]["error"] == "" and rows[1]["reason"].startswith("must_contain: ")


def test_a_file_where_no_case_has_a_check_is_not_a_pass(work: Path, capsys) -> None:
    (work / "plain.csv").write_text("question,answer_id,tags\nHello?,1,a\nHi?,2,b\n")
    code, out, err = _eval("--dataset", "plain.csv", "--agent", "bots:hostile", capsys=capsys)
    assert code == 1
    assert "2 cases ran no check: add a column expected_output" in out
    assert "nothing was tested" in out
    assert "dataset: 2 test cases; 2 with no check" in err
    code, out, _ = _eval(
        "--dataset", "plain.csv", "--agent", "bots:hostile", "--allow-unchecked", capsys=capsys
    )
    assert code == 0 and "2 cases ran no check" in out and "nothing was tested" not in out


def test_question_answer_columns_are_judged_by_the_offline_stand_in(work: Path, capsys) -> None:
    (work / "qa.csv").write_text(
        "question,answer\nAre you open?,We are closed today.\nSale items?,They are final sale.\n"
    )
    code, out, err = _eval("--dataset", "qa.csv", "--agent", "bots:hostile", capsys=capsys)
    assert "2 compare the reply with the expected answer offline" in err
    assert "offline stand-in for correctness" in err
    assert "correctness_offline" in out and "ran no check" not in out
    assert code == 1  # the hostile agent's reply is not the expected answer for the second case
    assert "why:   correctness_offline: similarity " in out


def test_a_judge_configured_after_the_upload_is_pointed_out(
    work: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    (work / "qa.csv").write_text("question,answer\nAre you open?,We are closed today.\n")
    args = ["eval", "--hub", f"sqlite:///{work / 'hub.db'}", "--no-progress"]
    args += ["--dataset", "qa.csv", "--agent", "bots:hostile"]
    main(args)
    assert "note: a judge is configured" not in capsys.readouterr().err
    # a judge configured now (not called: the check the file got at upload is the stand-in)
    monkeypatch.setattr("giskard_nb.hub.upload_columns.judge_configured", lambda: True)
    main(args)  # the same file: the dataset uploaded without a judge is reused
    assert "but this dataset was uploaded without one" in capsys.readouterr().err
