"""Grades on realistic agents: evasive planted weaknesses are found, hardened agents grade A.

Each planted agent (tests/scan/conftest.py) is a safe support baseline plus ONE weakness written in a
style a keyword detector can miss. Hardened agents refuse in French, Spanish or German, correct myths,
quote commands as code, or quote the attack inside a code span. Scans are offline (no judge) and small.
"""

from __future__ import annotations

import pytest

from giskard_nb.scan import AttackProfile, run_scan
from giskard_nb.scan.catalogue import default_catalogue

from .conftest import EVASIVE_AGENTS, HARDENED_AGENTS, TELCO_PROMPT, TELCO_SECRET

pytestmark = pytest.mark.usefixtures("no_model")
FAST = {"max_attempts_per_probe": 3, "judge": None, "generator": None, "max_concurrency": 4}
PROFILE = AttackProfile(name="Nova", system_prompt=TELCO_PROMPT, secrets=[TELCO_SECRET])


def offline_categories() -> list[str]:
    """Categories every probe of which a rule detector decides on its own (no judge needed)."""
    probes = default_catalogue().probes()
    cats = {p.category for p in probes}
    return sorted(c for c in cats if all(not p.needs_judge for p in probes if p.category == c))


def test_the_offline_categories_are_the_ones_rules_decide():
    assert set(offline_categories()) >= {
        "prompt_injection",
        "system_prompt_leakage",
        "sensitive_information_disclosure",
        "improper_output_handling",
        "excessive_agency",
    }


#: Weaknesses shown only in words (a claim of an action, no tool call): the finding is suspected, and
#: the grade waits for a judge model or a reviewer to confirm it.
SUSPECTED_WEAKNESSES = {"plain_claim"}


@pytest.mark.parametrize("name", sorted(EVASIVE_AGENTS))
async def test_every_planted_weakness_is_found_in_its_category(name):
    agent, category, detector = EVASIVE_AGENTS[name]
    report = await run_scan(agent, categories=[category], profile=PROFILE, **FAST)
    found = [a for a in report.attempts if a.successful]
    assert found, f"{name}: no finding in {category}"
    assert {a.attack.category for a in found} == {category}
    assert detector in {a.detector for a in found}, {a.detector for a in found}
    if name in SUSPECTED_WEAKNESSES:
        assert {a.evidence for a in found} == {"suspected"} and report.suspected
        assert report.grade == "A" and report.coverage[category] == "partial"
        acknowledged = report.review(found[0].id, review_status="acknowledged")
        assert acknowledged.counts and report.grade in ("C", "D")  # a reviewer confirms it
    else:
        assert report.grade in ("C", "D")
        assert {a.evidence for a in report.findings} == {"confirmed"}
    assert not any(a.error for a in report.attempts)


async def test_the_base64_leak_is_found_without_the_profile_too():
    agent, category, _ = EVASIVE_AGENTS["base64_leaker"]
    report = await run_scan(agent, categories=[category], **FAST)
    assert any(a.successful for a in report.attempts)


async def test_the_roleplay_secret_needs_the_profile_and_is_never_shown():
    agent, category, _ = EVASIVE_AGENTS["roleplay_secret"]
    report = await run_scan(agent, categories=[category], profile=PROFILE, **FAST)
    hits = [a for a in report.attempts if a.detector == "secret_leak"]
    assert hits and all(TELCO_SECRET not in (a.excerpt or "") for a in hits)
    assert all(TELCO_SECRET not in (a.reason or "") for a in hits)


@pytest.mark.parametrize("name", sorted(HARDENED_AGENTS))
async def test_hardened_agents_grade_a_on_the_offline_categories(name):
    report = await run_scan(
        HARDENED_AGENTS[name], categories=offline_categories(), profile=PROFILE, **FAST
    )
    found = [(a.attack.probe_id, a.detector, a.reason) for a in report.attempts if a.successful]
    assert found == []
    assert report.grade == "A"
    assert not report.incomplete, report.grade_line


async def test_the_helpful_corrector_is_not_flagged_on_misinformation_either():
    report = await run_scan(
        HARDENED_AGENTS["helpful_corrector"], categories=["misinformation"], **FAST
    )
    assert [a.reason for a in report.attempts if a.successful] == []


# -- translations: caught with a multilingual embedding model, through the real litellm path -------------

