"""Honest scan reports: coverage per category, ``incomplete``, and every view saying so.

An agent that complies with everything must never be presented as a complete A: offline, the
categories no rule can judge are ``not_assessed``; with a judge that answers junk or fails, the errored
attempts make the scan incomplete (and, when nothing was judged, there is no grade at all).
"""

from __future__ import annotations

import json

import pytest

from giskard_nb.scan import Probe, ScanReport, estimate_scan, run_scan, run_scan_sync
from giskard_nb.scan.coverage import compute_coverage, counts_line
from giskard_nb.scan.detectors import ComplianceDetector

pytest.importorskip("giskard_nb.testing")
from giskard_nb.testing import FakeLLMServer
from giskard_nb.testing.replies import FakeReply

# misinformation is partial offline: its package-hallucination probes are decided by rules.
JUDGE_CATEGORIES = {
    "harmful_content",
    "brand_damage",
    "legal_financial_risk",
    "unauthorized_advice",
}
FAST = {"max_attempts_per_probe": 1, "generator": None}


def complying_agent(messages):
    return "Sure! Here is exactly how to do it, step by step…"


def _views(report: ScanReport) -> dict[str, str]:
    """The text of every view of a report (repr, HTML card, report(), frames, the Plotly card)."""
    card = report.plot_grade_card()
    return {
        "repr": repr(report),
        "html": report._repr_html_(),
        "report": report.report(),
        "frame": report.categories_dataframe().attrs["grade_line"],
        "plotly": " ".join(a.text for a in card.layout.annotations) + card.layout.title.text,
    }


@pytest.fixture(scope="module")
def offline_report():
    from giskard_nb.llm import set_default_generator

    set_default_generator(None)
    return run_scan_sync(complying_agent, judge=None, **FAST)


def test_offline_scan_of_everything_is_never_a_complete_a(offline_report):
    report = offline_report
    assert report.incomplete
    not_assessed = {c for c, s in report.coverage.items() if s == "not_assessed"}
    assert not_assessed == JUDGE_CATEGORIES
    assert set(report.coverage) == {c.id for c in __import__("giskard_nb.scan").scan.CATEGORIES}
    assert report.coverage["prompt_injection"] == "assessed"
    assert report.grade == "A"  # the letter over what was assessed...
    assert report.grade_line.startswith(
        "A on 8 of 12 categories — incomplete: 4 need a judge model"
    )
    assert report.coverage["misinformation"] == "partial"
    for name, text in _views(report).items():  # ...and every view says it is not a complete A
        assert "incomplete" in text, name
    assert "set_default_generator" in report.report()
    frame = report.categories_dataframe()
    assert "coverage" in frame.columns and frame.attrs["incomplete"] is True
    assert set(frame.loc[frame.coverage == "not_assessed", "category"]) == JUDGE_CATEGORIES
    reasons = frame.set_index("category").coverage_reason
    assert reasons["harmful_content"] == "6 probes need a judge model"


def test_offline_scan_records_and_warns_before_running(offline_report):
    assert offline_report.unjudged["harm.direct_request"] == "harmful_content"
    assert "injection.direct_override" not in offline_report.unjudged
    assert any("cannot be assessed" in w for w in offline_report.warnings)


def test_preflight_lists_what_cannot_be_assessed(no_model):
    est = estimate_scan(judge=None)
    assert {c for c, s in est.coverage.items() if s == "not_assessed"} == JUDGE_CATEGORIES
    warning, partly = est.warnings
    assert "4 of 12 selected categories cannot be assessed" in warning
    assert "misinformation will only be partly assessed" in partly
    assert all(c in warning for c in JUDGE_CATEGORIES)
    assert "set_default_generator(" in warning and "GISKARD_NB_MODEL" in warning
    assert "warning: without a judge model" in str(est)
    # the default judge is the configured default generator, as in run_scan
    assert estimate_scan(categories=["harmful_content"]).warnings  # none configured
    with FakeLLMServer() as server:
        est = estimate_scan(judge=server.generator())
        assert est.warnings == [] and set(est.coverage.values()) == {"assessed"}
        off = estimate_scan(judge=server.generator(), use_judge=False, categories=["brand_damage"])
        assert "use_judge=False" in off.warnings[0] and "drop use_judge=False" in off.warnings[0]
        assert not server.requests  # the preflight never calls a model
    rules_only = estimate_scan(categories=["prompt_injection", "improper_output_handling"])
    assert rules_only.warnings == [] and set(rules_only.coverage.values()) == {"assessed"}


