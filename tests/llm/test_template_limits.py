"""Templates cannot exhaust the machine: time, output, range and value sizes are limited, with errors
naming the limit. Hostile templates fail with ``TemplateLimitError`` before building the big value."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from giskard_nb import Interaction, LLMJudge, Trace, run_sync
from giskard_nb.core.result import CheckStatus
from giskard_nb.llm.sandbox import TemplateLimits, render_limited, sandbox
from giskard_nb.llm.templates import TemplateError, TemplateLimitError, render_messages, render_text

PACKAGE = Path(__file__).resolve().parents[2] / "giskard_nb"

_OWN_ENVIRONMENT = (
    r"SandboxedEnvironment\s*\(|import[^\n]*SandboxedEnvironment|jinja2\.Environment\s*\("
    r"|from jinja2 import[^\n]*\bEnvironment\b"
)
HOSTILE = {
    "string repetition": ("{{ 'a' * 10**9 }}", "GISKARD_NB_TEMPLATE_MAX_OUTPUT"),
    "list repetition": ("{{ ([0] * 10**9)|length }}", "GISKARD_NB_TEMPLATE_MAX_OUTPUT"),
    "reversed repetition": ("{{ 10**9 * 'ab' }}", "GISKARD_NB_TEMPLATE_MAX_OUTPUT"),
    "huge power": ("{{ 10 ** 1000000 }}", "digits"),
    "big range": ("{% for i in range(100000) %}x{% endfor %}", "GISKARD_NB_TEMPLATE_MAX_RANGE"),
    "output in a loop": ("{% for i in range(10000) %}{{ big }}{% endfor %}", "MAX_OUTPUT"),
    "buffered output": (
        "{% message user %}{% for i in range(10000) %}{% for j in range(10000) %}xxxxxxxx"
        "{% endfor %}{% endfor %}{% endmessage %}",
        "GISKARD_NB_TEMPLATE_MAX_OUTPUT",
    ),
    "concatenation": ("{% set s = 'a' * 900000 %}{{ s + s }}", "GISKARD_NB_TEMPLATE_MAX_OUTPUT"),
    "center filter": ("{{ 'a'|center(10**9) }}", "center"),
    "str method width": ("{{ 'a'.ljust(10**9) }}", "ljust"),
    "percent width": ("{{ '%*s' % (10**9, 'a') }}", "padded string"),
    "format width": ("{{ '{:>999999999}'.format(1) }}", "padded string"),
    "endless macro": ("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}", "recursed"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_templates_fail_with_a_limit_error(name: str):
    template, says = HOSTILE[name]
    with pytest.raises(TemplateLimitError, match=re.escape(says)):
        render_messages(template, {"big": "b" * 1000})


def test_a_nested_loop_stops_at_the_time_limit(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("GISKARD_NB_TEMPLATE_TIMEOUT", "0.2")
    nested = "{% for i in range(10000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}ok"
    with pytest.raises(TemplateLimitError) as info:
        render_text(nested, {})
    assert "exceeded the render time limit of 0.2 s" in str(info.value)
    assert "GISKARD_NB_TEMPLATE_TIMEOUT" in str(info.value)


def test_limits_are_configurable(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("GISKARD_NB_TEMPLATE_MAX_RANGE", "100000")
    assert render_text("{{ range(50000)|length }}", {}) == "50000"
    monkeypatch.setenv("GISKARD_NB_TEMPLATE_MAX_OUTPUT", "50")
    with pytest.raises(TemplateLimitError, match="more than 50 characters"):
        render_text("{{ text }}", {"text": "x" * 51})
    monkeypatch.setenv("GISKARD_NB_TEMPLATE_TIMEOUT", "soon")
    with pytest.raises(
        TemplateError, match="GISKARD_NB_TEMPLATE_TIMEOUT must be a positive number"
    ):
        render_text("{{ 1 }}", {})


def test_ordinary_templates_still_work():
    text = render_text(
        "{% for x in items %}{{ loop.index }}/{{ loop.length }} {{ x * 2 }} {% endfor %}"
        "{{ 'ab' * 3 }} {{ 2 ** 10 }} {{ '%5s|' % 'a' }} {{ 'x'|center(5) }}|{{ name + '!' }}",
        {"items": [1, 2, 3], "name": "Ada"},
    )
    assert text == "1/3 2 2/3 4 3/3 6 ababab 1024     a|   x  |Ada!"
    assert TemplateLimits() == TemplateLimits(timeout=2.0, max_output=1_000_000, max_range=10_000)


def test_the_same_limits_apply_to_every_sandbox_of_the_package():
    env = sandbox(autoescape=False)
    with pytest.raises(TemplateLimitError):
        render_limited(env.from_string("{{ 'a' * 10**9 }}"), {})
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path.relative_to(PACKAGE).as_posix() == "llm/sandbox.py":
            continue
        text = path.read_text(encoding="utf-8")
        if re.search(_OWN_ENVIRONMENT, text):
            offenders.append(str(path))
    assert offenders == [], "build Jinja environments with giskard_nb.llm.sandbox.sandbox()"


def test_a_judge_with_a_hostile_prompt_is_an_error_result_not_a_hung_run(server):
    judge = LLMJudge(prompt="{{ 'a' * 10**9 }} {{ outputs }}", generator=server.generator())
    trace = Trace(interactions=[Interaction(inputs="hi", outputs="hello")])
    result = run_sync(judge.run(trace))
    assert result.status == CheckStatus.ERROR
    assert "GISKARD_NB_TEMPLATE_MAX_OUTPUT" in result.message
    assert server.chat_requests == []  # nothing was sent to the judge
