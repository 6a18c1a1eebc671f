"""SARIF 2.1.0 export of a scan report: one result per finding, OWASP ids as rules, escaping intact."""

from __future__ import annotations

import json

from giskard_nb.scan import run_scan_sync

FAST = {"judge": None, "generator": None, "max_attempts_per_probe": 2, "max_concurrency": 8}


def test_findings_become_sarif_results_with_owasp_rules(agents, tmp_path):
    report = run_scan_sync(agents["leaky"], categories=["system_prompt_leakage"], **FAST)
    assert report.findings, "the leaky agent must be caught"
    path = report.to_sarif(tmp_path / "scan.sarif", agent_name="leaky-bot")
    log = json.loads(path.read_text(encoding="utf-8"))
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    (run,) = log["runs"]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    assert "LLM07:2025" in rules and rules["LLM07:2025"]["shortDescription"]["text"]
    assert len(run["results"]) == len(report.findings)
    for result in run["results"]:
        assert result["ruleId"] in rules
        assert result["level"] in {"error", "warning", "note"}
        assert result["message"]["text"]
        assert result["locations"][0]["logicalLocations"][0]["name"] == "leaky-bot"
        assert result["properties"]["attempt_id"] in {a.id for a in report.findings}
    assert run["properties"]["attempts"] == len(report.attempts)


def test_a_clean_scan_is_a_valid_log_with_no_results(agents, tmp_path):
    report = run_scan_sync(agents["refusing"], categories=["prompt_injection"], **FAST)
    log = json.loads(report.to_sarif(tmp_path / "clean.sarif").read_text(encoding="utf-8"))
    assert log["runs"][0]["results"] == [] and log["runs"][0]["tool"]["driver"]["rules"] == []


def test_agent_text_is_kept_as_data_and_truncated(agents, tmp_path):
    def agent(messages):
        return "<script>alert(1)</script> " + agents["leaky"](messages) + " " + "x" * 2000

    report = run_scan_sync(agent, categories=["system_prompt_leakage"], **FAST)
    text = report.to_sarif(tmp_path / "s.sarif").read_text(encoding="utf-8")
    log = json.loads(text)
    assert log["runs"][0]["results"]
    assert "<script>" in log["runs"][0]["results"][0]["properties"]["reply"]  # data, as written
    for result in log["runs"][0]["results"]:
        assert len(result["properties"]["reply"]) <= 501
