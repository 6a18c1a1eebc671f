"""Behaviour aligned with giskard-checks 1.0.6 (issue 15, item 3)."""

from __future__ import annotations

import asyncio
from importlib import resources

import pytest

from giskard_nb import CheckResult, Interaction, Scenario, Suite, Trace
from giskard_nb.checks import AllOf, AnyOf, Equals, JsonValid, StringMatching
from giskard_nb.core.check import Check
from giskard_nb.core.extraction import resolve
from giskard_nb.core.spec import InputGenerator


@Check.register("test_alignment_raise")
class _Raise(Check):
    def run(self, trace: Trace) -> CheckResult:
        raise RuntimeError("broken arm")


_T = Trace(interactions=[Interaction(inputs="q", outputs="hello world")])


def _run(check, trace=_T):
    async def go():
        return await check.run(trace)

    return asyncio.run(go())


def test_any_of_returns_error_at_the_first_erroring_arm():
    yes = StringMatching(keyword="hello", key="trace.last.outputs")
    result = _run(AnyOf(checks=[_Raise(), yes]))
    assert result.errored and "broken arm" in result.message
    assert _run(AnyOf(checks=[yes, _Raise()])).passed


def test_all_of_message_joins_the_inner_pass_messages():
    a = StringMatching(keyword="hello", key="trace.last.outputs")
    b = StringMatching(keyword="world", key="trace.last.outputs")
    result = _run(AllOf(checks=[a, b]))
    assert result.passed
    assert result.message == f"{_run(a).message}; {_run(b).message}"


@pytest.mark.parametrize(("match", "passed"), [("all", True), ("none", True), ("any", False)])
def test_empty_collections_give_an_empty_list(match, passed):
    assert resolve(Trace(), "trace.interactions[*].outputs") == []
    check = Equals(expected_value="x", key="trace.interactions[*].outputs", match=match)
    result = _run(check, Trace())
    assert result.passed is passed and not result.errored


def test_details_keys_exist_under_the_reference_names():
    assert (
        _run(Equals(expected_value="hello world", key="trace.last.outputs")).details["actual_value"]
        == "hello world"
    )
    t = Trace(interactions=[Interaction(inputs="q", outputs='{"a": 1}')])
    assert _run(JsonValid(key="trace.last.outputs"), t).details["value"] == '{"a": 1}'


def test_suite_run_accepts_verbose():
    suite = Suite(
        "verbose",
        scenarios=[
            Scenario("s")
            .interact("a", "b")
            .check(Equals(expected_value="b", key="trace.last.outputs"))
        ],
    )
    assert suite.run_sync(verbose=False).pass_rate == 1.0


@InputGenerator.register("test_alignment_typed_inputs")
class _TypedInputs(InputGenerator):
    async def __call__(self, trace, input_type=None):
        yield f"type={getattr(input_type, '__name__', input_type)}"


def test_interact_forwards_the_target_input_annotation():
    def agent(question: int) -> str:
        return str(question)

    result = Scenario("typed", target=agent).interact(_TypedInputs()).run_sync()
    assert result.final_trace.last.inputs == "type=int"

    def untyped(question):
        return question

    result = Scenario("untyped", target=untyped).interact(_TypedInputs()).run_sync()
    assert result.final_trace.last.inputs == "type=None"


def test_saved_scenario_with_unknown_keys_loads_with_a_warning():
    data = Scenario("s").interact("a", "b").model_dump(mode="json")
    data["added_in_a_future_version"] = {"x": 1}
    with pytest.warns(UserWarning, match="added_in_a_future_version"):
        loaded = Scenario.model_validate(data)
    assert loaded.name == "s" and len(loaded.steps) == 1


def test_giskard_checks_env_vars_are_fallbacks(monkeypatch):
    from giskard_nb.llm import settings

    monkeypatch.setattr(settings, "_state", {**settings._state, "generator": None})
    monkeypatch.delenv("GISKARD_NB_MODEL", raising=False)
    monkeypatch.delenv("GISKARD_CHECKS_DEFAULT_MODEL", raising=False)
    assert settings.get_default_generator(required=False) is None  # nothing set: no paid provider
    monkeypatch.setenv("GISKARD_CHECKS_DEFAULT_MODEL", "openai/from-checks")
    assert settings.get_default_generator().model == "openai/from-checks"
    monkeypatch.setenv("GISKARD_NB_MODEL", "openai/from-nb")
    assert (
        settings.get_default_generator().model == "openai/from-nb"
    )  # giskard-nb's own setting wins
    assert settings._env("GISKARD_NB_EMBEDDING_MODEL_UNSET_X", "GISKARD_CHECKS_UNSET_Y") == ""
    monkeypatch.setenv("GISKARD_CHECKS_DEFAULT_EMBEDDING_MODEL", "offline")
    monkeypatch.delenv("GISKARD_NB_EMBEDDING_MODEL", raising=False)
    monkeypatch.setattr(settings, "_state", {**settings._state, "embedding": None})
    assert type(settings.get_default_embedding_model()).__name__ == "OfflineEmbeddingModel"


def test_py_typed_marker_is_shipped():
    assert resources.files("giskard_nb").joinpath("py.typed").is_file()


class _ChatTrace(Trace):
    @property
    def turns(self) -> int:
        return len(self.interactions)


def test_the_trace_type_is_inferred_from_the_target_annotation():
    def agent(inputs: str, trace: _ChatTrace) -> str:
        return f"turn {trace.turns}"

    result = Scenario("inferred", target=agent).interact("a").interact("b").run_sync()
    assert type(result.final_trace) is _ChatTrace
    assert result.final_trace.last.outputs == "turn 1"
    explicit = Scenario("explicit", target=agent, trace_type=Trace).interact("a").run_sync()
    assert type(explicit.final_trace) is Trace  # an explicit trace_type wins

    class Callable:
        __hash__ = None

        def __call__(self, inputs):
            return inputs

    plain = Scenario("plain", target=Callable()).interact("a").run_sync()
    assert type(plain.final_trace) is Trace and plain.final_trace.last.outputs == "a"
