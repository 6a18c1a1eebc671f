"""Persona-based generation: conversations a persona would start, each with the behaviour expected.

``await generate_from_persona(persona, n_examples=10)`` asks the generator for batches of conversations
(the conversations already written are listed in later prompts so batches do not repeat each other),
drops malformed and duplicate ones, and returns ``GeneratedCase``s whose check is a conformity check
with the persona's rules plus the behaviour expected in that conversation. Needs a generator model
(``ConfigError`` saying how to configure one otherwise).
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, Field

from giskard_nb.dataset_generation.dedup import Deduplicator, keep_new_cases
from giskard_nb.dataset_generation.models import GeneratedCase, GenerationResult, Persona
from giskard_nb.errors import GiskardValidationError
from giskard_nb.llm.structured import ask_structured, require_generator
from giskard_nb.llm.templates import TemplateReference, render_messages

__all__ = ["generate_from_persona"]

_AVOID_SHOWN = 40
_PROMPT = TemplateReference(template_name="giskard_nb.dataset_generation::persona_cases.j2")


class _Turn(BaseModel):
    role: Literal["user", "assistant"]
    content: str


class _Conversation(BaseModel):
    turns: list[_Turn] = Field(min_length=1)
    expected_behavior: str = ""


class _Batch(BaseModel):
    conversations: list[_Conversation]


async def generate_from_persona(
    persona: Persona | dict[str, Any],
    *,
    n_examples: int = 10,
    agent_name: str = "",
    agent_description: str = "",
    language: str = "English",
    generator: Any = None,
    embedding_model: Any = None,
    existing: list[str] | tuple[str, ...] = (),
    batch_size: int = 5,
    source: dict[str, Any] | None = None,
) -> GenerationResult:
    """``n_examples`` test cases for ``persona`` (see the module docstring). ``existing``: texts of
    test cases already in the target dataset (never generated again); ``source`` is merged into each
    case's ``source``."""
    if n_examples < 1:
        raise GiskardValidationError(f"n_examples must be at least 1, got {n_examples}")
    persona = persona if isinstance(persona, Persona) else Persona.model_validate(persona)
    model = require_generator("generating test cases from a persona", generator)
    dedup = Deduplicator(embedding_model=embedding_model, existing=existing)
    result = GenerationResult(cases=[], requested=n_examples)
    avoid: list[str] = []
    rounds = math.ceil(n_examples / batch_size) * 2 + 1
    for round_number in range(rounds):
        missing = n_examples - len(result.cases)
        if missing <= 0:
            break
        messages = render_messages(
            _PROMPT,
            {
                "persona": persona,
                "agent_name": agent_name,
                "agent_description": agent_description,
                "language": language,
                "n": min(batch_size, missing),
                "avoid": avoid[-_AVOID_SHOWN:],
            },
        )
        try:
            answer = await ask_structured(model, messages, _Batch)
        except Exception as exc:  # one failed call: note it and try another batch
            result.errors.append(f"{type(exc).__name__}: {exc}"[:300])
            continue
        batch = answer.value
        result.usage = result.usage + answer.usage
        cases = []
        for conversation in batch.conversations:
            case = _to_case(conversation, persona, {**(source or {}), "batch": round_number})
            if case is None:
                result.invalid += 1
            else:
                cases.append(case)
        avoid.extend(await keep_new_cases(dedup, cases, result, n_examples))
    return result


def _to_case(
    conversation: _Conversation, persona: Persona, source: dict[str, Any]
) -> GeneratedCase | None:
    turns = [t for t in conversation.turns if t.content.strip()]
    while turns and turns[-1].role == "assistant":
        turns.pop()
    if not turns or turns[0].role != "user":
        return None
    messages = [{"role": t.role, "content": t.content.strip()} for t in turns]
    rules = list(persona.rules)
    expected = conversation.expected_behavior.strip()
    if expected:
        rules.append(expected)
    checks = [{"identifier": "conformity", "params": {"rules": rules}}] if rules else []
    return GeneratedCase(
        messages=messages,
        checks=checks,
        tags=[f"persona:{persona.name}"],
        source={"kind": "scenario", "persona": persona.name, **source},
    )
