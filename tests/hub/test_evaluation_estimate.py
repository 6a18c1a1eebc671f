"""``hub.evaluations.estimate``: the preflight of an evaluation (calls, tokens, judge cost, time),
multiplied by ``repeats``, counted from the checks an evaluation would build; nothing run or stored."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterator

import pytest

from giskard_nb import llm
from giskard_nb.errors import GiskardValidationError, NotFoundError
from giskard_nb.hub import Hub
from giskard_nb.llm.generator import Generator
from giskard_nb.testing import FakeLLMServer

QUESTION = "q" * 40  # 40 characters: 40 // 4 + 4 = 14 tokens (four characters a token, plus 4)
# A judge prompt: JUDGE_OVERHEAD (320) + the conversation (14) + a reply (REPLY_TOKENS, 200) + the
# check's params as JSON (len // 4 + 4); a judge reply: JUDGE_COMPLETION (60).
CORRECTNESS = 320 + 14 + 200 + len('{"reference": "x"}') // 4 + 4
CONFORMITY = 320 + 14 + 200 + len('{"rule": "be polite", "samples": 3}') // 4 + 4
RULES = 320 + 14 + 200 + len("{}") // 4 + 4


def _case(checks: list[dict]) -> dict:
    return {"messages": [{"role": "user", "content": QUESTION}], "checks": checks}


def _dataset(hub: Hub) -> tuple[str, str]:
    """Four cases: a rule and a judge; a judge asked 3 times; a rule (and a disabled judge); a project
    check grouping two judges (``all_of``): 1 + 3 + 0 + 2 = 6 judge calls a run."""
    project = hub.projects.create("support")
    rules = [{"kind": "conformity", "rule": r} for r in ("a", "b")]  # a judge call each
    hub.checks.create(
        project.id, "house_rules", "House rules", params={"type": "all_of", "checks": rules}
    )
    items = [
        _case(
            [
                {"identifier": "string_match", "params": {"keyword": "q"}},
                {"identifier": "correctness", "params": {"reference": "x"}},
            ]
        ),
        _case([{"identifier": "conformity", "params": {"rule": "be polite", "samples": 3}}]),
        _case(
            [
                {"identifier": "string_match", "params": {"keyword": "q"}},
                {"identifier": "correctness", "params": {"reference": "y"}, "enabled": False},
            ]
        ),
        _case([{"identifier": "house_rules"}]),
    ]
    return project.id, hub.datasets.upload(project.id, items, name="faq").id


@pytest.fixture
def judge() -> Iterator[FakeLLMServer]:
    """A judge that passes everything, priced (openai/gpt-4o-mini is in litellm's table)."""
    with FakeLLMServer(reply={"passed": True, "reason": "fine"}) as server:
        llm.set_default_generator(server.generator())
        try:
            yield server
        finally:
            llm.set_default_generator(None)


@pytest.mark.parametrize("repeats", [1, 3])
def test_calls_tokens_and_cost_are_counted_per_check_and_multiplied_by_repeats(
    mem_hub: Hub, judge: FakeLLMServer, repeats: int
) -> None:
    _, dataset_id = _dataset(mem_hub)
    estimate = mem_hub.evaluations.estimate(dataset_id, repeats=repeats)
    assert (estimate.test_cases, estimate.repeats) == (4, repeats)
    assert estimate.agent_calls == 4 * repeats and estimate.agent_tokens == 4 * 14 * repeats
    assert estimate.judge_calls == 6 * repeats
    assert estimate.checks == {
        "correctness": 1 * repeats,
        "conformity": 3 * repeats,
        "house_rules": 2 * repeats,
    }
    assert estimate.judge_models == {"openai/gpt-4o-mini": 6 * repeats}
    prompt = (CORRECTNESS + 3 * CONFORMITY + 2 * RULES) * repeats
    assert estimate.judge_prompt_tokens == prompt
    assert estimate.judge_completion_tokens == 6 * 60 * repeats
    per_prompt, per_completion = llm.model_prices("openai/gpt-4o-mini")
    assert estimate.cost_usd == pytest.approx(
        prompt * per_prompt + 6 * 60 * repeats * per_completion
    )
    assert estimate.cost_usd > 0 and estimate.warnings == []
    assert judge.requests == []  # nothing was called
    assert mem_hub.evaluations.list() == []  # nothing was stored


def test_cost_is_unknown_without_a_price_or_a_judge_and_says_why(mem_hub: Hub) -> None:
    _, dataset_id = _dataset(mem_hub)
    unjudged = mem_hub.evaluations.estimate(dataset_id)
    assert unjudged.cost_usd is None and unjudged.judge_calls == 6
    assert "judge cost unknown (no judge model configured)" in str(unjudged)
    assert "6 judge calls per run have no judge model" in unjudged.warnings[0]
    llm.set_default_generator(Generator(model="acme/unpriced-judge"))
    try:
        unpriced = mem_hub.evaluations.estimate(dataset_id, repeats=2)
    finally:
        llm.set_default_generator(None)
    assert unpriced.cost_usd is None and unpriced.unpriced_models == ["acme/unpriced-judge"]
    assert "no price for acme/unpriced-judge in litellm's table" in str(unpriced)
    assert "4 test cases × 2 repeats: 8 agent calls" in str(unpriced)


def test_time_is_unknown_before_a_run_then_comes_from_the_last_run_of_that_agent(
    mem_hub: Hub, judge: FakeLLMServer
) -> None:
    _, dataset_id = _dataset(mem_hub)
    before = mem_hub.evaluations.estimate(dataset_id, agent_name="bot", repeats=3)
    assert before.seconds is None
    assert "no finished evaluation of this dataset by agent 'bot' yet" in before.time_basis
    anonymous = mem_hub.evaluations.estimate(dataset_id)
    assert anonymous.seconds is None and "no agent given" in anonymous.time_basis

    def bot(messages: list[dict[str, str]]) -> str:
        return "quite polite"

    run = mem_hub.evaluations.create_local(bot, dataset_id, agent_name="bot", progress=False)
    assert run.status == "finished" and len(judge.chat_requests) == 6  # the 6 counted judge calls
    median = statistics.median(r.duration_ms for r in run.results())
    after = mem_hub.evaluations.estimate(dataset_id, agent_name="bot", repeats=3, max_concurrency=5)
    waves = math.ceil(4 * 3 / 5)  # 12 runs of a case, 5 at a time
    assert after.seconds == pytest.approx(waves * median / 1000)
    assert run.id in after.time_basis and f"{waves} waves of 5" in after.time_basis
    other = mem_hub.evaluations.estimate(dataset_id, agent_name="another bot")
    assert other.seconds is None  # another agent's run says nothing of this one's time
    assert run.id in str(after) and "&lt;" in _html_of(mem_hub, dataset_id)


def _html_of(hub: Hub, dataset_id: str) -> str:
    """The HTML view escapes what it shows (an agent name is the user's text)."""
    return hub.evaluations.estimate(dataset_id, agent_name="<b>bot</b>")._repr_html_()


def test_a_check_that_cannot_be_built_counts_no_call_and_is_a_warning(mem_hub: Hub) -> None:
    project = mem_hub.projects.create("support")
    polite = mem_hub.checks.create(
        project.id, "polite", "Polite", params={"type": "conformity", "rule": "be polite"}
    )
    dataset = mem_hub.datasets.upload(project.id, [_case([{"identifier": "polite"}])], name="d")
    assert mem_hub.evaluations.estimate(dataset.id).judge_calls == 1
    mem_hub.checks.delete(polite.id)  # the test case still names it
    estimate = mem_hub.evaluations.estimate(dataset.id)
    assert estimate.judge_calls == 0 and estimate.checks == {} and estimate.agent_calls == 1
    assert len(estimate.warnings) == 1 and "check 'polite' cannot be built" in estimate.warnings[0]
    assert "unknown check identifier 'polite'" in estimate.warnings[0]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"repeats": 0}, "repeats must be a whole number >= 1, got 0"),
        ({"repeats": 2.5}, "repeats must be a whole number >= 1, got 2.5"),
        ({"repeats": True}, "repeats must be a whole number >= 1, got True"),
        ({"max_concurrency": 0}, "max_concurrency must be a whole number >= 1, got 0"),
        ({"agent_id": "a", "agent_name": "b"}, "give agent_id .* or agent_name .* not both"),
    ],
)
def test_bad_arguments_are_clear_errors(mem_hub: Hub, options: dict, message: str) -> None:
    _, dataset_id = _dataset(mem_hub)
    with pytest.raises(GiskardValidationError, match=message):
        mem_hub.evaluations.estimate(dataset_id, **options)


def test_unknown_dataset_or_agent_is_the_hubs_not_found_error(mem_hub: Hub) -> None:
    _, dataset_id = _dataset(mem_hub)
    with pytest.raises(NotFoundError):
        mem_hub.evaluations.estimate("no-such-dataset")
    with pytest.raises(NotFoundError):
        mem_hub.evaluations.estimate(dataset_id, agent_id="no-such-agent")
