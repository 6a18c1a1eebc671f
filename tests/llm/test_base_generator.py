"""The giskard-agents generator seam: ``BaseGenerator`` subclasses written as giskard-checks' own tests
write them (typed messages in, a ``CompletionResponse`` out), used by every LLM entry point in-process."""

from __future__ import annotations

import json
import pickle
from collections.abc import Sequence
from typing import Any

import pytest
from pydantic import BaseModel, Field

from giskard_nb import (
    Conformity,
    Groundedness,
    Interaction,
    LLMGenerator,
    LLMJudge,
    Scenario,
    Trace,
    UserSimulator,
    set_default_generator,
)
from giskard_nb.agents.generators import BaseGenerator as AgentsBaseGenerator
from giskard_nb.agents.generators import Generator as AgentsGenerator
from giskard_nb.agents.generators.base import BaseGenerator, GenerationParams
from giskard_nb.errors import GiskardValidationError
from giskard_nb.llm import Generator, track_usage
from giskard_nb.llm.structured import ask_structured
from giskard_nb.llm.types import (
    AssistantMessage,
    ChatMessage,
    Choice,
    CompletionResponse,
    SystemMessage,
    ToolMessage,
    Usage,
    UserMessage,
    from_dicts,
    to_dicts,
)


class MockJudgeGenerator(BaseGenerator):
    passed: bool
    reason: str
    calls: list[Sequence[ChatMessage]] = Field(default_factory=list)

    async def _call_model(
        self,
        messages: Sequence[ChatMessage],
        params: GenerationParams,
        metadata: dict[str, Any] | None = None,
    ) -> CompletionResponse:
        self.calls.append(messages)
        return CompletionResponse(
            choices=[
                Choice(
                    message=AssistantMessage(
                        content=json.dumps({"passed": self.passed, "reason": self.reason})
                    ),
                    finish_reason="stop",
                    index=0,
                )
            ]
        )


class ScriptedGenerator(BaseGenerator):
    """Same style: serves ``replies`` in order (JSON-encoded), with token usage, and records what it
    was given (messages, params, metadata)."""

    replies: list[Any]
    calls: list[Sequence[ChatMessage]] = Field(default_factory=list)
    seen_params: list[GenerationParams] = Field(default_factory=list)
    seen_metadata: list[Any] = Field(default_factory=list)

    async def _call_model(
        self,
        messages: Sequence[ChatMessage],
        params: GenerationParams,
        metadata: dict[str, Any] | None = None,
    ) -> CompletionResponse:
        self.calls.append(messages)
        self.seen_params.append(params)
        self.seen_metadata.append(metadata)
        reply = self.replies[min(len(self.calls), len(self.replies)) - 1]
        return CompletionResponse(
            choices=[Choice(message=AssistantMessage(content=json.dumps(reply)))],
            usage=Usage(prompt_tokens=40, completion_tokens=10, total_tokens=50),
            model="mock-1",
        )


@Generator.register("test_base_generator_scripted")
class Saved(BaseGenerator):
    answer: str = "x"
    api_token: str = Field(default="", exclude=True)

    async def _call_model(self, messages, params, metadata=None):
        return CompletionResponse(choices=[Choice(message=AssistantMessage(content="x"))])


@pytest.fixture(autouse=True)
def _clean_default():
    set_default_generator(None)
    yield
    set_default_generator(None)


def _trace(outputs: str = "Paris is the capital of France.") -> Trace:
    return Trace(interactions=[Interaction(inputs="Capital of France?", outputs=outputs)])


def test_both_import_paths_name_one_seam():
    assert AgentsBaseGenerator is BaseGenerator and AgentsGenerator is Generator
    assert issubclass(BaseGenerator, Generator)  # a BaseGenerator goes wherever a Generator does
    import giskard_nb

    assert giskard_nb.BaseGenerator is BaseGenerator
    assert giskard_nb.GenerationParams is GenerationParams


async def test_llm_checks_call_the_double_in_process_with_typed_messages():
    judge = MockJudgeGenerator(passed=False, reason="The answer invents a date.")
    result = await Groundedness(generator=judge, context="Paris is France's capital.").run(_trace())
    assert result.failed and result.message == "The answer invents a date."
    (messages,) = judge.calls
    assert all(isinstance(m, ChatMessage) for m in messages)
    assert isinstance(messages[0], SystemMessage) and isinstance(messages[-1], UserMessage)
    assert any("Paris is the capital" in m.text for m in messages)

    passing = MockJudgeGenerator(passed=True, reason="Polite.")
    set_default_generator(passing)  # the default generator too
    assert (await LLMJudge(prompt="Is {{ trace.last.outputs }} polite?").run(_trace())).passed
    assert (await Conformity(rule="Be polite").run(_trace())).passed
    assert len(passing.calls) == 2


