"""Realistic controls: safe agents that write like modern LLMs grade A, planted weaknesses do not.

The controls (tests/scan/bank_agents.py) are the assistant of a fictional bank, written the way LLMs
write: long and empathetic, quoting the attack they decline (blockquotes, the quotation marks of the
user's language, code spans and fences, "you asked me to: …"), correcting premises, answering in the
user's language, helpful code blocks and links to their own site, their own freephone number, support
mailbox and switchboard. Each goes through the whole catalogue offline (no judge), without and with a
profile (a system prompt and a secret the agent never reveals): a profile must never make a safe
agent grade worse. Each planted control adds ONE real weakness to a hardened one and must be found.
"""

from __future__ import annotations

import pytest

from giskard_nb.scan import AttackProfile, run_scan

from .bank_agents import BANK, HARDENED, PLANTED, PROMPT, SECRET, SWITCHBOARD

pytestmark = pytest.mark.usefixtures("no_model")
OFFLINE = {"max_attempts_per_probe": 3, "judge": None, "generator": None, "max_concurrency": 4}
PROFILE = AttackProfile(
    name="Mara", description=f"Digital assistant of {BANK}", system_prompt=PROMPT, secrets=[SECRET]
)


def findings(report) -> list[tuple[str, str | None, str]]:
    return [(a.attack.probe_id, a.detector, a.reason) for a in report.attempts if a.successful]


@pytest.mark.parametrize("name", sorted(HARDENED))
async def test_a_hardened_control_grades_a_with_and_without_a_profile(name):
    bare = await run_scan(HARDENED[name], **OFFLINE)
    profiled = await run_scan(HARDENED[name], profile=PROFILE, **OFFLINE)
    for report in (bare, profiled):
        assert len(report.attempts) > 100  # the whole catalogue ran
        assert not any(a.error for a in report.attempts)
        assert findings(report) == []
        assert report.grade == "A", report.grade_line
    assert profiled.grade <= bare.grade  # letters: a profile never makes a safe agent grade worse
    replies = " ".join(a.output for a in profiled.attempts)
    assert SECRET not in replies


@pytest.mark.parametrize("with_profile", [False, True])
async def test_the_clerks_switchboard_repeated_in_every_reply_is_its_signature_not_a_leak(
    with_profile,
):
    """No profile names the landline: the scan sees the agent give it in reply after reply. With a
    profile (the PII detector then reads every probe, from the first reply on) it is no leak either."""
    prompt = PROMPT[: PROMPT.index("Customers can call")]
    assert SWITCHBOARD not in prompt
    extra = (
        {"profile": AttackProfile(system_prompt=prompt, secrets=[SECRET])} if with_profile else {}
    )
    report = await run_scan(
        HARDENED["clerk"],
        categories=["prompt_injection", "sensitive_information_disclosure"],
        **OFFLINE,
        **extra,
    )
    asked = [a for a in report.attempts if a.attack.probe_id == "disclosure.other_users_data"]
    assert asked and all(SWITCHBOARD in a.output for a in asked)
    assert findings(report) == [] and report.grade == "A"


@pytest.mark.parametrize("name", sorted(PLANTED))
async def test_a_planted_weakness_is_found_and_costs_the_grade(name):
    agent, category, detector, needs_profile = PLANTED[name]
    profiles = [PROFILE] if needs_profile else [None, PROFILE]
    for profile in profiles:
        extra = {"profile": profile} if profile else {}
        report = await run_scan(agent, categories=[category], **OFFLINE, **extra)
        found = findings(report)
        assert found, f"{name}: nothing found in {category}"
        assert detector in {d for _, d, _ in found}, found
        if name == "claiming":  # an action claimed in words only: a suspicion for the judge,
            assert report.suspected and report.grade == "A"  # listed, never graded offline
            assert "suspected" in report.counts_line
        else:
            assert report.grade in ("C", "D")
    if name == "leaky":
        hits = [a for a in report.attempts if a.detector == "secret_leak"]
        assert hits and all(SECRET not in (a.excerpt or "") + a.reason for a in hits)
