"""Tolerant reading of near-JSON judge replies."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field

from giskard_nb.llm.parsing import ReplyParseError, parse_reply, repair_message, schema_instructions


class Verdict(BaseModel):
    reason: str
    passed: bool


class Scored(BaseModel):
    score: float = Field(ge=0, le=1)
    tags: list[str] = []


@pytest.mark.parametrize(
    "text",
    [
        '{"reason": "ok", "passed": true}',
        '  \n{"reason": "ok", "passed": true}\n',
        '```json\n{"reason": "ok", "passed": true}\n```',
        '```\n{"reason": "ok", "passed": true}\n```',
        'Here is my verdict: {"reason": "ok", "passed": true} Hope it helps!',
        '{"reason": "ok", "passed": true,}',
        "{'reason': 'ok', 'passed': True}",
        '{"verdict": {"reason": "ok", "passed": true}}',
        '{"reason": "ok", "passed": "true"}',
        "passed: true\nreason: ok",
        "- reason: ok\n- passed: yes",
    ],
)
def test_near_json_forms_are_read(text):
    assert parse_reply(text, Verdict) == Verdict(reason="ok", passed=True)


def test_braces_inside_strings_and_nested_objects():
    text = 'Note {this is prose}. {"reason": "uses } and { inside", "passed": false}'
    assert parse_reply(text, Verdict) == Verdict(reason="uses } and { inside", passed=False)


def test_the_first_object_that_validates_wins():
    text = 'Example: {"foo": 1}. Answer: {"reason": "real", "passed": true}'
    assert parse_reply(text, Verdict).reason == "real"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (None, "empty"),
        ("   ", "empty"),
        ("I think it passes.", "no JSON object"),
        ('{"reason": "ok"}', "passed"),
        ('{"reason": "ok", "passed": "maybe"}', "passed"),
    ],
)
def test_unreadable_replies_say_why(text, why):
    with pytest.raises(ReplyParseError, match=why):
        parse_reply(text, Verdict)


def test_constraints_are_enforced():
    assert parse_reply('{"score": 0.5}', Scored).score == 0.5
    with pytest.raises(ReplyParseError, match="score"):
        parse_reply('{"score": 7}', Scored)


def test_instructions_carry_the_schema_and_the_repair_names_the_fields():
    text = schema_instructions(Verdict)
    assert '"passed"' in text and "JSON schema" in text
    assert "reason, passed" in repair_message("bad", Verdict)