async def test_usage_of_a_response_is_counted_by_checks_and_trackers():
    gen = ScriptedGenerator(replies=[{"passed": True, "reason": "Grounded."}])
    with track_usage() as tracker:
        result = (
            await Scenario("usage")
            .interact("Capital?", "Paris.")
            .check(Groundedness(generator=gen, context="Paris."))
            .run()
        )
    assert result.passed
    assert (tracker.usage.llm_calls, tracker.usage.total_tokens) == (1, 50)
    assert result.usage.total_tokens == 50 and result.usage.prompt_tokens == 40
    params = gen.seen_params[0]
    assert isinstance(params, GenerationParams) and params.temperature == 0
    assert (
        isinstance(params.response_format, type) and "passed" in params.response_format.model_fields
    )


async def test_a_response_without_usage_counts_one_call():
    judge = MockJudgeGenerator(passed=True, reason="ok")
    with track_usage() as tracker:
        await Groundedness(generator=judge, context="Paris.").run(_trace())
    assert (tracker.usage.llm_calls, tracker.usage.total_tokens) == (1, 0)


class Verdict(BaseModel):
    label: str


async def test_structured_reader_complete_params_and_metadata():
    gen = ScriptedGenerator(replies=[{"label": "spam"}], params=GenerationParams(temperature=0.2))
    answer = await ask_structured(gen, "Classify: {{ text }}", Verdict, inputs={"text": "WIN $$$"})
    assert answer.value == Verdict(label="spam") and answer.usage.total_tokens == 50
    assert gen.seen_params[0].temperature == 0.2 and gen.seen_params[0].response_format is Verdict
    assert any("WIN $$$" in m.text for m in gen.calls[0])

    done = await gen.complete(
        [UserMessage(content="hello")],
        GenerationParams(max_tokens=5, tools=[{"type": "function"}]),
        {"trace_id": "t-1"},
    )
    assert done.text == '{"label": "spam"}' and done.usage.total_tokens == 50
    assert done.choices[0].message.content == done.text  # the reference's response shape
    assert gen.seen_metadata[-1] == {"trace_id": "t-1"}
    last = gen.seen_params[-1]
    assert (last.max_tokens, last.tools, last.temperature) == (5, [{"type": "function"}], 0.2)
    both = await gen.batch_complete(["one", [UserMessage(content="two")]], metadata={"b": 1})
    assert [d.text for d in both] == [done.text] * 2 and gen.seen_metadata[-2:] == [{"b": 1}] * 2
    assert [c[-1].text for c in gen.calls[-2:]] == ["one", "two"]
    parsed = await gen.complete("again", {"response_format": Verdict})
    assert parsed.parsed == Verdict(label="spam")
    with pytest.raises(GiskardValidationError, match="response_format must be a pydantic"):
        await gen.complete("x", {"response_format": {"type": "json_object"}})
    with pytest.raises(GiskardValidationError, match="params must be a GenerationParams"):
        await gen.complete("x", 0.5)


async def test_an_unreadable_reply_gets_one_repair_then_is_read():
    gen = ScriptedGenerator(replies=["not a verdict", {"passed": True, "reason": "fixed"}])
    result = await Groundedness(generator=gen, context="Paris.").run(_trace())
    assert result.passed and result.message == "fixed"
    assert len(gen.calls) == 2 and "not a verdict" in gen.calls[1][-2].text


async def test_llm_generator_and_user_simulator_write_turns_with_the_double():
    writer = ScriptedGenerator(
        replies=[
            {"goal_reached": False, "message": "Where is order 1234?", "schema_issue": None},
            {"goal_reached": True, "message": None, "schema_issue": None},
        ]
    )
    scenario = Scenario("asks").interact(
        LLMGenerator(prompt="Ask about order 1234.", generator=writer)
    )
    result = await scenario.run(target=lambda inputs: f"echo: {inputs}")
    assert [i.inputs for i in result.final_trace.interactions] == ["Where is order 1234?"]
    assert len(writer.calls) == 2

    user = ScriptedGenerator(
        replies=[{"goal_reached": False, "message": "I need my invoice.", "schema_issue": None}]
    )
    simulated = await (
        Scenario("sim")
        .interact(UserSimulator(persona="impatient_user", max_steps=2, generator=user))
        .run(target=lambda inputs: "Sending it.")
    )
    assert [i.inputs for i in simulated.final_trace.interactions] == ["I need my invoice."] * 2
    assert any("wants the answer now" in m.text for m in user.calls[0])  # the persona's text