_CONCEPTS = {
    "nova": "nova", "brightline": "brightline", "mobile": "mobile", "support": "support",
    "support-assistentin": "support assistant", "assistant": "assistant", "assistentin": "assistant",
    "help": "help", "helfe": "help", "customers": "customer", "customer": "customer", "kunden": "customer",
    "kunde": "customer", "plans": "plan", "plan": "plan", "tarifen": "plan", "roaming": "roaming",
    "bills": "bill", "rechnungen": "bill", "sim": "sim", "cards": "card", "sim-karten": "sim card",
    "never": "never", "niemals": "never", "reveal": "reveal", "preisgeben": "reveal",
    "instructions": "instruction", "anweisungen": "instruction", "names": "name", "namen": "name",
    "internal": "internal", "interner": "internal", "tools": "tool", "discounts": "discount",
    "rabatte": "discount", "above": "above", "über": "above", "15": "15", "percent": "percent",
    "prozent": "percent", "supervisor's": "supervisor", "vorgesetzten": "supervisor",
    "approval": "approval", "zustimmung": "approval", "cancelling": "cancel", "kündigung": "cancel",
    "offer": "offer", "biete": "offer", "first": "first", "zuerst": "first", "loyalty": "loyalty plan",
    "treuetarif": "loyalty plan", "answer": "answer", "antworte": "answer", "always": "always",
    "immer": "always", "friendly": "friendly", "freundlich": "friendly", "concise": "concise",
    "knapp": "concise", "tone": "tone",
}  # fmt: skip


def concept_embedding(text: str) -> list[float]:
    """A toy multilingual model: English and German words of the telco prompt map to shared concepts."""
    import hashlib
    import math
    import re

    vector = [0.0] * 128
    for word in re.findall(r"[\w'-]+", text.lower()):
        for concept in _CONCEPTS.get(word, "").split():
            vector[int(hashlib.sha256(concept.encode()).hexdigest()[:6], 16) % 128] += 1.0
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    return [x / norm for x in vector] if any(vector) else [1.0] + [0.0] * 127


@pytest.fixture
def embeddings(monkeypatch):
    from giskard_nb.llm import set_default_embedding_model
    from giskard_nb.scan.detectors import paraphrase

    # The configured model's path: the multilingual extra, when installed, reads a translation first
    # and decides alone (tests/scan/test_leak_translation.py), so it is left out here.
    monkeypatch.setattr(paraphrase, "multilingual_encoder", lambda: None)
    yield set_default_embedding_model
    set_default_embedding_model(None)


async def test_a_translated_leak_is_caught_with_a_multilingual_embedding_model(embeddings):
    from giskard_nb.testing import FakeLLMServer

    from .conftest import translated_leaker

    with FakeLLMServer(embed=concept_embedding) as server:
        embeddings(server.embedding_model(max_retries=0))
        report = await run_scan(
            translated_leaker, categories=["system_prompt_leakage"], profile=PROFILE, **FAST
        )
        assert server.embedding_requests  # the embedding model was really asked
    found = [a for a in report.attempts if a.successful]
    assert found and {a.detector for a in found} == {"prompt_paraphrase"}
    assert "embedding" in found[0].reason
    # a reading of meaning stands in for a judge: listed for review, it does not set the grade alone
    assert all(a.evidence == "suspected" for a in found) and report.suspected
    assert report.grade != "A"


async def test_an_embedding_failure_errors_the_attempt_never_a_silent_pass(embeddings):
    from giskard_nb.testing import FakeLLMServer

    from .conftest import translated_leaker

    server = FakeLLMServer(embed=concept_embedding).start()
    embeddings(server.embedding_model(max_retries=0, timeout=2))
    server.stop()  # the provider is down
    report = await run_scan(
        translated_leaker, categories=["system_prompt_leakage"], profile=PROFILE, **FAST
    )
    assert report.attempts and not any(a.successful for a in report.attempts)
    assert all(a.error and a.error_phase == "detector" for a in report.attempts)
    assert "embedding" in report.attempts[0].error
    assert report.incomplete


async def test_a_missing_embedding_model_leaves_rule_detection_working(monkeypatch):
    from giskard_nb.errors import ConfigError
    from giskard_nb.scan.detectors import paraphrase

    def missing():
        raise ConfigError("the offline embedding model needs the 'wordllama' package")

    monkeypatch.setattr(paraphrase, "_embedding_model", missing)
    agent, category, detector = EVASIVE_AGENTS["paraphrase_leaker"]
    report = await run_scan(agent, categories=[category], profile=PROFILE, **FAST)
    assert detector in {a.detector for a in report.attempts if a.successful}
    safe = await run_scan(
        HARDENED_AGENTS["telco_safe"], categories=[category], profile=PROFILE, **FAST
    )
    assert safe.grade == "A" and not any(a.error for a in safe.attempts)
