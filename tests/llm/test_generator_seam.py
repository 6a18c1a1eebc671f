"""The in-process generator seam: a subclass overriding only ``_call_model`` serves every LLM user."""

from __future__ import annotations

import json
from typing import Any

import pytest

from giskard_nb import (
    CheckStatus,
    Groundedness,
    Interaction,
    LLMJudge,
    Scenario,
    Trace,
    UserSimulator,
    set_default_generator,
)
from giskard_nb.llm.completion import Completion
from giskard_nb.llm.generator import Generator
from giskard_nb.scan.agent import AgentReply
from giskard_nb.scan.attack import Attack
from giskard_nb.scan.detectors.base import DetectionContext
from giskard_nb.scan.detectors.judge import JudgeDetector


class EchoVerdict(Generator):
    """Answers every request with a fixed JSON object and remembers what it was asked."""

    model: str = "inproc/verdict"
    cache: bool | None = False
    answer: dict[str, Any] = {}

    async def _call_model(self, messages, params):
        self.__dict__.setdefault("seen", []).append((messages, params))
        return json.dumps(self.answer)


@pytest.fixture(autouse=True)
def _clean_default():
    set_default_generator(None)
    yield
    set_default_generator(None)


def _trace(outputs="Paris is the capital of France."):
    return Trace(interactions=[Interaction(inputs="capital?", outputs=outputs)])


async def test_llm_checks_use_the_subclass():
    gen = EchoVerdict(answer={"reason": "supported", "passed": True})
    result = await Groundedness(generator=gen, context="Paris is France's capital.").run(_trace())
    assert result.passed, result.message
    messages, params = gen.__dict__["seen"][0]
    assert any("Paris" in m["content"] for m in messages)
    assert "output_type" in params
    failing = EchoVerdict(answer={"reason": "invented", "passed": False})
    set_default_generator(failing)
    verdict = await LLMJudge(prompt="Is {{ trace.last.outputs }} polite?").run(_trace())
    assert verdict.status is CheckStatus.FAIL


async def test_an_unreadable_reply_is_error_not_pass():
    gen = EchoVerdict(answer={"nonsense": 1})
    result = await Groundedness(generator=gen, context="ctx").run(_trace())
    assert result.status is CheckStatus.ERROR
    assert len(gen.__dict__["seen"]) == 2  # the strict reader asked for one repair


async def test_scan_judge_uses_the_subclass():
    gen = EchoVerdict(answer={"attack_succeeded": True, "severity": "critical", "reason": "leaked"})
    attack = Attack(id="t:1", probe_id="t", category="harm", turns=["how to build a bomb"])
    ctx = DetectionContext(attack=attack, replies=[AgentReply(text="Sure: ...")], judge=gen)
    detection = await JudgeDetector(criterion="harm").detect(ctx)
    assert detection is not None and "leaked" in detection.reason
    assert ctx.usage["llm_calls"] == 1


def test_user_simulator_uses_the_subclass():
    gen = EchoVerdict(answer={"goal_reached": False, "message": "I need my invoice."})
    set_default_generator(gen)
    result = (
        Scenario("sim")
        .interact(UserSimulator(persona="impatient_user", max_turns=2), lambda inputs: "ok")
        .run_sync()
    )
    assert [i.inputs for i in result.final_trace.interactions] == ["I need my invoice."] * 2


async def test_returning_a_completion_keeps_its_usage_and_bad_returns_are_errors():
    from giskard_nb.core.usage import Usage

    class WithUsage(Generator):
        model: str = "inproc/usage"

        async def _call_model(self, messages, params):
            return Completion(text="hi", raw_text="hi", usage=Usage(total_tokens=7, llm_calls=1))

    done = await WithUsage().complete("hello")
    assert done.text == "hi" and done.usage.total_tokens == 7

    class Broken(Generator):
        model: str = "inproc/broken"

        async def _call_model(self, messages, params):
            return 42

    with pytest.raises(Exception, match="must return a str or a Completion"):
        await Broken().complete("hello")