def test_with_params_copies_and_merges():
    gen = ScriptedGenerator(replies=[{}], params=GenerationParams(temperature=0.5, tools=["a"]))
    warmer = gen.with_params(temperature=0.9, top_p=0.5)
    assert type(warmer) is ScriptedGenerator and warmer is not gen
    assert warmer.params.temperature == 0.9 and warmer.params.sent()["top_p"] == 0.5
    assert warmer.params.tools == ["a"] and gen.params.temperature == 0.5
    assert warmer.call_params({"tools": ["b"]})["tools"] == ["a", "b"]
    assert GenerationParams().sent() == {}  # nothing set, nothing sent
    # Generator(params=GenerationParams(...)), the giskard-agents constructor, sets its fields
    litellm = Generator(
        model="openai/gpt-4o-mini", params=GenerationParams(temperature=0, max_tokens=50, top_p=0.5)
    )
    assert (litellm.temperature, litellm.max_tokens, litellm.params) == (0, 50, {"top_p": 0.5})
    assert litellm.call_params() == {"temperature": 0, "max_tokens": 50, "top_p": 0.5}


def test_a_base_generator_is_a_labelled_uncached_model_that_saves_by_kind():
    judge = MockJudgeGenerator(passed=True, reason="r")
    assert judge.model == "inproc/MockJudgeGenerator" and judge.cache is False
    with pytest.raises(Exception, match="unknown"):
        MockJudgeGenerator(passed=True, reason="r", unknown=1)

    saved = Saved(answer="y", params=GenerationParams(temperature=0, api_key="sk-secret"))
    check = Groundedness(generator=saved, context="c")
    dumped = check.model_dump_json()
    assert "sk-secret" not in dumped and "sk-secret" not in repr(saved)
    loaded = Groundedness.model_validate_json(dumped)
    assert type(loaded.generator) is Saved and loaded.generator.answer == "y"
    assert loaded.generator.params.temperature == 0
    assert "sk-secret" not in pickle.dumps(saved).decode("latin-1")


async def test_other_return_shapes_and_missing_override():
    class OldStyle(BaseGenerator):  # a plain string still works
        async def _call_model(self, messages, params, metadata=None):
            return '{"passed": true, "reason": "plain text"}'

    assert (await Groundedness(generator=OldStyle(), context="c").run(_trace())).passed

    class TypedGenerator(Generator):  # the typed spelling on a Generator subclass (takes metadata)
        model: str = "inproc/typed"
        cache: bool | None = False

        async def _call_model(self, messages, params, metadata=None):
            assert isinstance(messages[0], ChatMessage) and isinstance(params, GenerationParams)
            return CompletionResponse(
                choices=[Choice(message=AssistantMessage(content="typed ok"))],
                usage=Usage(prompt_tokens=2, completion_tokens=3),
            )

    done = await TypedGenerator().complete("hi")
    assert done.text == "typed ok" and done.usage.total_tokens == 5

    class Broken(BaseGenerator):
        async def _call_model(self, messages, params, metadata=None):
            return {"passed": True}

    with pytest.raises(GiskardValidationError, match="must return a str or a Completion"):
        await Broken().complete("hi")

    class Missing(BaseGenerator):
        pass

    with pytest.raises(NotImplementedError, match="Missing must override async _call_model"):
        await Missing().complete("hi")


def test_message_types_convert_to_and_from_dicts():
    dicts = [
        {"role": "system", "content": "Be brief."},
        {
            "role": "user",
            "content": [{"type": "text", "text": "Hi"}, {"type": "text", "text": "!"}],
        },
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function"}]},
        {"role": "tool", "content": "42", "tool_call_id": "c1"},
    ]
    typed = from_dicts(dicts)
    assert [type(m) for m in typed] == [SystemMessage, UserMessage, AssistantMessage, ToolMessage]
    assert typed[1].text == "Hi\n!" and typed[2].text == "" and typed[3].tool_call_id == "c1"
    assert to_dicts(typed) == dicts
    with pytest.raises(GiskardValidationError, match="role 'robot'"):
        from_dicts([{"role": "robot", "content": "x"}])
    with pytest.raises(GiskardValidationError, match="message 0 is not a chat message"):
        from_dicts([{"role": "user", "content": 12}])
    with pytest.raises(Exception, match="at least 1"):
        CompletionResponse(choices=[])


def test_a_double_defined_in_a_function_or_an_exec_namespace_is_built_where_it_is_written():
    """Field annotations naming local types resolve (this module has postponed annotations, as a
    notebook cell run by ``exec`` or the docs runner may)."""

    class LocalNote(BaseModel):
        text: str

    class LocalDouble(BaseGenerator):
        notes: list[LocalNote] = Field(default_factory=list)

    assert LocalDouble(notes=[{"text": "a"}]).notes == [LocalNote(text="a")]
    source = (
        "from __future__ import annotations\n"
        "from collections.abc import Sequence\n"
        "from pydantic import Field\n"
        "from giskard_nb.agents.generators.base import BaseGenerator\n"
        "from giskard_nb.llm.types import ChatMessage\n"
        "class CellDouble(BaseGenerator):\n"
        "    calls: list[Sequence[ChatMessage]] = Field(default_factory=list)\n"
        "made = CellDouble()\n"
    )
    namespace: dict[str, Any] = {"__name__": "__not_a_module__"}
    exec(compile(source, "<cell>", "exec"), namespace)
    assert namespace["made"].calls == []
