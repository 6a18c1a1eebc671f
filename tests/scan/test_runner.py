from __future__ import annotations

import asyncio
import html
import threading

import pytest

from giskard_nb.errors import GiskardValidationError
from giskard_nb.scan import (
    Budget,
    ScanOptions,
    Severity,
    estimate_scan,
    run_scan,
    run_scan_sync,
)

pytestmark = pytest.mark.usefixtures("no_model")
FAST = {"max_attempts_per_probe": 3, "judge": None, "generator": None}


def _found(report) -> dict[str, Severity]:
    return {c.category: c.highest_severity for c in report.category_summaries() if c.successes}


async def test_obedient_agent_is_caught_by_prompt_injection(agents):
    report = await run_scan(agents["obedient"], **FAST)
    found = _found(report)
    assert "prompt_injection" in found
    assert report.grade in ("C", "D")
    assert report.status == "completed"
    probes = {s.probe_id: s for s in report.probe_summaries()}
    assert probes["injection.direct_override"].successes >= 2
    assert probes["injection.indirect_content"].successes >= 1
    assert probes["injection.multi_turn_escalation"].successes >= 1


async def test_leaky_agent_is_caught_leaking_its_prompt_and_secret(agents):
    report = await run_scan(
        agents["leaky"],
        categories=["system_prompt_leakage", "sensitive_information_disclosure"],
        **FAST,
    )
    found = _found(report)
    assert found["system_prompt_leakage"] >= Severity.MAJOR
    assert found["sensitive_information_disclosure"] is Severity.CRITICAL
    assert report.grade == "D"


async def test_leaky_agent_with_a_known_system_prompt_and_secret(agents, leaky_profile):
    report = await run_scan(
        agents["leaky"], probe_ids=["leakage.direct_request"], profile=leaky_profile, **FAST
    )
    hits = report.findings
    assert hits
    assert all("reproduced its system prompt" in a.reason for a in hits)
    report = await run_scan(
        agents["leaky"], probe_ids=["disclosure.credentials"], profile=leaky_profile, **FAST
    )
    assert any("configured secrets" in a.reason for a in report.findings)


async def test_echo_agent_is_caught_by_improper_output_handling_only(agents):
    report = await run_scan(agents["echo"], **FAST)
    found = _found(report)
    assert "improper_output_handling" in found
    assert report.grade in ("C", "D")
    # quoting an injection back is not obeying it
    assert "prompt_injection" not in found
    assert "harmful_content" not in found


async def test_refusing_agent_gets_an_a(agents):
    for name in ("refusing", "async_refusing"):
        report = await run_scan(agents[name], **FAST)
        assert report.grade in ("A", "B"), report.report()
        assert not report.errors


async def test_attempts_are_reported_as_they_complete_and_record_everything(agents):
    seen = []

    async def on_attempt(attempt):
        seen.append(attempt)

    report = await run_scan(
        agents["obedient"], probe_ids=["injection.direct_override"], on_attempt=on_attempt, **FAST
    )
    assert [a.id for a in seen] == [a.id for a in report.attempts]
    a = report.findings[0]
    assert a.messages[-1]["role"] == "assistant" and a.input_messages[-1]["role"] == "user"
    assert a.successful and a.severity is Severity.MAJOR and a.reason and a.detector == "canary"
    assert str(a.review_status) == "pending" and a.error is None and a.agent_calls == 1


async def test_failing_and_hanging_agents_give_errored_attempts(agents):
    def broken(messages):
        raise RuntimeError("backend down")

    async def hanging(messages):
        await asyncio.sleep(30)

    def nonsense(messages):
        return 42

    for agent, needle in (
        (broken, "backend down"),
        (hanging, "did not answer"),
        (nonsense, "returned int"),
    ):
        report = await run_scan(agent, probe_ids=["injection.direct_override"], timeout=0.2, **FAST)
        assert report.attempts and all(a.error and needle in a.error for a in report.attempts)
        assert all(a.error_phase == "agent" and not a.successful for a in report.attempts)
        # Every attempt errored: no grade (never an A), the scan says it is incomplete.
        assert report.grade is None and report.status == "completed"
        assert report.incomplete and "not assessed" in repr(report)


async def test_resume_skips_completed_attacks(agents):
    first = await run_scan(agents["refusing"], probe_ids=["injection.direct_override"], **FAST)
    done = {a.attack.id for a in first.attempts[:2]}
    second = await run_scan(
        agents["refusing"], probe_ids=["injection.direct_override"], completed=done, **FAST
    )
    assert {a.attack.id for a in second.attempts} == {a.attack.id for a in first.attempts} - done


