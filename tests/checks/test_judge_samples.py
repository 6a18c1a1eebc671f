"""samples=k on LLM checks (majority verdict, agreement, "unstable") and re-scoring with another judge,
through the fake OpenAI-compatible server (the real litellm path)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from giskard_nb import Groundedness, Interaction, Scenario, Suite, Trace, set_default_generator
from giskard_nb.core.testcase import run_check
from giskard_nb.testing import FakeLLMServer, FakeReply

PASS = {"reason": "Supported by the context.", "passed": True}
FAIL = {"reason": "Invents a phone number.", "passed": False}


@pytest.fixture
def server():
    with FakeLLMServer(reply=PASS) as fake:
        set_default_generator(fake.generator(max_retries=0, retry_base_delay=0.01))
        yield fake
    set_default_generator(None)


def trace():
    return Trace(interactions=[Interaction(inputs="Phone?", outputs="Call 555-0100.")])


async def test_majority_verdict_agreement_and_unstable(server):
    server.queue(PASS, FAIL, PASS)
    result = await run_check(Groundedness(context="No phone.", samples=3), trace())
    assert result.passed and result.message.startswith("Supported by the context.")
    assert result.metric("judge_agreement") == pytest.approx(2 / 3)
    assert result.details["unstable"] is True and "unstable: 2 of 3" in result.message
    assert sorted(result.details["sample_verdicts"]) == ["fail", "pass", "pass"]
    assert result.metric("llm_calls") == 3 and len(server.chat_requests) == 3
    assert all(r.body["temperature"] == 1.0 for r in server.chat_requests)
    again = await run_check(Groundedness(context="No phone.", samples=3), trace())
    assert len(server.chat_requests) == 6 and again.details["agreement"] == 1.0  # not cached
    assert again.details["unstable"] is False and "unstable" not in again.message


async def test_a_tie_fails_and_the_generator_temperature_is_kept(server):
    server.queue(PASS, FAIL)
    warm = server.generator(temperature=0.3, max_retries=0)
    result = await run_check(Groundedness(context="c", samples=2, generator=warm), trace())
    assert result.failed and result.message.startswith("Invents a phone number.")
    assert [r.body["temperature"] for r in server.chat_requests] == [0.3, 0.3]


async def test_errors_count_against_agreement_and_all_errors_is_an_error(server):
    server.queue(FAIL, FakeReply.fail(401, "bad key"), FAIL, FAIL, FAIL)
    result = await run_check(Groundedness(context="c", samples=5), trace())
    assert result.failed and result.metric("judge_agreement") == pytest.approx(4 / 5)
    assert result.details["sample_verdicts"].count("error") == 1 and not result.details["unstable"]
    server.queue(FakeReply.fail(401, "bad key"), FakeReply.fail(401, "bad key"))
    errored = await run_check(Groundedness(context="other", samples=2), trace())
    assert errored.errored and errored.details["samples"] == 2


def test_samples_must_be_a_small_positive_integer():
    for bad in (0, 26, "3", 1.5):
        with pytest.raises(ValidationError):
            Groundedness(context="c", samples=bad)
    assert Groundedness(context="c").samples == 1


async def test_rescore_with_another_judge_model_calls_the_judge_not_the_agent(server):
    calls = []

    def agent(inputs):
        calls.append(inputs)
        return "Call 555-0100."

    suite = Suite("v1", target=agent).append(
        Scenario("phone").interact("Phone?").check(Groundedness(context="No phone.", name="g"))
    )
    first = await suite.run()
    assert first.passed and first.results[0].check_results[0].details["judge_model"] == (
        "openai/gpt-4o-mini"
    )
    server.reply = FAIL
    other = server.generator(model="openai/gpt-4o", max_retries=0)
    rescored = await first.rescore(generator=other, name="gpt-4o judge")
    verdict = rescored.results[0].check_results[0]
    assert verdict.failed and verdict.details["judge_model"] == "openai/gpt-4o"
    assert server.chat_requests[-1].body["model"].endswith("gpt-4o") and calls == ["Phone?"]
    assert "gpt-4o judge is better on 0 cases, worse on 1" in str(first.compare(rescored))
