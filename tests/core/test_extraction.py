from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError

from giskard_nb import Equals, Interaction, NoMatch, StringMatching, Trace, resolve
from giskard_nb.core.extraction import compile_path, resolve_value


class Answer(BaseModel):
    answer: str
    sources: list[str]


@pytest.fixture
def trace() -> Trace:
    return Trace(
        interactions=[
            Interaction(inputs="q1", outputs={"answer": "a1", "n": 1}, metadata={"model": "m1"}),
            Interaction(inputs="q2", outputs=Answer(answer="a2", sources=["s1", "s2"])),
        ],
        annotations={"tenant": "acme"},
    )


def test_simple_paths(trace):
    assert resolve(trace, "trace.interactions[0].outputs.answer") == "a1"
    assert resolve(trace, "trace.interactions[0].metadata.model") == "m1"
    assert resolve(trace, "trace.last.outputs.answer") == "a2"
    assert resolve(trace, "trace.last.outputs.sources[1]") == "s2"
    assert resolve(trace, "trace.annotations.tenant") == "acme"
    assert resolve(trace, "trace.interactions[0].outputs['n']") == 1
    assert resolve(trace, "$.trace.last.inputs") == "q2"


def test_models_resolve_to_plain_data_like_a_dump(trace):
    assert resolve(trace, "trace.last.outputs") == {"answer": "a2", "sources": ["s1", "s2"]}
    assert resolve(trace, "trace.interactions[-1]") == trace.interactions[-1].model_dump()


def test_no_match_cases(trace):
    for path in (
        "trace.last.outputs.missing",
        "trace.interactions[5].outputs",
        "trace.last.metadata.context",
        "trace.last.outputs.answer.deeper",
    ):
        value = resolve(trace, path)
        assert isinstance(value, NoMatch) and not value and path in str(value)
    assert isinstance(resolve(Trace(), "trace.last.outputs"), NoMatch)
    assert resolve(Trace(), "trace.last") is None


def test_list_expressions_return_lists_and_an_empty_list_when_nothing_matches(trace):
    assert resolve(trace, "trace.interactions[*].inputs") == ["q1", "q2"]
    assert resolve(trace, "trace.interactions[0:1].inputs") == ["q1"]
    # As in giskard-checks: a list-type path over an empty collection is [] (a simple path stays NoMatch).
    assert resolve(Trace(), "trace.interactions[*].inputs") == []
    assert resolve(Trace(), "trace..outputs") == []


def test_invalid_paths_fail_when_the_check_is_built():
    with pytest.raises(ValidationError, match="invalid JSONPath"):
        StringMatching(keyword="x", target_key="trace.last.outputs[")
    with pytest.raises(ValidationError, match="must start with 'trace.'"):
        Equals(expected_value=1, key="outputs.answer")


def test_paths_are_compiled_once():
    assert compile_path("trace.last.outputs.x") is compile_path("trace.last.outputs.x")
    assert compile_path("trace.last.outputs.x").steps == ("last", "outputs", "x")


def test_resolve_value_on_any_root():
    data = {"tool_calls": [{"name": "search"}]}
    assert resolve_value(data, "$.tool_calls[0].name") == "search"
    assert isinstance(resolve_value(data, "$.nope"), NoMatch)
