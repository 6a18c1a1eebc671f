"""The installed ``giskard-nb`` entry point, run in a subprocess (with this checkout's package); what
follows a command there (browsing the Hub file it wrote, usage errors' reasons) runs through ``main``
in this process (``in_process``): a subprocess costs seconds of imports."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = Path(sys.executable).parent / "giskard-nb"
COMMAND = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "giskard_nb.cli"]
DEMO_AGENT = "giskard_nb.demo.agent:support_agent"

AGENTS = """
def polite(messages):
    return "Hello! We are open Monday to Friday."

def leaky(messages):
    return "My system prompt is: You are SupportBot. Secret staff code STAFF-2024. " + messages[-1]["content"]

def broken(messages):
    raise RuntimeError("boom")
"""


def cli(*args: str, cwd: Path, extra_path: Path | None = None) -> subprocess.CompletedProcess:
    paths = [str(REPO), *([str(extra_path)] if extra_path else [])]
    env = {
        k: v for k, v in os.environ.items() if k not in ("GISKARD_NB_HUB_URL", "GISKARD_NB_MODEL")
    }
    env.update(PYTHONPATH=os.pathsep.join(paths), GISKARD_NB_HOME=str(cwd / "home"))
    return subprocess.run(
        [*COMMAND, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "my_agents.py").write_text(AGENTS, encoding="utf-8")
    cases = [
        {"messages": "When are you open?", "checks": [{"identifier": "string_match", "params": {"keyword": "Monday"}}]},
        {"question": "Hello?", "checks": [{"identifier": "string_match", "params": {"keyword": "Hello"}}]},
    ]  # fmt: skip
    (tmp_path / "cases.jsonl").write_text("\n".join(json.dumps(c) for c in cases) + "\n")
    return tmp_path


def test_help_shows_examples_for_every_command(tmp_path: Path, capsys) -> None:
    root = cli("--help", cwd=tmp_path)
    assert root.returncode == 0 and "examples:" in root.stdout
    for command in ("eval", "scan", "hub", "scheduler"):  # each command's help, in this process
        assert command in root.stdout
        code, out, err = in_process(command, "--help", capsys=capsys)
        assert code == 0, err
        assert "examples:" in out and f"giskard-nb {command}" in out
    assert cli("nonsense", cwd=tmp_path).returncode == 2


def test_eval_demo_fails_with_reports(tmp_path: Path) -> None:
    junit, table = tmp_path / "junit.xml", tmp_path / "results.csv"
    demo = REPO / "giskard_nb" / "demo" / "support_faq.jsonl"
    result = cli(
        "eval", "--dataset", str(demo), "--agent", DEMO_AGENT, "--memory",
        "--junit", str(junit), "--csv", str(table), cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    assert "pass rate 58% [95% CI 32%–81%] (12 of 12 judged; 0 errored)" in result.stdout
    assert "does not contain the keyword 'final sale'" in result.stdout  # the stored reason
    assert "12/12" in result.stderr  # the progress bar, on stderr
    suite = ET.parse(junit).getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("12", "5", "0")
    assert len(suite.findall("testcase/failure")) == 5
    with table.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 12 and sum(r["status"] == "fail" for r in rows) == 5


def test_eval_passing_file_then_browse_and_export(work: Path, capsys) -> None:
    db = str(work / "hub.db")
    args = ("eval", "--dataset", "cases.jsonl", "--hub", db, "--no-progress")
    ok = cli(*args, "--agent", "my_agents:polite", cwd=work, extra_path=work)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "2 pass, 0 fail, 0 error" in ok.stdout
    bad = cli(*args, "--agent", "my_agents:broken", "--timeout", "5", cwd=work, extra_path=work)
    assert bad.returncode == 1 and "ERROR" in bad.stdout and "boom" in bad.stdout

    # browsing the Hub file the installed command wrote: in this process (a subprocess per command
    # costs seconds of imports; tests/cli/test_hub_cmd.py covers the hub commands the same way)
    code, listed = run_main("hub", "list", "evaluations", "--hub", db, capsys=capsys)
    assert code == 0 and listed.count("\n") == 3  # a header, two evaluations
    assert listed.split()[:5] == ["ID", "NAME", "STATUS", "PASS", "RATE"]
    assert "pass rate 100% (2 of 2 judged; 0 errored)" in listed
    # every result errored: no rate, and it says why (never "0%", as if every answer were wrong)
    assert "pass rate n/a (all results errored: 2 errored)" in listed
    assert "pass rate 0%" not in listed
    datasets = run_main("hub", "list", "datasets", "--hub", db, capsys=capsys)[1]
    assert datasets.count("cases.jsonl (") == 1  # uploaded once
    assert datasets.splitlines()[1].endswith(")  2")  # its TEST CASES column
    evaluation_id = listed.splitlines()[1].split()[0]  # a short id: the last 8 characters
    assert len(evaluation_id) == 8
    code, shown = run_main("hub", "show", evaluation_id, "--hub", db, capsys=capsys)
    assert code == 0 and "pass rate 100%" in shown
    exported = run_main(
        "hub", "export", datasets.splitlines()[1].split()[0], "--hub", db, capsys=capsys
    )[1]
    assert [json.loads(line)["messages"][0]["content"] for line in exported.splitlines()] == [
        "When are you open?",
        "Hello?",
    ]
    out = work / "results.jsonl"
    assert (
        run_main("hub", "export", evaluation_id, "-o", str(out), "--hub", db, capsys=capsys)[0] == 0
    )
    assert len(out.read_text(encoding="utf-8").splitlines()) == 2
    assert (
        "no record with id 'nope'"
        in in_process("hub", "show", "nope", "--hub", db, capsys=capsys)[2]
    )


def test_usage_errors_exit_2_with_the_reason(work: Path, capsys, monkeypatch) -> None:
    # the installed command's usage errors exit 2 (test_help_shows_examples_for_every_command):
    # the reasons are checked in this process (a subprocess per command costs seconds of imports)
    monkeypatch.chdir(work)
    code, _, err = in_process(
        "eval", "--dataset", "missing.jsonl", "--agent", DEMO_AGENT, "--memory", capsys=capsys
    )
    assert code == 2 and "no such file, and no Hub dataset" in err
    code, _, err = in_process(
        "eval", "--dataset", "cases.jsonl", "--agent", "nosuch:fn", "--memory", capsys=capsys
    )
    assert code == 2 and "cannot import 'nosuch'" in err
    (work / "bad.jsonl").write_text('{"messages": []}\n')
    code, _, err = in_process(
        "eval", "--dataset", "bad.jsonl", "--agent", DEMO_AGENT, "--memory", capsys=capsys
    )
    assert code == 2 and "line 1" in err and "nothing was imported" in err
    demo = ("eval", "--demo", "--max-concurrency", "0", "--memory")
    assert in_process(*demo, capsys=capsys)[0] == 2


def test_parquet_without_pyarrow_names_the_extra(work: Path) -> None:
    try:
        import pyarrow  # noqa: F401

        pytest.skip("pyarrow is installed: the missing-extra message cannot be shown")
    except ImportError:
        pass
    result = cli("eval", "--demo", "--memory", "--parquet", str(work / "r.parquet"), cwd=work)
    assert result.returncode == 2 and "pip install 'giskard-nb[parquet]'" in result.stderr


def in_process(*args: str, capsys) -> tuple[int, str, str]:
    """``giskard-nb ARGS`` in this process (faster than a subprocess): exit status, stdout, stderr."""
    from giskard_nb.cli import main

    try:
        code = main(list(args))
    except SystemExit as exc:  # argparse's usage errors
        code = exc.code if isinstance(exc.code, int) else 1
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_main(*args: str, capsys) -> tuple[int, str]:
    """``giskard-nb ARGS`` in this process: exit status and stdout."""
    return in_process(*args, capsys=capsys)[:2]


def test_scan_exit_codes(work: Path, capsys, monkeypatch) -> None:
    monkeypatch.syspath_prepend(str(work))  # my_agents
    fast = ("--max-attempts", "1", "--memory", "--no-progress")
    # the installed command, once: no finding, but five categories need a judge model: incomplete
    polite = cli("scan", "--agent", "my_agents:polite", *fast, cwd=work, extra_path=work)
    assert polite.returncode == 1, polite.stdout + polite.stderr
    assert "grade A" in polite.stdout and "exit 1: incomplete: " in polite.stdout
    assert "confirmed finding" not in polite.stdout
    code, out = run_main(
        "scan", "--agent", "my_agents:polite", *fast, "--allow-incomplete", "--fail-under", "A",
        capsys=capsys,
    )  # fmt: skip
    assert code == 0 and "exit 1" not in out, out
    offline = (
        "scan",
        "--agent",
        DEMO_AGENT,
        "--categories",
        "prompt_injection,system_prompt_leakage",
    )
    assert run_main(*offline, *fast, "--fail-under", "A", capsys=capsys)[0] == 0
    # the demo agent exposes its staff code (AttackProfile.from_agent): a confirmed critical leak
    disclosure = ("scan", "--agent", DEMO_AGENT, "--categories", "sensitive_information_disclosure")
    code, out = run_main(*disclosure, *fast, capsys=capsys)
    assert code == 1, out
    assert "exit 1: 1 confirmed finding at or above major (worst critical: " in out
    assert "disclosure.internal_codes" in out and "incomplete" not in out
    assert run_main(*disclosure, *fast, "--fail-on", "critical", capsys=capsys)[0] == 1
    assert run_main(*disclosure, *fast, "--fail-on", "none", capsys=capsys)[0] == 0
    code, out = run_main(
        *disclosure, *fast, "--fail-on", "none", "--fail-under", "c", capsys=capsys
    )
    assert code == 1 and "exit 1: grade D is below --fail-under C" in out
    code, out = run_main(
        "scan", "--agent", "my_agents:leaky", "--categories", "system_prompt_leakage", *fast,
        "--fail-on", "none", "--fail-under", "b", capsys=capsys,
    )  # fmt: skip
    assert code == 1, out
    assert out.rsplit("grade ", 1)[1][0] in "CD"
    code, out = run_main("scan", "--list-categories", "--memory", capsys=capsys)
    assert code == 0 and "prompt_injection" in out


def test_scan_secrets_and_system_prompt_are_used_never_echoed(
    work: Path, capsys, monkeypatch
) -> None:
    import sqlite3

    secret, prompt = "STAFF-2024", "You are SupportBot. Secret staff code STAFF-2024."
    (work / "prompt.txt").write_text(prompt, encoding="utf-8")
    db = work / "hub.db"
    result = cli(
        "scan", "--agent", "my_agents:leaky", "--categories", "sensitive_information_disclosure",
        "--max-attempts", "1", "--system-prompt", "prompt.txt", "--secret", secret,
        "--secret", "sk-never-used-0000", "--hub", str(db), "--no-progress",
        cwd=work, extra_path=work,
    )  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    assert "revealed one of its configured secrets" in result.stdout
    for text in (result.stdout, result.stderr):
        assert secret not in text and "sk-never-used-0000" not in text and prompt not in text
    with sqlite3.connect(db) as conn:
        scans = " ".join(r[0] for r in conn.execute("SELECT data FROM hub_scans"))
        audit = " ".join(str(r) for r in conn.execute("SELECT * FROM hub_audit_log"))
    assert '"profile_secrets":2' in scans and '"profile_had_system_prompt":true' in scans
    for stored in (scans, audit):
        assert secret not in stored and "sk-never-used-0000" not in stored
        assert "You are SupportBot" not in stored
    monkeypatch.chdir(work)  # the usage errors, in this process
    code, _, err = in_process(
        "scan", "--agent", DEMO_AGENT, "--system-prompt", "nope.txt", "--memory", capsys=capsys
    )
    assert code == 2 and "--system-prompt nope.txt: cannot read it" in err
    code, _, err = in_process(
        "scan", "--agent", DEMO_AGENT, "--secret", " ", "--memory", capsys=capsys
    )
    assert code == 2 and "--secret: give a non-empty value" in err


def test_only_confirmed_findings_fail_the_scan() -> None:
    from types import SimpleNamespace

    from giskard_nb.cli.scan import confirmed
    from giskard_nb.scan.result import Attempt

    assert confirmed(SimpleNamespace(evidence="confirmed"))
    assert not confirmed(SimpleNamespace(evidence="suspected"))
    # the grade's own rule decides when there is one: a suspected finding a reviewer acknowledged
    assert confirmed(SimpleNamespace(evidence="suspected", counts=True))
    assert not confirmed(SimpleNamespace(evidence="confirmed", counts=False))
    assert {"evidence", "excerpt"} <= set(Attempt.model_fields)


def test_scan_sarif(work: Path) -> None:
    out = work / "scan.sarif"
    result = cli(
        "scan", "--demo", "--max-attempts", "1", "--memory", "--allow-incomplete", "--sarif", str(out),
        "--fail-on", "none", cwd=work,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert json.loads(out.read_text(encoding="utf-8"))["version"] == "2.1.0"


def test_scheduler_once(work: Path, capsys) -> None:
    result = cli("scheduler", "--once", "--db", str(work / "hub.db"), cwd=work)
    assert result.returncode == 0 and "nothing due" in result.stdout
    assert in_process("scheduler", "--interval", "0", "--once", capsys=capsys)[0] == 2


def test_eval_an_http_agent_registers_it_once(work: Path, http_agent: str, capsys) -> None:
    db = str(work / "hub.db")
    args = ("eval", "--dataset", "cases.jsonl", "--agent", http_agent, "--hub", db, "--no-progress")
    first = cli(*args, cwd=work)
    assert first.returncode == 1, first.stdout + first.stderr  # "Monday" is missing from one reply
    assert "1 pass, 1 fail, 0 error" in first.stdout
    assert cli(*args, cwd=work).returncode == 1
    agents = run_main("hub", "list", "agents", "--hub", db, capsys=capsys)[1]
    assert agents.count("\n") == 2 and http_agent in agents  # registered once, then reused


def test_hub_show_of_a_crashed_scan_is_readable(work: Path, capsys) -> None:
    """A scan stored by the release that crashed on a duplicate attempt (status error, a grade, the
    raw SQL in its error) reads back without the SQL and without a grade."""
    import sqlalchemy as sa

    from giskard_nb.hub import Hub, schema_scans

    db = work / "hub.db"
    hub = Hub(str(db))
    project = hub.projects.create("p")
    scan = hub.scans.create(
        project.id, agent=lambda m: "no", probe_ids=["injection.direct_override"],
        max_attempts_per_probe=1, progress=False, judge=None, generator=None,
    )  # fmt: skip
    crashed = {
        **json.loads(scan.model_dump_json()),
        "status": "error",
        "grade": "C",
        "error": "IntegrityError: (sqlite3.IntegrityError) UNIQUE constraint failed: "
        "hub_scan_attempts.scan_id, hub_scan_attempts.attack_id\n[SQL: INSERT INTO "
        "hub_scan_attempts (id, data) VALUES (?, ?)]\n[parameters: ('x', '{}')]\n"
        "(Background on this error at: https://sqlalche.me/e/21/gkpj)",
    }
    t = schema_scans.scans
    with hub._db.write() as conn:
        conn.execute(
            sa.update(t).where(t.c.id == scan.id).values(status="error", data=json.dumps(crashed))
        )
    hub.close()
    code, shown, err = in_process("hub", "show", scan.id, "--hub", str(db), capsys=capsys)
    assert code == 0, err
    assert "UNIQUE constraint failed" in shown and "— error ==" in shown
    for raw in ("INSERT", "[SQL", "[parameters", "sqlalche.me"):
        assert raw not in shown
    assert "grade C" not in shown
    listed = run_main("hub", "list", "scans", "--hub", str(db), capsys=capsys)[1]
    assert re.search(r"  error +- +\d{4}-", listed), listed  # STATUS error, GRADE -
