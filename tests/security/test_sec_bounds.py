"""Hostile values get a clear, bounded answer: deep or huge JSON, an endless JSONPath, an echoed key."""

from __future__ import annotations

import json

import pytest

from giskard_nb.checks import JsonValid
from giskard_nb.checks.json_text import MAX_PARSE_DEPTH, json_syntax_depth
from giskard_nb.checks.llm import Correctness
from giskard_nb.core.extraction import MAX_PATH_STEPS, compile_path
from giskard_nb.core.interaction import Interaction, Trace
from giskard_nb.core.sync import run_sync
from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub import Hub
from giskard_nb.testing import FakeLLMServer, FakeReply

USER_KEY = "sk-user-key-0123456789abcdef"


def _run(check, output) -> object:
    return check.run(Trace(interactions=[Interaction(inputs="q", outputs=output)]))


@pytest.mark.parametrize(
    "text",
    [
        "[" * 990 + "]" * 990,
        '{"a":' * 5_000 + "1" + "}" * 5_000,
        "1" * 5_000,
        '{"n": -' + "9" * 50_000 + "}",
        json.dumps({"nested": [[[{"x": 1}]]]}),
    ],
)
def test_valid_json_is_valid_however_deep_or_long(text: str):
    result = _run(JsonValid(), text)
    assert result.status.value == "pass", result.message


@pytest.mark.parametrize(
    "text",
    ["[" * 990 + "]" * 989, "[" * 990 + "]" * 991, "[" * 500 + "1,]" + "]" * 499, '{"a" 1}' * 300],
)
def test_invalid_json_is_invalid_however_deep(text: str):
    result = _run(JsonValid(), text)
    assert result.status.value == "fail" and "not valid JSON" in result.message


def test_a_schema_reads_long_integers_and_says_when_json_is_too_deep_for_it():
    check = JsonValid(schema={"type": "object", "properties": {"n": {"type": "integer"}}})
    assert _run(check, '{"n": ' + "7" * 5_000 + "}").status.value == "pass"
    assert _run(check, '{"n": "x"}').status.value == "fail"
    deep = _run(check, "[" * 990 + "]" * 990)
    assert deep.status.value == "error" and f"at most {MAX_PARSE_DEPTH} levels" in deep.message
    assert json_syntax_depth(' [[ ], {"a": [1]}] ') == 3


def test_an_endless_jsonpath_is_refused_clearly():
    path = "trace" + "..a" * 2_000
    with pytest.raises(GiskardValidationError, match="too long"):
        compile_path(path)
    assert compile_path("trace" + ".a" * (MAX_PATH_STEPS - 1)).steps is not None
    with Hub(":memory:") as hub:
        project = hub.projects.create("p")
        dataset = hub.datasets.create(project.id, name="d")
        with pytest.raises(GiskardValidationError, match="at most 1000 characters"):
            hub.test_cases.create(
                dataset.id,
                messages="q",
                checks=[{"identifier": "json_valid", "params": {"target_key": path}}],
            )


def test_a_key_echoed_by_the_provider_is_masked_in_the_check_message(
    monkeypatch: pytest.MonkeyPatch,
):
    """No key configured: litellm sends OPENAI_API_KEY; the provider's 401 echoes it back."""
    monkeypatch.setenv("OPENAI_API_KEY", USER_KEY)
    echo = f"Incorrect API key provided: {USER_KEY}. Also tried Bearer tok3n-abcdefghijkl."
    with FakeLLMServer(reply=FakeReply.fail(401, echo)) as server:
        generator = server.generator(api_key=None, max_retries=0)
        check = Correctness(reference="a", generator=generator)
        result = run_sync(check.run(Trace(interactions=[Interaction(inputs="q", outputs="a")])))
        assert server.chat_requests  # the call was made, with the environment's key
    assert result.status.value == "error"
    assert USER_KEY not in result.message and "tok3n-abcdefghijkl" not in result.message
    assert "***" in result.message
