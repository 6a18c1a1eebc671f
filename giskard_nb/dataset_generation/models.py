"""What generation reads (a persona, document passages) and produces (generated test cases).

``Persona`` is the one persona model (``giskard_nb.input_generators.personas``), re-exported here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from giskard_nb.core.usage import Usage
from giskard_nb.input_generators.personas import Persona

__all__ = ["GeneratedCase", "GenerationResult", "Passage", "Persona"]


@dataclass(frozen=True)
class Passage:
    """A piece of a document that a question is written from."""

    id: str
    content: str
    topic_id: str | None = None
    topic: str | None = None


class GeneratedCase(BaseModel):
    """A generated test case: the conversation (ending with the user's turn), the checks
    (``{"identifier", "params"}``), tags, and ``source``: where it came from."""

    model_config = ConfigDict(frozen=True)

    messages: list[dict[str, str]]
    checks: list[dict[str, Any]] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    source: dict[str, Any] = Field(default_factory=dict)

    @property
    def question(self) -> str:
        """The last user message."""
        return next(m["content"] for m in reversed(self.messages) if m["role"] == "user")

    def text(self) -> str:
        """The conversation as one text (what deduplication compares)."""
        return "\n".join(f"{m['role']}: {m['content']}" for m in self.messages)


@dataclass
class GenerationResult:
    """Generated cases, what they cost, and why some requested cases are missing."""

    cases: list[GeneratedCase]
    requested: int
    usage: Usage = field(default_factory=Usage)
    duplicates: int = 0
    invalid: int = 0
    errors: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return len(self.cases) >= self.requested

    def shortfall(self) -> str:
        """Why fewer cases than requested were generated ("" when complete)."""
        if self.complete:
            return ""
        parts = [f"{len(self.cases)} of {self.requested} test cases generated"]
        if self.duplicates:
            parts.append(f"{self.duplicates} duplicate(s) dropped")
        if self.invalid:
            parts.append(f"{self.invalid} malformed case(s) dropped")
        if self.errors:
            parts.append(f"{len(self.errors)} failed call(s), first: {self.errors[0]}")
        return "; ".join(parts)
