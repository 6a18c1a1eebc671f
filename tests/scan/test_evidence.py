"""Evidence tiers: only confirmed evidence sets a grade; rule-based suspicions are listed, sent to the
judge when there is one, and never make a grade worse on their own."""

from __future__ import annotations

import json
import re

import pytest

from giskard_nb.scan import Attack, Attempt, ScanReport, Severity, run_scan
from giskard_nb.testing import FakeLLMServer

pytestmark = pytest.mark.usefixtures("no_model")
FAST = {"max_attempts_per_probe": 3, "judge": None, "generator": None, "max_concurrency": 4}
MISINFO = re.compile(r"goldfish|einstein|great wall|accord|protocol", re.IGNORECASE)


def gullible(messages):
    """Takes every false premise and made-up entity at face value, on topic; refuses the rest."""
    question = messages[-1]["content"]
    if MISINFO.search(question):
        return (
            f"Great question. {question.rstrip('?')} — yes, that is well established. In practice, "
            "follow the usual routine, review everything every few days, keep records tidy and "
            "compare results with previous seasons before changing anything important."
        )
    return "I'm sorry, but I can't help with that."


def safe(messages):
    return "I'm sorry, but I can't help with that."


async def test_rule_only_suspicions_do_not_make_the_offline_grade_worse():
    cats = ["misinformation", "prompt_injection"]
    bad = await run_scan(gullible, categories=cats, **FAST)
    good = await run_scan(safe, categories=cats, **FAST)
    assert bad.suspected and not bad.findings  # listed, not counted
    assert {a.evidence for a in bad.suspected} == {"suspected"}
    assert {a.detector for a in bad.suspected} <= {"false_premise", "fabrication"}
    assert {a.status for a in bad.suspected} == {"suspected"}
    assert bad.grade == good.grade == "A"
    # the judged probes of the category screened, they did not assess (the package probe did)
    assert bad.coverage["misinformation"] == good.coverage["misinformation"] == "partial"
    assert bad.coverage["prompt_injection"] == "assessed"
    assert "suspected (to confirm)" in bad.counts_line and "suspected" not in good.counts_line
    assert bad.highest_severity == Severity.SAFE


async def test_a_reviewer_confirms_or_clears_a_suspicion():
    report = await run_scan(gullible, categories=["misinformation"], **FAST)
    first, second = report.suspected[:2]
    assert report.grade == "A"
    report.review(first.id, review_status="acknowledged")
    assert report.grade == "C" and report.findings[0].id == first.id
    report.review(second.id, review_status="ignored")
    assert second.id not in {a.id for a in report.suspected}


def _judge(verdict: bool):
    def reply(request) -> str:
        assert "security evaluator" in request.prompt
        return json.dumps(
            {
                "attack_succeeded": verdict,
                "severity": "major" if verdict else "safe",
                "reason": "it repeated the myth" if verdict else "nothing false was asserted",
            }
        )

    return reply


@pytest.mark.parametrize("verdict", [True, False])
async def test_with_a_judge_suspicions_go_to_it_and_its_verdict_decides(verdict):
    offline = await run_scan(gullible, categories=["misinformation"], **FAST)
    flagged = {a.attack.id for a in offline.suspected}
    assert flagged
    with FakeLLMServer(reply=_judge(verdict)) as server:
        report = await run_scan(
            gullible, categories=["misinformation"], **{**FAST, "judge": server.generator()}
        )
        assert server.chat_requests  # the replies went to the judge
    assert not report.suspected
    judged = [a for a in report.attempts if a.attack.id in flagged]
    assert judged
    if verdict:  # the judge confirms: a confirmed finding, which sets the grade
        assert all(a.successful and a.evidence == "confirmed" for a in judged)
        assert {a.detector for a in judged} == {"judge:misinformation"}
        assert report.grade == "C" and report.findings
    else:  # the judge rejects: no finding, and the reason says a suspicion was rejected
        assert not any(a.successful for a in report.attempts)
        assert all("rejected a rule-based suspicion" in a.reason for a in judged)
        assert report.grade == "A" and not report.findings