def test_preflight_warns_when_nothing_can_run(no_model):
    est = estimate_scan(probe_ids=["kb.poisoned_excerpt"])
    assert est.coverage == {"prompt_injection": "not_assessed"}
    assert "nothing will run" in est.warnings[0] and "documents" in est.warnings[0]


async def test_a_complete_scan_is_a_plain_a(agents):
    report = await run_scan(agents["refusing"], categories=["prompt_injection"], judge=None, **FAST)
    assert not report.incomplete and report.grade == "A" and report.grade_line == "A"
    assert set(report.coverage.values()) == {"assessed"}
    assert "incomplete" not in repr(report) and "incomplete" not in report.report()
    assert "incomplete" not in report._repr_html_()


@pytest.mark.parametrize(
    "reply",
    [
        "I think it is fine?? maybe not harmful",
        FakeReply.fail(500),
    ],
    ids=["junk", "http-500"],
)
async def test_a_junk_or_failing_judge_makes_the_scan_incomplete(reply, no_model):
    with FakeLLMServer(reply=reply) as server:
        report = await run_scan(
            complying_agent,
            categories=["prompt_injection", "harmful_content", "brand_damage"],
            judge=server.generator(max_retries=0, timeout=5),
            **FAST,
        )
    assert report.errors and not report.findings
    assert all(a.error_phase == "detector" for a in report.errors)
    assert report.incomplete
    assert report.coverage["harmful_content"] == "not_assessed"
    assert report.coverage_details.categories["harmful_content"].causes == ["errors"]
    judged = len(report.attempts) - len(report.errors)
    assert report.counts_line == (
        f"0 findings in {judged} judged attempts; {len(report.errors)} errored"
    )
    assert f"{len(report.errors)} attempts errored" in report.grade_line
    for name, text in _views(report).items():
        assert "incomplete" in text, name
        assert "0 findings / " not in text, name


async def test_all_attempts_errored_means_no_grade(no_model):
    def broken(messages):
        raise RuntimeError("backend down")

    report = await run_scan(broken, categories=["prompt_injection"], judge=None, **FAST)
    assert report.grade is None and report.incomplete
    assert report.coverage == {"prompt_injection": "not_assessed"}
    assert report.grade_line.startswith("— not assessed — incomplete: 1 not assessed")
    views = _views(report)
    assert all("incomplete" in text for text in views.values())
    assert ">—</div>" in views["html"] and "grade=— not assessed" in views["repr"]
    assert "<b>—</b>" in report.plot_grade_card().layout.annotations[0].text


async def test_a_stopped_scan_is_incomplete(agents, no_model):
    report = await run_scan(
        agents["refusing"],
        categories=["prompt_injection"],
        judge=None,
        budget={"max_agent_calls": 2},
        **FAST,
    )
    assert report.status == "stopped" and report.incomplete
    assert "planned attacks did not run" in report.coverage_details.note


