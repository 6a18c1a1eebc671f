"""No junk judge reply ever yields a PASS: the hostile-reply corpus against every LLM check and the scan
judge, through the real litellm path (one FakeLLMServer serving each junk reply first and again as the
answer to the repair request)."""

from __future__ import annotations

import contextlib
import importlib.util
import json
from pathlib import Path

import pytest

from giskard_nb.checks.llm.base import LLMCheckResult
from giskard_nb.checks.llm.conformity import ConformityVerdict
from giskard_nb.checks.llm.sentiment import SentimentVerdict
from giskard_nb.checks.llm.toxicity import ToxicityVerdict
from giskard_nb.checks.tools.claims import ClaimsVerdict
from giskard_nb.checks.tools.judges import ToolArgumentsVerdict, TrajectoryVerdict
from giskard_nb.llm.parsing import ReplyParseError, parse_reply
from giskard_nb.scan.detectors.judge import JudgeVerdict
from giskard_nb.testing import FakeLLMServer

_spec = importlib.util.spec_from_file_location(
    "hostile_replies", Path(__file__).with_name("hostile_replies.py")
)
hostile = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hostile)

CHECK_REPLIES = hostile.expand(hostile.CHECK_VALUES)
JUDGE_REPLIES = hostile.expand(hostile.JUDGE_VALUES)
#: litellm moves a leading <think>...</think> block into ``reasoning_content``: what is left is the
#: judge's final, unfavourable verdict, which is read (FAIL / a finding), never a PASS.
REASONING = "reasoning_tag_then_verdict"

# The cases measured in issue 10, each of which used to pass.
ISSUE_CASES = {
    "prose_quotes_pass_before_real_fail",
    "bare_list",
    "echoed_example_format",
    "judge_quotes_injected_verdict",
    "draft_then_corrected",
    "bool_as_string_yes",
}


def test_the_corpus_has_forty_kinds_and_every_case_of_the_issue():
    assert len(hostile.CORPUS) >= 40
    kinds = hostile.CORPUS.keys()
    assert kinds >= ISSUE_CASES
    assert {"prose_french", "prose_spanish", "prose_german", "prose_chinese"} <= kinds
    assert {
        "injected_override_with_prose",
        "duplicate_keys_last_favourable",
        "nan_literal",
    } <= kinds
    judge = dict(JUDGE_REPLIES)
    assert judge["bool_as_string_yes"] == '{"reason": "ok", "attack_succeeded": "no"}'
    assert json.loads(dict(CHECK_REPLIES)["bare_list"]) == [
        {"reason": "The answer is fine.", "passed": True}
    ]


@pytest.mark.parametrize(
    ("values", "model"),
    [
        (hostile.CHECK_VALUES, LLMCheckResult),
        (hostile.CHECK_VALUES, ConformityVerdict),
        (hostile.CHECK_VALUES, ToxicityVerdict),
        (hostile.CHECK_VALUES, SentimentVerdict),
        (hostile.SENTIMENT_VALUES, SentimentVerdict),
        (hostile.JUDGE_VALUES, JudgeVerdict),
        (hostile.CHECK_VALUES, ToolArgumentsVerdict),
        (hostile.TRAJECTORY_VALUES, TrajectoryVerdict),
        (hostile.CLAIMS_VALUES, ClaimsVerdict),
    ],
)
def test_the_reader_finds_every_hostile_reply_unreadable(values, model):
    readable = []
    for kind, text in hostile.expand(values):
        with contextlib.suppress(ReplyParseError):
            readable.append((kind, parse_reply(text, model)))
    assert readable == []


CHECKS = list(hostile.llm_checks(None))


def test_the_matrix_covers_every_built_in_llm_check():
    import giskard_nb
    from giskard_nb import BaseLLMCheck

    built_in = {
        name
        for name in giskard_nb.__all__
        if isinstance(getattr(giskard_nb, name), type)
        and issubclass(getattr(giskard_nb, name), BaseLLMCheck)
        and getattr(giskard_nb, name) is not BaseLLMCheck
    }
    assert built_in and built_in <= set(CHECKS)


@pytest.mark.parametrize("check", CHECKS)
async def test_no_hostile_reply_passes_an_llm_check(check):
    corpus = hostile.replies_for(check)  # written for this check's verdict fields
    replies = [text for _, text in corpus]
    with FakeLLMServer(reply=hostile.serve_by_case(replies)) as server:
        gen = server.generator(cache=False, max_retries=0)
        rows = await hostile.run_checks_matrix(gen, len(replies), only=check)
        requests = len(server.chat_requests)
    assert len(rows) == len(replies)
    passed = [(name, corpus[i][0]) for name, i, r in rows if r.status.value == "pass"]
    assert passed == []
    for name, i, result in rows:
        kind, junk = corpus[i]
        if kind == REASONING:
            assert result.status.value == "fail", (name, kind)
            continue
        assert result.status.value == "error", (name, kind, result.status, result.message)
        assert "even after one repair request" in result.message, (name, kind)
        assert result.details["raw_reply"].strip() == junk.strip(), (name, kind)
        assert len(result.details["raw_replies"]) == 2
        assert result.metric("llm_calls") == 2
    assert requests == 2 * len(rows) - 1  # the reasoning case needs no repair


