"""Dataset generation with a giskard-agents ``BaseGenerator`` double (typed messages in, a
``CompletionResponse`` out): called in-process, its usage counted in the result."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import Field

from giskard_nb.agents.generators.base import BaseGenerator, GenerationParams
from giskard_nb.dataset_generation import (
    Passage,
    Persona,
    generate_from_passages,
    generate_from_persona,
)
from giskard_nb.llm.types import AssistantMessage, ChatMessage, Choice, CompletionResponse, Usage


class MockWriterGenerator(BaseGenerator):
    """Answers the two generation prompts: persona conversations and passage questions."""

    calls: list[Sequence[ChatMessage]] = Field(default_factory=list)

    async def _call_model(
        self,
        messages: Sequence[ChatMessage],
        params: GenerationParams,
        metadata: dict[str, Any] | None = None,
    ) -> CompletionResponse:
        self.calls.append(messages)
        prompt = messages[-1].text
        if "## The passage\n" in prompt:
            passage = prompt.split("## The passage\n", 1)[1].split("\n", 1)[0]
            reply: dict[str, Any] = {
                "question": f"What does this say: {passage[:30]}?",
                "reference_answer": passage,
            }
        else:
            n = int(prompt.split("Write ", 1)[1].split(" ", 1)[0])
            reply = {
                "conversations": [
                    {
                        "turns": [
                            {"role": "user", "content": f"Where is parcel {len(self.calls)}-{i}?"}
                        ],
                        "expected_behavior": "Give the tracking status",
                    }
                    for i in range(n)
                ]
            }
        return CompletionResponse(
            choices=[
                Choice(message=AssistantMessage(content=json.dumps(reply)), finish_reason="stop")
            ],
            usage=Usage(prompt_tokens=100, completion_tokens=20, total_tokens=120),
        )


async def test_persona_generation_uses_the_double():
    writer = MockWriterGenerator()
    persona = Persona(name="Late parcel", description="A customer whose parcel is late.")
    result = await generate_from_persona(persona, n_examples=3, generator=writer)
    assert len(result.cases) == 3 and result.complete
    assert all(c.question.startswith("Where is parcel") for c in result.cases)
    assert result.usage.llm_calls == len(writer.calls) and result.usage.total_tokens == 120 * len(
        writer.calls
    )
    assert any("A customer whose parcel is late." in m.text for m in writer.calls[0])


async def test_document_generation_uses_the_double():
    writer = MockWriterGenerator()
    passages = [
        Passage("d1", "Refunds take 30 days.", "t1", "Billing"),
        Passage("d2", "The X4 tent is waterproof.", "t2", "Tents"),
    ]
    result = await generate_from_passages(passages, n_examples=2, generator=writer)
    assert {c.source["document_id"] for c in result.cases} == {"d1", "d2"}
    assert result.usage.total_tokens == 240 and len(writer.calls) == 2