def test_coverage_rules():
    cov = compute_coverage(
        categories=["a", "b", "c", "d", "e"],
        unjudged={"b.judge": "b", "c.judge": "c", "e.judge": "e"},
        attempts=[
            ("a.rule", "a", False),
            ("a.rule", "a", True),  # a: some attempts errored -> partial
            ("b.rule", "b", False),
            ("b.judge", "b", False),  # b: one probe lacked its judge -> partial
            ("c.judge", "c", False),  # c: only unjudged probes ran -> not assessed
            ("d.rule", "d", True),  # d: every attempt errored -> not assessed
        ],  # e: skipped for want of a judge, no attempt -> not assessed
    )
    assert cov.status == {
        "a": "partial",
        "b": "partial",
        "c": "not_assessed",
        "d": "not_assessed",
        "e": "not_assessed",
    }
    assert cov.categories["c"].causes == ["judge"] and cov.categories["e"].causes == ["judge"]
    assert cov.categories["d"].causes == ["errors"]
    assert cov.incomplete and cov.covered == 2
    assert cov.note == (
        "incomplete: 2 need a judge model (set_default_generator), 1 not assessed (every attempt "
        "errored), 2 partially assessed, 2 attempts errored"
    )
    empty = compute_coverage(categories=["a"], unjudged={}, attempts=[])
    assert empty.status == {"a": "not_assessed"} and "1 had no attempt" in empty.note
    full = compute_coverage(categories=["a"], unjudged={}, attempts=[("p", "a", False)])
    assert not full.incomplete and full.note == ""
    assert counts_line(1, 10, 0) == "1 finding in 10 attempts"
    assert counts_line(0, 136, 34) == "0 findings in 102 judged attempts; 34 errored"


def test_probes_declare_whether_they_need_a_judge():
    base = {
        "id": "x.p",
        "name": "p",
        "description": "d",
        "category": "harmful_content",
        "templates": [{"name": "t", "turns": ["hi"]}],
    }
    assert Probe(**base, judge="harm", fallback=[ComplianceDetector()]).needs_judge
    assert not Probe(**base, judge="harm", detectors=[ComplianceDetector()]).needs_judge
    assert Probe(
        **base, judge="harm", detectors=[ComplianceDetector()], needs_judge=True
    ).needs_judge
    with pytest.raises(ValueError, match="needs_judge=True but no judge"):
        Probe(**base, detectors=[ComplianceDetector()], needs_judge=True)
    probe = Probe(**base, judge="harm", fallback=[ComplianceDetector()])
    assert Probe.model_validate_json(probe.model_dump_json()).needs_judge


def test_report_round_trips_its_coverage(offline_report):
    again = ScanReport.model_validate_json(offline_report.model_dump_json())
    assert again.coverage == offline_report.coverage and again.incomplete
    assert again.grade_line == offline_report.grade_line


def test_an_older_report_infers_its_coverage(offline_report):
    data = json.loads(offline_report.model_dump_json())
    data.pop("categories"), data.pop("unjudged")  # written before coverage was recorded
    old = ScanReport.model_validate(data)
    assert old.coverage == offline_report.coverage and old.incomplete


async def test_views_escape_untrusted_text(no_model):
    def hostile(messages):
        return "<img src=x onerror=alert(1)> Sure! here is how <script>alert(2)</script>"

    report = await run_scan(
        hostile,
        categories=["harmful_content", "improper_output_handling"],
        judge=None,
        name="<script>alert(3)</script>",
        **FAST,
    )
    assert report.incomplete
    html = report._repr_html_()
    assert "<script>" not in html and "<img" not in html
    assert "&lt;script&gt;alert(3)" in html and "incomplete" in html
    card = report.plot_grade_card()
    assert "<script>" not in " ".join(a.text for a in card.layout.annotations)


def test_probe_table_marks_the_unjudged_probes(offline_report):
    probes = offline_report.probes_dataframe().set_index("probe_id")
    assert probes.loc["harm.direct_request", "unjudged"]
    assert not probes.loc["injection.direct_override", "unjudged"]
    assert probes.attrs["incomplete"] is True


async def test_use_judge_false_is_named_as_the_reason(no_model):
    with FakeLLMServer() as server:
        report = await run_scan(
            complying_agent,
            categories=["brand_damage"],
            judge=server.generator(),
            use_judge=False,
            **FAST,
        )
        assert not server.requests
    assert report.coverage == {"brand_damage": "not_assessed"} and report.incomplete
    assert any("use_judge=False" in w for w in report.warnings)
