"""Persona- and document-based generation against the fake LLM server; deduplication; no-model errors."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from giskard_nb.dataset_generation import (
    GeneratedCase,
    Passage,
    Persona,
    generate_from_passages,
    generate_from_persona,
)
from giskard_nb.dataset_generation.dedup import Deduplicator, normalize_case_text
from giskard_nb.dataset_generation.document_based import plan_passages
from giskard_nb.errors import ConfigError
from giskard_nb.kb import HashingEmbedder
from giskard_nb.testing import FakeLLMServer

PERSONA = Persona(
    name="Angry customer",
    description="A customer whose parcel is late, who writes in capitals and threatens to leave.",
    rules=["The agent stays polite", "The agent offers a concrete next step"],
)


def persona_model(request):
    """Writes conversations numbered by the requests seen so far; every 3rd one repeats an earlier one."""
    n = int(request.prompt.split("Write ", 1)[1].split(" ", 1)[0])
    conversations = []
    for _ in range(n):
        i = next(_counter)
        text = f"WHERE IS MY PARCEL number {i // 3 if i % 3 == 2 else i}?!"
        conversations.append(
            {
                "turns": [{"role": "user", "content": text}],
                "expected_behavior": "Apologise and give the tracking status",
            }
        )
    conversations.append({"turns": [{"role": "assistant", "content": "only the agent"}]})
    return {"conversations": conversations}


_counter = itertools.count()


async def test_persona_based_cases_have_conformity_checks_and_no_duplicates() -> None:
    with FakeLLMServer(reply=persona_model) as server:
        result = await generate_from_persona(
            PERSONA,
            n_examples=7,
            agent_name="Parcel bot",
            agent_description="Tracks parcels",
            generator=server.generator(),
            source={"scenario_id": "p1"},
        )
        prompts = [r.last_user_message for r in server.chat_requests]
    assert len(result.cases) == 7 and result.complete
    assert result.duplicates >= 1 and result.invalid >= 1
    questions = [c.question for c in result.cases]
    assert len(set(map(normalize_case_text, questions))) == 7
    case = result.cases[0]
    assert case.checks == [
        {
            "identifier": "conformity",
            "params": {"rules": [*PERSONA.rules, "Apologise and give the tracking status"]},
        }
    ]
    assert case.source["kind"] == "scenario" and case.source["scenario_id"] == "p1"
    assert case.tags == ["persona:Angry customer"]
    assert "threatens to leave" in prompts[0] and "Parcel bot" in prompts[0]
    assert questions[0] in prompts[-1]  # later batches are told what was already written
    assert result.usage.llm_calls == len(prompts) and result.usage.total_tokens > 0


async def test_generation_without_a_model_says_how_to_configure_one() -> None:
    with pytest.raises(ConfigError, match="set_default_generator"):
        await generate_from_persona(PERSONA, n_examples=1)
    with pytest.raises(ConfigError, match="GISKARD_NB_MODEL"):
        await generate_from_passages([Passage("p", "text")], n_examples=1)


async def test_failed_calls_are_reported_not_raised() -> None:
    with FakeLLMServer(reply="this is not JSON at all") as server:
        result = await generate_from_persona(
            PERSONA, n_examples=2, generator=server.generator(max_retries=0)
        )
    assert result.cases == [] and result.errors
    assert "0 of 2 test cases generated" in result.shortfall()


def qa_model(request):
    prompt = request.last_user_message
    passage = prompt.split("## The passage\n", 1)[1].split("\n", 1)[0]
    kind = prompt.split("Write one ", 1)[1].split(" ", 1)[0]
    return {"question": f"[{kind}] What about: {passage[:40]}?", "reference_answer": passage}


PASSAGES = [
    Passage("d1", "Tents: the X4 tent is waterproof to 2000mm.", "t1", "Tents"),
    Passage("d2", "Tents: the Alpine tent weighs 2 kg.", "t1", "Tents"),
    Passage("d3", "Billing: refunds take 30 days.", "t2", "Billing"),
]


async def test_document_based_cases_carry_reference_context_and_source() -> None:
    with FakeLLMServer(reply=qa_model) as server:
        result = await generate_from_passages(
            PASSAGES, n_examples=3, generator=server.generator(), source={"knowledge_base_id": "kb"}
        )
    assert len(result.cases) == 3
    by_doc = {c.source["document_id"]: c for c in result.cases}
    assert set(by_doc) == {"d1", "d2", "d3"}  # every passage once before any repeats
    case = by_doc["d3"]
    assert case.checks == [
        {"identifier": "correctness", "params": {"reference": "Billing: refunds take 30 days."}},
        {"identifier": "groundedness", "params": {"context": "Billing: refunds take 30 days."}},
    ]
    assert case.source["knowledge_base_id"] == "kb" and case.source["topic"] == "Billing"
    assert "topic:Billing" in case.tags
    kinds = sorted(c.source["question_kind"] for c in result.cases)
    assert kinds == ["complex", "simple", "situational"]


async def test_document_based_replaces_duplicates_in_later_passes() -> None:
    with FakeLLMServer(reply={"question": "Same?", "reference_answer": "Same."}) as server:
        result = await generate_from_passages(PASSAGES, n_examples=3, generator=server.generator())
    assert len(result.cases) == 1 and result.duplicates >= 2
    assert "duplicate" in result.shortfall()


def test_plan_spreads_over_topics() -> None:
    plan = plan_passages(PASSAGES, 5, seed=1)
    assert [p.topic_id for p in plan[:2]] in (["t1", "t2"], ["t2", "t1"])
    assert {p.id for p in plan[:3]} == {"d1", "d2", "d3"}
    assert len(plan) == 5


async def test_deduplicator_exact_near_and_existing() -> None:
    dedup = Deduplicator(existing=["Can I get a refund?"])
    assert await dedup.filter(
        ["can i get a REFUND", "Where is my parcel?", "where is my parcel"]
    ) == [
        False,
        True,
        False,
    ]
    near = Deduplicator(embedding_model=HashingEmbedder(), threshold=0.9)
    keep = await near.filter(
        [
            "What is the refund policy for shoes?",
            "What's the refund policy for the shoes?",
            "Opening hours?",
        ]
    )
    assert keep == [True, False, True]


def test_generated_case_text() -> None:
    case = GeneratedCase(
        messages=[
            {"role": "user", "content": "a"},
            {"role": "assistant", "content": "b"},
            {"role": "user", "content": "c"},
        ]
    )
    assert case.question == "c" and case.text() == "user: a\nassistant: b\nuser: c"


async def test_questions_from_promptflow_contexts(shared_data: Path) -> None:
    path = shared_data / "conversations" / "promptflow" / "qa_with_context.jsonl"
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]
    texts = list(dict.fromkeys(r["context"] for r in rows if isinstance(r["context"], str)))
    passages = [Passage(f"c{i}", t) for i, t in enumerate(texts)]
    with FakeLLMServer(reply=qa_model) as server:
        result = await generate_from_passages(passages, n_examples=5, generator=server.generator())
    assert len(result.cases) == 5
    for case in result.cases:
        context = case.checks[1]["params"]["context"]
        assert context in texts and case.checks[0]["params"]["reference"] == context
