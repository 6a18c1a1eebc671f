"""What generation reads (a persona, document passages) and produces (generated test cases)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from giskard_nb.core.usage import Usage
from giskard_nb.errors import GiskardValidationError

__all__ = ["GeneratedCase", "GenerationResult", "Passage", "Persona"]


class Persona(BaseModel):
    """A user persona or behaviour to test: who the user is and what they do (``description``), and the
    ``rules`` the agent must follow with them (each becomes part of a conformity check)."""

    model_config = ConfigDict(frozen=True)

    name: str = Field(min_length=1)
    description: str = Field(min_length=1)
    rules: list[str] = Field(default_factory=list)

    @field_validator("rules")
    @classmethod
    def _rules(cls, rules: list[str]) -> list[str]:
        cleaned = [r.strip() for r in rules]
        if any(not r for r in cleaned):
            raise GiskardValidationError("persona rules are non-empty sentences")
        return cleaned


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
