"""``giskard-nb hub``: tables with headers, short ids, show of every kind, exports by format, output
safe for a terminal, and a closed pipe (run through ``main`` in this process; the pipe in a
subprocess)."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from giskard_nb.cli import main

REPO = Path(__file__).resolve().parents[2]
HOSTILE = "=HYPERLINK(1) \x1b]0;pwned\x07\x1b[2J\x1b[31mRED\x1b[0m \x9b1A\u202eevil\u2066"
CHECK = {"identifier": "string_match", "params": {"keyword": "open"}}


def agent(messages):
    question = messages[-1]["content"]
    if question == "crash?":
        raise RuntimeError("the agent fell over")
    if question == "hostile?":
        return HOSTILE
    return "We are open Monday to Friday." if question == "open?" else "No idea."


def ansi_agent(messages):
    return "\x1b]0;owned\x07\x1b[31mOK\x1b[0m"


@pytest.fixture(scope="module")
def hub_file(tmp_path_factory) -> dict:
    """A Hub file: an evaluation (1 pass, 2 fail, 1 error) and a scan with an ANSI finding."""
    from giskard_nb.hub import Hub

    path = tmp_path_factory.mktemp("hub") / "hub.db"
    with Hub(str(path)) as hub:
        project = hub.projects.create("cli tests")
        dataset = hub.datasets.create(project.id, name="cases")
        for question in ("open?", "closed?", "crash?", "hostile?"):
            hub.test_cases.create(dataset.id, messages=question, checks=[CHECK])
        evaluation = hub.evaluations.create_local(agent, dataset.id, progress=False)
        results = {
            hub.test_cases.retrieve(r.test_case_id).messages[0].content: r.id
            for r in evaluation.results()
        }
        scan = hub.scans.create(
            project.id, agent=ansi_agent, probe_ids=["output.ansi_escape"],
            max_attempts_per_probe=1, progress=False, judge=None, generator=None,
        )  # fmt: skip
        finding = hub.scans.attempts.list(scan_id=scan.id, successful=True)[0]
        return {
            "db": str(path),
            "project": project.id,
            "dataset": dataset.id,
            "evaluation": evaluation.id,
            "results": results,
            "scan": scan.id,
            "attempt": finding.id,
        }


def run(hub_file: dict, *args: str, capsys) -> tuple[int, str, str]:
    code = main([*args, "--hub", hub_file["db"]])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_version(capsys) -> None:
    from importlib.metadata import version

    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"giskard-nb {version('giskard-nb')}\n"


def test_every_list_has_a_header_and_short_ids(hub_file, capsys) -> None:
    headers = {
        "projects": ["ID", "NAME", "CREATED"],
        "datasets": ["ID", "NAME", "TEST", "CASES"],
        "evaluations": ["ID", "NAME", "STATUS", "PASS", "RATE", "CREATED"],
        "scans": ["ID", "NAME", "STATUS", "GRADE", "CREATED"],
    }
    for kind, header in headers.items():
        code, out, _ = run(hub_file, "hub", "list", kind, capsys=capsys)
        assert code == 0 and out.splitlines()[0].split() == header, out
        assert out.splitlines()[1].split()[0] == hub_file[kind[:-1]][-8:]
    code, out, _ = run(hub_file, "hub", "list", "agents", capsys=capsys)
    assert code == 0 and out.startswith("no agents in <Hub ")
    for kind, what in (("results", "evaluations"), ("attempts", "scans")):
        assert main(["hub", "list", kind, "--memory"]) == 0
        assert capsys.readouterr().out.startswith(f"no {what} in <Hub in memory")


def test_list_results_filters(hub_file, capsys) -> None:
    ev = hub_file["evaluation"][-8:]
    code, out, _ = run(hub_file, "hub", "list", "results", "--evaluation", ev, capsys=capsys)
    lines = out.splitlines()
    assert code == 0 and lines[0] == f"results of evaluation {ev} 'agent on cases'"
    assert lines[1].split() == ["ID", "STATUS", "CATEGORY", "QUESTION", "REASON"]
    assert len(lines) == 6  # a title, a header, 4 results
    code, out, _ = run(hub_file, "hub", "list", "results", "--status", "error", capsys=capsys)
    rows = out.splitlines()[2:]  # the newest evaluation by default
    assert code == 0 and len(rows) == 1
    assert rows[0].split()[:2] == [hub_file["results"]["crash?"][-8:], "error"]
    assert "RuntimeError during target: the agent fell over" in rows[0]
    code, out, err = run(hub_file, "hub", "list", "results", "--limit", "2", capsys=capsys)
    assert len(out.splitlines()) == 4 and "the first 2 results: --limit N shows more" in err
    fails = run(hub_file, "hub", "list", "results", "--status", "fail", capsys=capsys)[1]
    categories = {line.split()[2] for line in fails.splitlines()[2:]}
    assert len(categories) == 1  # the classifier's category of both failures
    code, out, _ = run(
        hub_file, "hub", "list", "results", "--category", categories.pop(), capsys=capsys
    )
    assert code == 0 and len(out.splitlines()) == 4
    code, _, err = run(hub_file, "hub", "list", "results", "--status", "bad", capsys=capsys)
    assert code == 2 and "--status 'bad': results are pass, fail, error, skip" in err
    code, _, err = run(hub_file, "hub", "list", "scans", "--status", "fail", capsys=capsys)
    assert code == 2 and "filter results and attempts, not scans" in err


def test_list_attempts(hub_file, capsys) -> None:
    code, out, _ = run(hub_file, "hub", "list", "attempts", "--status", "vulnerable", capsys=capsys)
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith(f"attempts of scan {hub_file['scan'][-8:]} ")
    assert lines[1].split() == ["ID", "VERDICT", "CATEGORY", "PROBE", "REASON"]
    assert [line.split()[:2] for line in lines[2:]] == [[hub_file["attempt"][-8:], "vulnerable"]]
    code, out, _ = run(
        hub_file, "hub", "list", "attempts", "--scan", hub_file["scan"], "--category",
        "prompt_injection", capsys=capsys,
    )  # fmt: skip
    assert code == 0 and out.splitlines()[1] == "no attempts match"


def test_show_evaluation_lists_the_failed_and_errored_cases_with_their_reasons(
    hub_file, capsys
) -> None:
    code, out, _ = run(hub_file, "hub", "show", hub_file["evaluation"][-8:], capsys=capsys)
    assert code == 0 and "pass rate 25% [95% CI 5%–70%] (3 of 4 judged; 1 errored)" in out
    listed = out.split("Failed and errored test cases (3; giskard-nb hub show ID shows one):\n")[1]
    ids = hub_file["results"]
    for question in ("closed?", "crash?", "hostile?"):
        assert f"  {ids[question][-8:]}  " in listed
    assert ids["open?"][-8:] not in listed
    assert "why:   string_match: The text does not contain the keyword 'open'." in listed
    assert "why:   RuntimeError during target: the agent fell over" in listed


def test_show_result_gives_the_conversation_and_every_check(hub_file, capsys) -> None:
    result_id = hub_file["results"]["closed?"]
    code, out, _ = run(hub_file, "hub", "show", result_id, capsys=capsys)
    assert code == 0
    assert out.startswith(f"Result {result_id[-8:]} of evaluation {hub_file['evaluation'][-8:]} ")
    assert "Conversation:\n  user: closed?\n  assistant (agent): No idea.\n" in out
    assert "Checks:\n  FAIL  string_match: The text does not contain the keyword 'open'." in out
    ok = run(hub_file, "hub", "show", hub_file["results"]["open?"][-8:], capsys=capsys)[1]
    assert "\n  PASS  string_match: The text contains the keyword 'open'." in ok


def test_ids_by_their_start_or_end_and_ambiguous_ones(hub_file, capsys) -> None:
    result_id = hub_file["results"]["crash?"]
    for ref in (result_id[:-1], result_id[-5:], result_id[-8:].upper()):
        code, out, err = run(hub_file, "hub", "show", ref, capsys=capsys)
        assert code == 0 and out.startswith(f"Result {result_id[-8:]} "), err
    # time-ordered ids: everything written in the same minute shares its first 8 characters
    code, _, err = run(hub_file, "hub", "show", result_id[:8], capsys=capsys)
    assert code == 2 and f"{result_id[:8]!r} is ambiguous: " in err
    assert f"\n  result     {result_id}" in err or "more than 10" in err
    assert f"\n  project    {hub_file['project']}" in err
    for bad, reason in (("abc", "an id is hexadecimal"), ("zzzzzz", "an id is hexadecimal")):
        code, _, err = run(hub_file, "hub", "show", bad, capsys=capsys)
        assert code == 2 and f"no record with id {bad!r}" in err and reason in err
    code, _, err = run(
        hub_file, "hub", "list", "results", "--evaluation", "ffff0000", capsys=capsys
    )
    assert code == 2 and "--evaluation: no record with id 'ffff0000'" in err
    code, _, err = run(
        hub_file, "hub", "list", "results", "--evaluation", hub_file["scan"][-8:], capsys=capsys
    )
    assert code == 2 and "no evaluation id starts or ends with it" in err


def test_agent_text_is_printed_without_terminal_controls(hub_file, capsys) -> None:
    outputs = [
        run(hub_file, "hub", "show", hub_file["results"]["hostile?"], capsys=capsys)[1],
        run(hub_file, "hub", "show", hub_file["evaluation"], capsys=capsys)[1],
        run(hub_file, "hub", "list", "results", capsys=capsys)[1],
        run(hub_file, "hub", "show", hub_file["attempt"], capsys=capsys)[1],
        run(hub_file, "hub", "list", "attempts", capsys=capsys)[1],
    ]
    for out in outputs:
        assert not any(ch in out for ch in "\x1b\x07\x9b\u202e\u2066"), repr(out)
    assert "=HYPERLINK(1) RED evil" in outputs[0] and "OK" in outputs[3]


def test_show_scan_and_attempt(hub_file, capsys) -> None:
    code, out, _ = run(hub_file, "hub", "show", hub_file["scan"], capsys=capsys)
    assert code == 0 and "== Scan " in out and "grade " in out
    findings = out.split("Attempts with a finding (giskard-nb hub show ID shows the conversation):")
    assert findings[1].splitlines()[1].split() == ["ID", "VERDICT", "CATEGORY", "PROBE", "REASON"]
    row = findings[1].splitlines()[2].split()
    assert row[:2] == [hub_file["attempt"][-8:], "vulnerable"], findings[1]
    assert row[3] == "improper_output_handling"  # after the severity
    code, out, _ = run(hub_file, "hub", "show", hub_file["attempt"][-8:], capsys=capsys)
    assert code == 0 and f"Attempt {hub_file['attempt'][-8:]} of scan" in out
    assert "probe: output.ansi_escape " in out and "\nConversation:\n  user: " in out


def test_export_by_suffix_and_format(hub_file, capsys, tmp_path) -> None:
    ev = hub_file["evaluation"]
    for name in ("report.junit.xml", "report.xml"):
        code, _, err = run(hub_file, "hub", "export", ev, "-o", str(tmp_path / name), capsys=capsys)
        assert code == 0, err
        suite = ET.parse(tmp_path / name).getroot().find("testsuite")
        assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("4", "2", "1")
    code, _, err = run(hub_file, "hub", "export", ev, "-o", str(tmp_path / "r.csv"), capsys=capsys)
    with (tmp_path / "r.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert code == 0 and len(rows) == 4
    hostile = next(r for r in rows if "HYPERLINK" in r["agent_output"])
    assert hostile["agent_output"].startswith("'=HYPERLINK(1)")  # not run by a spreadsheet
    sarif = tmp_path / "scan.sarif.json"
    code, _, err = run(hub_file, "hub", "export", hub_file["scan"], "-o", str(sarif), capsys=capsys)
    assert code == 0 and json.loads(sarif.read_text(encoding="utf-8"))["version"] == "2.1.0"
    target = str(tmp_path / "x.dat")
    code, _, err = run(
        hub_file, "hub", "export", ev, "-o", target, "--format", "csv", capsys=capsys
    )
    assert code == 0 and (tmp_path / "x.dat").read_text(encoding="utf-8").startswith(
        "evaluation_id,result_id,"
    )


def test_export_errors_name_the_fix(hub_file, capsys, tmp_path, monkeypatch) -> None:
    ev = hub_file["evaluation"]
    code, _, err = run(hub_file, "hub", "export", ev, "-o", str(tmp_path / "x.txt"), capsys=capsys)
    assert code == 2 and "cannot tell the format from the file name: name it .csv" in err
    assert "--format csv|parquet|jsonl|json|junit|sarif|html" in err
    code, _, err = run(hub_file, "hub", "export", ev, "--format", "sarif", capsys=capsys)
    assert code == 2 and "an evaluation exports as csv, parquet, jsonl, json, junit, html" in err
    code, _, err = run(hub_file, "hub", "export", ev, "--format", "junit", capsys=capsys)
    assert code == 2 and "junit is written to a file: give --output FILE" in err
    result = hub_file["results"]["open?"]
    code, _, err = run(hub_file, "hub", "export", result, capsys=capsys)
    assert code == 2 and f"export its evaluation: giskard-nb hub export {ev[-8:]} -o FILE" in err

    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "pyarrow" else real(name, *a)
    )
    code, _, err = run(
        hub_file, "hub", "export", ev, "-o", str(tmp_path / "r.parquet"), capsys=capsys
    )
    assert code == 2 and "pip install 'giskard-nb[parquet]'" in err
    assert not (tmp_path / "r.parquet").exists()


def test_export_html_writes_the_report(hub_file, capsys, tmp_path):
    """``hub export ID -o x.html``: the self-contained report of giskard_nb.report, for a scan and an
    evaluation (the format read from the suffix)."""
    for ref in (hub_file["scan"], hub_file["evaluation"]):
        target = tmp_path / f"{ref}.html"
        code, _, err = run(hub_file, "hub", "export", ref, "-o", str(target), capsys=capsys)
        assert code == 0, err
        page = target.read_text(encoding="utf-8")
        assert page.startswith("<!DOCTYPE html>") or page.lower().startswith("<!doctype html>")
        assert "Content-Security-Policy" in page and "<script src=" not in page


@pytest.mark.parametrize("args", [("hub", "show", "EVALUATION"), ("--help",)])
def test_a_closed_pipe_ends_quietly(hub_file, tmp_path, args) -> None:
    """``giskard-nb hub show ID | head -0``: the reader is gone before anything is written."""
    words = [hub_file["evaluation"] if a == "EVALUATION" else a for a in args]
    if words[0] == "hub":
        words += ["--hub", hub_file["db"]]
    read_end, write_end = os.pipe()
    os.close(read_end)
    env = {**os.environ, "PYTHONPATH": str(REPO), "GISKARD_NB_HOME": str(tmp_path)}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "giskard_nb.cli", *words],
            stdout=write_end, stderr=subprocess.PIPE, env=env, timeout=120, text=True,
        )  # fmt: skip
    finally:
        os.close(write_end)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # no traceback, no "Exception ignored"


def test_eval_takes_a_registered_agent_by_its_short_id(tmp_path, http_agent, capsys) -> None:
    from giskard_nb.hub import Hub

    db = str(tmp_path / "hub.db")
    with Hub(db) as hub:
        project = hub.projects.create("p")
        agent = hub.agents.create(project.id, name="echo", url=http_agent)
        dataset = hub.datasets.create(project.id, name="d")
        hub.test_cases.create(dataset.id, messages="hi", checks=[CHECK])
    args = ["eval", "--dataset", dataset.id, "--hub", db, "--no-progress", "--agent"]
    assert main([*args, agent.id[-8:]]) == 1  # "Hello: hi" has no "open": it ran, and failed
    assert "0 pass, 1 fail, 0 error" in capsys.readouterr().out
    assert main([*args, "abcd0000"]) == 2
    assert "no registered agent has that id or name" in capsys.readouterr().err


def test_eval_prints_an_agent_error_without_terminal_controls(tmp_path, capsys, monkeypatch):
    (tmp_path / "hostile_agent.py").write_text(
        f"def answer(messages):\n    raise RuntimeError({HOSTILE!r})\n", encoding="utf-8"
    )
    (tmp_path / "cases.jsonl").write_text(json.dumps({"messages": "hi", "checks": [CHECK]}) + "\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    code = main(
        ["eval", "--dataset", "cases.jsonl", "--agent", "hostile_agent:answer", "--memory",
         "--no-progress"]
    )  # fmt: skip
    captured = capsys.readouterr()
    # the reason shows the controls as escapes (core.reasons), the rest of the line loses them
    why = r"why:   RuntimeError during target: =HYPERLINK(1) \x1b]0;pwned\x07\x1b[2J\x1b[31mRED"
    assert code == 1 and why in captured.out, captured.out
    for text in (captured.out, captured.err):
        assert not any(ch in text for ch in "\x1b\x07\x9b\u202e\u2066"), repr(text)
