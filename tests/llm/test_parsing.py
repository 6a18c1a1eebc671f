"""The strict reader of structured replies: one JSON object (optionally fenced), validated strictly."""

from __future__ import annotations

import enum

import pytest
from pydantic import BaseModel, Field

from giskard_nb.llm.parsing import ReplyParseError, parse_reply, repair_message, schema_instructions


class Verdict(BaseModel):
    reason: str
    passed: bool


class Scored(BaseModel):
    score: float = Field(ge=0, le=1)
    tags: list[str] = []


class Level(enum.Enum):
    LOW = "low"
    HIGH = "high"


class Leveled(BaseModel):
    level: Level
    count: int = 0


@pytest.mark.parametrize(
    "text",
    [
        '{"reason": "ok", "passed": true}',
        '  \n{"reason": "ok", "passed": true}\n',
        '{\n  "reason": "ok",\n  "passed": true\n}',
        '```json\n{"reason": "ok", "passed": true}\n```',
        '```JSON\n{"reason": "ok", "passed": true}\n```',
        '```\n{"reason": "ok", "passed": true}\n```',
        '\n  ```json\n  {"reason": "ok", "passed": true}\n  ```  \n',
        '{"reason": "ok", "passed": true, "confidence": 0.9}',  # unknown keys are ignored
    ],
)
def test_the_object_alone_or_in_one_fence_is_read(text):
    assert parse_reply(text, Verdict) == Verdict(reason="ok", passed=True)


def test_braces_inside_strings_are_data():
    text = '{"reason": "uses } and { inside", "passed": false}'
    assert parse_reply(text, Verdict) == Verdict(reason="uses } and { inside", passed=False)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (None, "empty"),
        ("   ", "empty"),
        ("I think it passes.", "no text around it"),
        ('Here is my verdict: {"reason": "ok", "passed": true}', "no text around it"),
        ('{"reason": "ok", "passed": true} Hope it helps!', "more follows it"),
        ('{"reason": "a", "passed": true}{"reason": "a", "passed": true}', "more follows it"),
        ('Example: {"foo": 1}. Answer: {"reason": "real", "passed": true}', "no text around it"),
        ('[{"reason": "ok", "passed": true}]', "JSON list"),
        ("null", "JSON null"),
        ("true", "JSON boolean"),
        ("0.9", "JSON number"),
        ('"passed"', "JSON string"),
        ('{"verdict": {"reason": "ok", "passed": true}}', "none of the fields"),
        ("{}", "none of the fields"),
        ('{"reason": "ok", "passed": true,}', "not valid JSON"),
        ("{'reason': 'ok', 'passed': True}", "not valid JSON"),
        ('{"reason": "ok", "passed": true', "not valid JSON"),
        ('{"reason": "ok", "passed": false, "passed": true}', "'passed' appears twice"),
        ('{"reason": "ok", "passed": true, "x": {"a": 1, "a": 2}}', "'a' appears twice"),
        ('{"reason": "ok", "passed": true, "x": NaN}', "NaN is not a JSON value"),
        ('{"reason": "ok", "passed": true, "x": -Infinity}', "-Infinity is not"),
        ('{"reason": "ok", "passed": true, "x": 1e999}', "too large"),
        ('{"reason": "ok"}', "passed: Field required"),
        ('{"reason": "ok", "passed": "maybe"}', "passed"),
        ('{"reason": "ok", "passed": "true"}', "valid boolean"),
        ('{"reason": "ok", "passed": "yes"}', "valid boolean"),
        ('{"reason": "ok", "passed": 1}', "valid boolean"),
        ('{"reason": 3, "passed": true}', "valid string"),
        ("```python\n{'reason': 'ok', 'passed': True}\n```", "no text around it"),
        ('```json\n{"reason": "ok", "passed": true}\n```\nOr rather false.', "no text around it"),
        ("[" * 5000 + "]" * 5000, "JSON list"),
        ('{"a":' * 5000 + "1" + "}" * 5000, "nested too deeply"),
    ],
)
def test_unreadable_replies_say_why(text, why):
    with pytest.raises(ReplyParseError, match=why.replace("(", r"\(")):
        parse_reply(text, Verdict)


def test_numbers_are_checked_against_their_declared_range_and_never_converted():
    assert parse_reply('{"score": 0.5}', Scored).score == 0.5
    assert parse_reply('{"score": 1}', Scored).score == 1.0  # an integer is a number
    for bad in ('{"score": 7}', '{"score": -0.1}', '{"score": "0.9"}', '{"score": null}'):
        with pytest.raises(ReplyParseError, match="score"):
            parse_reply(bad, Scored)
    with pytest.raises(ReplyParseError, match="tags"):
        parse_reply('{"score": 0.5, "tags": "one"}', Scored)


def test_enums_are_read_from_their_json_values_and_integers_stay_integers():
    assert parse_reply('{"level": "high"}', Leveled).level is Level.HIGH
    for bad in (
        '{"level": "medium"}',
        '{"level": "high", "count": 1.0}',
        '{"level": "high", "count": "2"}',
    ):
        with pytest.raises(ReplyParseError):
            parse_reply(bad, Leveled)


def test_instructions_carry_the_schema_and_the_repair_names_the_fields():
    text = schema_instructions(Verdict)
    assert '"passed"' in text and "JSON schema" in text
    assert "reason, passed" in repair_message("bad", Verdict)