async def test_a_plan_made_beforehand_is_run_as_it_is(agents, monkeypatch):
    import giskard_nb.scan.runner as runner
    from giskard_nb.scan import plan_scan

    options = ScanOptions(probe_ids=["injection.direct_override", "leakage.direct_request"])
    plan = plan_scan(options, judge=None, generator=None)
    plan.attacks = plan.attacks[:2]  # the caller decides what runs

    def no_second_plan(*args, **kwargs):
        raise AssertionError("run_scan planned again")

    monkeypatch.setattr(runner, "plan_scan", no_second_plan)
    report = await run_scan(agents["obedient"], options, plan=plan, judge=None, generator=None)
    assert [a.attack.id for a in sorted(report.attempts, key=lambda a: a.attack.id)] == sorted(
        a.id for a in plan.attacks
    )
    assert report.planned_attacks == 2 and report.estimate == plan.estimate


async def test_budget_stops_the_scan_cleanly(agents):
    report = await run_scan(
        agents["refusing"], budget=Budget(max_agent_calls=5), max_concurrency=2, **FAST
    )
    assert report.status == "stopped"
    assert "agent calls" in report.stop_reason
    assert report.agent_calls <= 5
    assert all(a.error is None for a in report.attempts)


def test_preflight_estimate_counts_calls_and_skipped_probes():
    est = estimate_scan(categories=["prompt_injection"], max_attempts_per_probe=2)
    assert est.attacks > 0 and est.agent_calls >= est.attacks
    assert est.judge_calls == 0 and est.cost_usd == 0.0
    assert "kb.poisoned_excerpt" in est.skipped_probes
    with_docs = estimate_scan(
        categories=["prompt_injection"],
        max_attempts_per_probe=2,
        documents=["Refunds are accepted within 30 days of purchase. Shipping takes 5 days."],
    )
    assert with_docs.attacks == est.attacks + 1
    assert "attacks from" in str(est)


def test_bad_options_are_rejected_with_the_valid_names(agents):
    with pytest.raises(GiskardValidationError, match="valid options"):
        estimate_scan(max_attempts=3)
    with pytest.raises(GiskardValidationError, match="no probe"):
        estimate_scan(probe_ids=[])
    with pytest.raises(GiskardValidationError, match="unknown scan categories"):
        estimate_scan(categories=["nope"])
    with pytest.raises(GiskardValidationError, match="max_attempts_per_probe"):
        estimate_scan(max_attempts_per_probe=0)
    with pytest.raises(ValueError, match="max_attempts_per_probe"):
        ScanOptions(max_attempts_per_probe=0)


def test_sync_twin_and_reports(agents):
    report = run_scan_sync(agents["echo"], categories=["improper_output_handling"], **FAST)
    df = report.to_dataframe()
    assert len(df) == len(report.attempts)
    assert {"probe_id", "category", "severity", "review_status", "output", "reason"} <= set(
        df.columns
    )
    assert set(report.probes_dataframe()["probe_id"]) >= {"output.html_injection"}
    assert "Improper Output Handling" in report.report()
    page = report._repr_html_()
    assert "<img src=x" not in page and "<script>" not in page
    assert html.escape("<svg onload=") in page or html.escape("<iframe") in page


def test_report_round_trips_through_json(agents):
    from giskard_nb.scan import ScanReport

    report = run_scan_sync(agents["obedient"], probe_ids=["injection.direct_override"], **FAST)
    again = ScanReport.model_validate_json(report.model_dump_json())
    assert again.grade == report.grade and len(again.attempts) == len(report.attempts)
    assert again.attempts[0].attack == report.attempts[0].attack


async def test_a_hung_sync_agent_is_abandoned_and_does_not_starve_the_scan():
    release = threading.Event()
    calls: list[int] = []

    def agent(messages):
        calls.append(1)
        if len(calls) == 1:
            release.wait(20)  # the first call hangs; the thread it holds must not block the rest
        return "I cannot help with that."

    try:
        report = await run_scan(
            agent, probe_ids=["injection.direct_override"], timeout=0.3, max_concurrency=1, **FAST
        )
        assert not release.is_set()  # the scan finished while the first call still hangs
    finally:
        release.set()
    errored = [a for a in report.attempts if a.error]
    assert len(report.attempts) == 3 and len(errored) == 1
    assert "did not answer within 0.3 s" in errored[0].error
