from __future__ import annotations

import pytest

from giskard_nb import Check, Scenario
from giskard_nb.errors import GiskardValidationError
from giskard_nb.scan import run_scan
from giskard_nb.scan.regression import Vulnerability, attempt_checks

pytestmark = pytest.mark.usefixtures("no_model")
FAST = {"max_attempts_per_probe": 2, "judge": None, "generator": None}


async def _statuses(scenarios, target) -> set[str]:
    results = [await s.run(target) for s in scenarios]
    return {r.status.value for r in results}


@pytest.mark.parametrize(
    ("agent", "probes"),
    [
        (
            "obedient",
            [
                "injection.direct_override",
                "injection.indirect_content",
                "injection.multi_turn_escalation",
            ],
        ),
        (
            "echo",
            ["output.html_injection", "output.markdown_exfiltration", "output.sql_passthrough"],
        ),
        ("leaky", ["leakage.direct_request", "disclosure.credentials"]),
    ],
)
async def test_findings_fail_while_the_weakness_remains_and_pass_once_fixed(
    agents, agent, probes, leaky_profile
):
    report = await run_scan(agents[agent], probe_ids=probes, profile=leaky_profile, **FAST)
    scenarios = report.to_test_cases()
    assert scenarios and len(scenarios) == len(report.findings)
    assert await _statuses(scenarios, agents[agent]) == {"fail"}
    assert await _statuses(scenarios, agents["refusing"]) == {"pass"}


async def test_checks_round_trip_and_keep_secrets_out(agents, leaky_profile):
    secret = leaky_profile.secrets[0]
    report = await run_scan(
        agents["leaky"], probe_ids=["disclosure.credentials"], profile=leaky_profile, **FAST
    )
    finding = report.findings[0]
    checks = attempt_checks(finding)
    dumped = [c.model_dump_json() for c in checks]
    assert all(secret not in d for d in dumped)
    again = [Check.model_validate_json(d) for d in dumped]
    assert isinstance(again[0], Vulnerability) and again[0].secret_digests
    scenario = Scenario("replay").interact(inputs=finding.input_messages).checks(*again)
    assert (await scenario.run(agents["leaky"])).status.value == "fail"
    assert (await scenario.run(lambda inputs: "I can't share credentials.")).status.value == "pass"
    # the digest alone catches the secret, even when the detector would not (a plain-looking secret)
    from giskard_nb.scan.detectors import CanaryDetector, secrets

    only_digest = Vulnerability(
        detector=CanaryDetector(),
        attack=again[0].attack,
        secret_digests=[secrets.secret_digest("hunter2")],
    )
    leak = Scenario("x").interact(inputs=finding.input_messages).checks(only_digest)
    assert (await leak.run(lambda inputs: "the password is hunter2")).status.value == "fail"
    assert (await leak.run(lambda inputs: "the password is secret")).status.value == "pass"


async def test_known_system_prompt_leak_adds_a_forbidden_passage(agents, leaky_profile):
    report = await run_scan(
        agents["leaky"], probe_ids=["leakage.direct_request"], profile=leaky_profile, **FAST
    )
    checks = attempt_checks(report.findings[0])
    kinds = [c.kind for c in checks]
    assert kinds[0] == "scan_vulnerability" and "not" in kinds
    pattern = checks[1].check.pattern
    assert "helpbot" in pattern.lower()


async def test_judged_findings_need_a_judge_at_test_time():
    from giskard_nb.scan import Attack, Attempt, Severity
    from giskard_nb.scan.detectors import JudgeDetector

    attack = Attack(
        id="harm:1",
        probe_id="harm.direct_request",
        category="harmful_content",
        turns=["do harm"],
        goal="do harm",
    )
    finding = Attempt(
        attack=attack,
        messages=[{"role": "user", "content": "do harm"}, {"role": "assistant", "content": "ok"}],
        successful=True,
        severity=Severity.CRITICAL,
        detector="judge:harm",
        detector_config=JudgeDetector(criterion="harm").model_dump(mode="json"),
    )
    (check,) = attempt_checks(finding)
    result = (
        await Scenario("j")
        .interact(inputs=finding.input_messages)
        .checks(check)
        .run(lambda i: "ok")
    )
    assert result.status.value == "error"
    assert "set_default_generator" in result.steps[0].results[0].message


def test_only_findings_become_tests():
    from giskard_nb.scan import Attack, Attempt

    attack = Attack(id="p:1", probe_id="p", category="prompt_injection", turns=["hi"])
    with pytest.raises(GiskardValidationError, match="not a successful attack"):
        attempt_checks(Attempt(attack=attack))
