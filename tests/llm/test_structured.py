"""The one structured-answer helper: render in the sandbox, call, read strictly, repair once."""

from __future__ import annotations

import ast
from pathlib import Path
from types import SimpleNamespace

import pytest
from pydantic import BaseModel

from giskard_nb.core.usage import Usage
from giskard_nb.errors import ConfigError
from giskard_nb.llm import LLMResponseError, TemplateError, TemplateReference
from giskard_nb.llm.structured import ask_structured, read_structured, require_generator

PACKAGE = Path(__file__).resolve().parents[2] / "giskard_nb"


class Verdict(BaseModel):
    reason: str
    passed: bool


async def test_a_template_is_rendered_sent_and_its_reply_read(gen, server):
    server.reply = '{"reason": "fine", "passed": true}'
    answer = await ask_structured(gen, "Is {{ text }} polite?", Verdict, inputs={"text": "hello"})
    assert answer.value == Verdict(reason="fine", passed=True)
    assert answer.usage.llm_calls == 1 and answer.completion.parsed is answer.value
    (request,) = server.chat_requests
    assert request.messages[-1]["content"].startswith("Is hello polite?")


async def test_a_packaged_prompt_renders_in_the_one_sandbox(gen, server):
    server.reply = '{"topics": []}'

    class Names(BaseModel):
        topics: list[str]

    prompt = TemplateReference(template_name="giskard_nb.kb::topic_names.j2")
    clusters = [{"index": 0, "keywords": ["refund"], "excerpts": ["{{ 7 * 7 }} is data"]}]
    await ask_structured(gen, prompt, Names, inputs={"clusters": clusters})
    sent = server.chat_requests[0].messages[-1]["content"]
    assert "## Cluster 0\nFrequent distinctive words: refund\n" in sent
    assert "- {{ 7 * 7 }} is data" in sent  # a value is data, never evaluated as a template
    with pytest.raises(TemplateError, match="undefined value"):
        await ask_structured(gen, prompt, Names, inputs={})


async def test_junk_is_repaired_once_then_an_error_with_both_replies(gen, server):
    server.queue("passes, I think", '{"reason": "ok", "passed": false}')
    answer = await ask_structured(gen, [{"role": "user", "content": "Judge"}], Verdict)
    assert answer.value.passed is False and answer.completion.repaired
    assert answer.usage.llm_calls == 2
    server.reply = "no idea"
    with pytest.raises(LLMResponseError) as info:
        await ask_structured(gen, [{"role": "user", "content": "Judge"}], Verdict)
    assert info.value.raw_replies == ["no idea", "no idea"]


class Duck:
    """A generator of another kind: anything with an async ``complete``."""

    def __init__(self, completion):
        self.completion = completion
        self.seen = []

    async def complete(self, messages, **params):
        self.seen.append((messages, params))
        return self.completion


@pytest.mark.parametrize(
    "completion",
    [
        SimpleNamespace(parsed=Verdict(reason="r", passed=True)),
        SimpleNamespace(parsed={"reason": "r", "passed": True}, usage={"llm_calls": 1}),
        SimpleNamespace(parsed=None, text='```json\n{"reason": "r", "passed": true}\n```'),
        SimpleNamespace(parsed='{"reason": "r", "passed": true}'),
    ],
)
async def test_other_generators_get_the_same_strict_reader(completion):
    duck = Duck(completion)
    answer = await ask_structured(duck, [{"role": "user", "content": "x"}], Verdict, temperature=0)
    assert answer.value == Verdict(reason="r", passed=True)
    assert duck.seen == [
        ([{"role": "user", "content": "x"}], {"output_type": Verdict, "temperature": 0})
    ]


@pytest.mark.parametrize(
    ("completion", "why"),
    [
        (SimpleNamespace(parsed={"reason": "r", "passed": "true"}), "does not match Verdict"),
        (
            SimpleNamespace(parsed=None, text='Sure! {"reason": "r", "passed": true}'),
            "does not match",
        ),
        (SimpleNamespace(parsed=None, text=""), "empty"),
        (SimpleNamespace(parsed=3), "holds no Verdict"),
    ],
)
async def test_other_generators_junk_is_an_error_never_a_value(completion, why):
    completion.usage = Usage(llm_calls=1, total_tokens=9)
    with pytest.raises(LLMResponseError, match=why) as info:
        await ask_structured(Duck(completion), [{"role": "user", "content": "x"}], Verdict)
    assert info.value.usage == Usage(llm_calls=1, total_tokens=9)  # the call was paid for


def test_read_structured_keeps_a_parsed_instance_as_is():
    verdict = Verdict(reason="r", passed=False)
    assert read_structured(SimpleNamespace(parsed=verdict), Verdict) is verdict


def test_require_generator_says_how_to_configure_one():
    marker = object()
    assert require_generator("naming topics", marker) is marker
    with pytest.raises(
        ConfigError, match="naming topics needs a generator model.*GISKARD_NB_MODEL"
    ):
        require_generator("naming topics")


def _calls(tree: ast.AST) -> list[tuple[str, set[str]]]:
    """(called name, keyword names) of every call in a module."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            found.append((name, {k.arg for k in node.keywords if k.arg}))
    return found


def test_every_structured_call_goes_through_the_helper():
    """House rule: a structured answer is asked through ``llm.structured`` (no other module calls
    ``complete(..., output_type=...)``), and the hardened sandbox is built in two places only: the prompts'
    (``llm/templates.py``) and the HTML report pages' (``report/page.py``, autoescape on)."""
    asking, sandboxes = [], []
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE).as_posix()
        for name, keywords in _calls(ast.parse(path.read_text(encoding="utf-8"))):
            if name == "complete" and "output_type" in keywords:
                asking.append(rel)
            if name in ("sandbox", "SandboxedEnvironment", "ImmutableSandboxedEnvironment"):
                sandboxes.append(rel)
    assert set(asking) <= {"llm/structured.py", "llm/generator.py", "llm/base_generator.py"}, asking
    assert set(sandboxes) == {"llm/templates.py", "report/page.py"}, sandboxes
