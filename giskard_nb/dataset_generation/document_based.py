"""Document-based generation: questions a knowledge base answers, with a reference answer and context.

``await generate_from_passages(passages, n_examples=10)`` spreads the questions over topics (round
robin, passages shuffled with ``seed`` inside each topic) and over question kinds (simple, situational,
complex), asks the generator for one question and its reference answer per passage (``concurrency``
calls at a time), drops duplicates, and returns ``GeneratedCase``s with two checks: ``correctness``
against the reference answer and ``groundedness`` against the passage. Each case's ``source`` names
its passage and topic. Needs a generator model (``ConfigError`` saying how to configure one otherwise).
"""

from __future__ import annotations

import asyncio
import random
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from giskard_nb.dataset_generation.dedup import Deduplicator, keep_new_cases
from giskard_nb.dataset_generation.models import GeneratedCase, GenerationResult, Passage
from giskard_nb.errors import GiskardValidationError
from giskard_nb.llm.structured import ask_structured, require_generator
from giskard_nb.llm.templates import TemplateReference

__all__ = ["QUESTION_KINDS", "generate_from_passages", "plan_passages"]

QUESTION_KINDS = ("simple", "situational", "complex")
_AVOID_SHOWN = 20
_PROMPT = TemplateReference(template_name="giskard_nb.dataset_generation::document_question.j2")


class _QA(BaseModel):
    question: str = Field(min_length=1)
    reference_answer: str = Field(min_length=1)


def plan_passages(passages: Sequence[Passage], n: int, *, seed: int = 0) -> list[Passage]:
    """``n`` passages taken in turn from each topic (each passage once before any is reused)."""
    if not passages:
        raise GiskardValidationError("no passage to generate questions from")
    rng = random.Random(seed)
    by_topic: dict[str | None, list[Passage]] = defaultdict(list)
    for passage in passages:
        by_topic[passage.topic_id].append(passage)
    queues = []
    for topic in sorted(by_topic, key=lambda t: (t is None, str(t))):
        items = list(by_topic[topic])
        rng.shuffle(items)
        queues.append(items)
    order: list[Passage] = []
    depth = 0
    while len(order) < len(passages):
        order.extend(q[depth] for q in queues if depth < len(q))
        depth += 1
    return [order[i % len(order)] for i in range(n)]


async def generate_from_passages(
    passages: Sequence[Passage],
    *,
    n_examples: int = 10,
    agent_description: str = "",
    language: str = "English",
    generator: Any = None,
    embedding_model: Any = None,
    existing: Sequence[str] = (),
    seed: int = 0,
    concurrency: int = 4,
    source: dict[str, Any] | None = None,
) -> GenerationResult:
    """``n_examples`` question/answer test cases grounded in ``passages`` (see the module docstring)."""
    if n_examples < 1:
        raise GiskardValidationError(f"n_examples must be at least 1, got {n_examples}")
    model = require_generator("generating test cases from documents", generator)
    dedup = Deduplicator(embedding_model=embedding_model, existing=existing)
    result = GenerationResult(cases=[], requested=n_examples)
    limit = asyncio.Semaphore(max(1, concurrency))
    asked: list[str] = []
    attempt = 0
    # Up to three passes: the later ones replace what failed or came back duplicated.
    for _ in range(3):
        missing = n_examples - len(result.cases)
        if missing <= 0:
            break
        plan = plan_passages(passages, attempt + missing, seed=seed)[attempt:]
        kinds = [QUESTION_KINDS[(attempt + i) % len(QUESTION_KINDS)] for i in range(len(plan))]
        attempt += len(plan)
        avoid = asked[-_AVOID_SHOWN:]

        async def one(passage: Passage, kind: str, avoid: list[str] = avoid) -> Any:
            inputs = {
                "kind": kind,
                "passage": passage.content,
                "topic": passage.topic or "",
                "agent_description": agent_description,
                "language": language,
                "avoid": avoid,
            }
            async with limit:
                answer = await ask_structured(model, _PROMPT, _QA, inputs=inputs)
            return answer.value, answer.usage

        answers = await asyncio.gather(
            *(one(p, k) for p, k in zip(plan, kinds, strict=True)), return_exceptions=True
        )
        cases = []
        for passage, kind, answer in zip(plan, kinds, answers, strict=True):
            if isinstance(answer, BaseException):
                result.errors.append(f"{type(answer).__name__}: {answer}"[:300])
                continue
            qa, usage = answer
            result.usage = result.usage + usage
            question, reference = qa.question.strip(), qa.reference_answer.strip()
            if not question or not reference:
                result.invalid += 1
                continue
            cases.append(_to_case(question, reference, passage, kind, source or {}))
        asked.extend(await keep_new_cases(dedup, cases, result, n_examples))
    return result


def _to_case(
    question: str, reference: str, passage: Passage, kind: str, source: dict[str, Any]
) -> GeneratedCase:
    tags = [f"question:{kind}"]
    if passage.topic:
        tags.append(f"topic:{passage.topic}")
    return GeneratedCase(
        messages=[{"role": "user", "content": question}],
        checks=[
            {"identifier": "correctness", "params": {"reference": reference}},
            {"identifier": "groundedness", "params": {"context": passage.content}},
        ],
        tags=tags,
        source={
            "kind": "document",
            **source,
            "document_id": passage.id,
            "topic_id": passage.topic_id,
            "topic": passage.topic,
            "question_kind": kind,
        },
    )