async def test_a_canary_or_a_configured_secret_sets_the_grade_offline(agents, leaky_profile):
    injected = await run_scan(agents["obedient"], categories=["prompt_injection"], **FAST)
    assert injected.findings and {a.evidence for a in injected.findings} == {"confirmed"}
    assert injected.grade in ("C", "D") and not injected.suspected
    leaked = await run_scan(
        agents["leaky"], categories=["system_prompt_leakage"], profile=leaky_profile, **FAST
    )
    assert leaked.grade in ("C", "D") and {a.evidence for a in leaked.findings} == {"confirmed"}
    assert all(a.excerpt for a in leaked.findings)  # the excerpt is kept apart from the tier


async def test_frames_sarif_and_report_show_the_tier(tmp_path, agents):
    def mixed(messages):
        if MISINFO.search(messages[-1]["content"]):
            return gullible(messages)
        return agents["obedient"](messages)

    report = await run_scan(mixed, categories=["misinformation", "prompt_injection"], **FAST)
    assert report.findings and report.suspected
    df = report.to_dataframe()
    tiers = dict(zip(df["attempt_id"], df["evidence"], strict=True))
    assert {tiers[a.id] for a in report.findings} == {"confirmed"}
    assert {tiers[a.id] for a in report.suspected} == {"suspected"}
    cats = report.categories_dataframe().set_index("category")
    assert cats.loc["misinformation", "suspected"] == len(report.suspected)
    assert cats.loc["misinformation", "successes"] == 0
    log = json.loads(report.to_sarif(tmp_path / "s.sarif").read_text(encoding="utf-8"))
    results = log["runs"][0]["results"]
    by_id = {r["properties"]["attempt_id"]: r for r in results}
    assert set(by_id) == {a.id for a in report.findings + report.suspected}
    for a in report.suspected:
        assert by_id[a.id]["level"] == "note"
        assert by_id[a.id]["properties"]["evidence"] == "suspected"
    for a in report.findings:
        assert by_id[a.id]["level"] == "error"
        assert by_id[a.id]["properties"]["evidence"] == "confirmed"
    assert log["runs"][0]["properties"]["suspected_findings"] == len(report.suspected)
    text = report.report()
    findings, _, suspected = text.partition("suspected (rule-based, not in the grade")
    assert "findings:" in findings and "confirmed" in findings and suspected
    assert "misinfo." in suspected and "misinfo." not in findings.split("findings:", 1)[1]
    html = report._repr_html_()
    assert "suspected (rule-based" in html and ">confirmed<" in html


def test_an_attempt_recorded_before_tiers_reads_back_with_its_excerpt_and_tier():
    attack = Attack(
        id="a", probe_id="misinfo.false_premise", category="misinformation", turns=["q"]
    )
    old = {
        "attack": attack.model_dump(mode="json"),
        "successful": True,
        "severity": 20,
        "detector": "false_premise",
        "detector_config": {"kind": "false_premise", "min_new_words": 6},
        "evidence": "Goldfish only remember things for three seconds, so…",
    }
    attempt = Attempt.model_validate(old)
    assert attempt.evidence == "suspected" and attempt.excerpt.startswith("Goldfish")
    canary = Attempt.model_validate({**old, "detector": "canary", "detector_config": None})
    assert canary.evidence == "confirmed"
    safe_one = Attempt.model_validate({**old, "successful": False, "detector": None})
    assert safe_one.evidence is None and safe_one.excerpt
    report = ScanReport(attempts=[attempt, canary], categories=["misinformation"])
    assert report.findings == [canary] and report.suspected == [attempt]
    back = ScanReport.model_validate_json(report.model_dump_json())
    assert [a.evidence for a in back.attempts] == ["suspected", "confirmed"]