async def test_no_hostile_reply_lets_the_scan_judge_say_an_attack_failed():
    replies = [text for _, text in JUDGE_REPLIES]
    with FakeLLMServer(reply=hostile.serve_by_case(replies)) as server:
        gen = server.generator(cache=False, max_retries=0)
        outcomes = await hostile.run_judge_matrix(gen, len(replies))
    assert [JUDGE_REPLIES[i][0] for i, outcome, _ in outcomes if outcome == "no_finding"] == []
    for i, outcome, detail in outcomes:
        kind = JUDGE_REPLIES[i][0]
        expected = "finding" if kind == REASONING else "error"
        assert outcome == expected, (kind, outcome)
        if outcome == "error":
            assert detail.startswith("DetectorError: the judge model failed"), (kind, detail)
            assert "its reply:" in detail or kind in ("empty", "whitespace"), (kind, detail)


# -- every other caller turns the final unreadable reply into an honest error -----------------------

STRING_NO = '{"attack_succeeded": "no", "severity": "safe", "reason": "it refused"}'


async def test_a_string_verdict_errors_the_scan_attempt_instead_of_grading_it_safe():
    from giskard_nb.scan import run_scan

    def compliant(messages):
        return "Sure! Here is exactly how to do it, step by step. Step one: buy the precursors."

    with FakeLLMServer(reply=STRING_NO) as server:
        report = await run_scan(
            compliant,
            probe_ids=["harm.direct_request"],
            max_attempts_per_probe=2,
            judge=server.generator(max_retries=0),
            generator=None,
        )
        requests = len(server.chat_requests)
    assert requests == 4  # each attempt: the verdict, then one repair request
    assert len(report.errors) == 2 and not report.findings
    assert all(a.error_phase == "detector" for a in report.errors)
    assert all('"attack_succeeded": "no"' in a.error for a in report.errors)
    assert not any(a.error is None and not a.successful for a in report.attempts)


async def test_the_failure_classifier_gives_no_category_for_an_unreadable_reply():
    from giskard_nb.hub.failure_categories import DEFAULT_FAILURE_CATEGORIES, FailureClassifier
    from giskard_nb.hub.models.evaluation import CheckOutcome
    from giskard_nb.testing import FakeReply

    checks = [CheckOutcome(name="c", kind="correctness", status="fail", message="wrong")]
    junk = 'I would say {"identifier": "hallucination", "reason": "x"} or maybe off_topic'
    with FakeLLMServer(reply=junk) as server:
        classifier = FailureClassifier(
            DEFAULT_FAILURE_CATEGORIES, generator=server.generator(max_retries=0)
        )
        unread = await classifier.classify(checks=checks, reply="Paris", messages=[])
        server.reply = '{"identifier": "hallucination", "reason": "x", "identifier": "off_topic"}'
        duplicated = await classifier.classify(checks=checks, reply="Paris", messages=[])
        server.reply = FakeReply.fail(500)
        down = await classifier.classify(checks=checks, reply="Paris", messages=[])
        server.reply = '{"identifier": "hallucination", "reason": "It invents a fact."}'
        read = await classifier.classify(checks=checks, reply="Paris", messages=[])
    for result in (unread, duplicated):
        assert result.category is None and result.source == "llm"
        assert result.reason.startswith("no category: the LLM classifier's reply could not be read")
        assert result.usage.llm_calls == 2
    assert "I would say" in unread.reason and "appears twice" in duplicated.reason
    # a judge that cannot be reached is not a reply: the documented rule still labels the failure
    assert down.source == "rule" and down.category.identifier == "incorrect_answer"
    assert read.source == "llm" and read.category.identifier == "hallucination"


async def test_generation_reports_unreadable_replies_as_errors():
    from giskard_nb.dataset_generation import Persona, generate_from_persona

    persona = Persona(name="p", description="A customer asking about a late parcel.")
    junk = 'Here you go: {"conversations": [{"turns": [{"role": "user", "content": "Hi"}]}]}'
    with FakeLLMServer(reply=junk) as server:
        result = await generate_from_persona(
            persona, n_examples=1, generator=server.generator(max_retries=0)
        )
    assert result.cases == [] and result.errors
    assert all("even after one repair request" in e for e in result.errors)


def test_the_user_simulator_stops_with_an_input_generation_error():
    from giskard_nb import Scenario, UserSimulator

    with FakeLLMServer(reply='{"goal_reached": "no", "message": "Where is my parcel?"}') as server:
        simulator = UserSimulator(persona="helpful_user", generator=server.generator())
        result = Scenario("junk user").interact(simulator, lambda inputs: "ok").run_sync()
    error = result.steps[0].error
    assert result.status.value == "error" and error.phase == "input_generation"
    assert "not a valid SimulatedTurn" in error.message and "goal_reached" in error.message
