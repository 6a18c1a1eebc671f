"""Answer-versus-source checks: Groundedness, Contradiction and Correctness.

- ``Groundedness`` (kind ``groundedness``): strict; every claim of the answer must be supported by the
  context. Omissions, greetings and refusals are fine; an unstated but plausible claim fails.
- ``Contradiction`` (kind ``contradiction``): permissive; fails only when the answer conflicts with the
  context.
- ``Correctness`` (kind ``correctness``): the answer must convey the essential facts of a reference
  answer (``reference``, also accepted as ``expected_output`` or ``reference_answer``, or read from
  ``reference_key``); the question (``question_key``, optional) gives the judge context.

The answer is ``answer=`` or the value at ``target_key`` (also ``answer_key``/``text_key``/``key``, default
``trace.last.outputs``). The context is ``context=`` (a string or a list of passages) or the value at
``context_key`` (default ``trace.last.metadata.context``). A missing answer, context or reference is an
ERROR naming the key.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import AliasChoices, Field

from giskard_nb.checks.base import target_key_field
from giskard_nb.checks.llm.base import BaseLLMCheck
from giskard_nb.core.check import Check
from giskard_nb.core.extraction import JSONPathStr, NoMatch, resolve
from giskard_nb.core.interaction import Trace
from giskard_nb.core.missing import MISSING, Value
from giskard_nb.llm.templates import TemplateReference

__all__ = ["Contradiction", "Correctness", "Groundedness", "join_passages"]


def join_passages(context: Any) -> Any:
    """A list of passages as one numbered text; anything else unchanged."""
    if isinstance(context, list | tuple):
        return "\n\n".join(f"[{i}] {passage}" for i, passage in enumerate(context, 1))
    return context


class _AgainstContext(BaseLLMCheck):
    """Shared fields of Groundedness and Contradiction (not registered)."""

    answer: Value = MISSING
    target_key: JSONPathStr = target_key_field()
    context: str | list[str] | None = None
    context_key: JSONPathStr = "trace.last.metadata.context"

    template_file: ClassVar[str] = ""

    def get_prompt(self) -> TemplateReference:
        return TemplateReference(template_name=f"giskard_nb.checks::{self.template_file}")

    async def get_inputs(self, trace: Trace) -> dict[str, Any]:
        answer = self.require(trace, self.answer, self.target_key, "the answer")
        given = self.context if self.context is not None else MISSING
        context = self.require(trace, given, self.context_key, "the context")
        return {"trace": trace, "answer": answer, "context": join_passages(context)}


@Check.register("groundedness")
class Groundedness(_AgainstContext):
    """PASS when every factual claim of the answer is supported by the context."""

    failure_category: ClassVar[str | None] = "hallucination"

    template_file: ClassVar[str] = "groundedness.j2"


@Check.register("contradiction")
class Contradiction(_AgainstContext):
    """PASS unless the answer contradicts the context."""

    failure_category: ClassVar[str | None] = "hallucination"

    template_file: ClassVar[str] = "contradiction.j2"


@Check.register("correctness")
class Correctness(BaseLLMCheck):
    """PASS when the answer conveys the essential facts of the reference answer."""

    answer: Value = MISSING
    target_key: JSONPathStr = target_key_field()
    reference: Value = Field(
        default=MISSING,
        validation_alias=AliasChoices("reference", "expected_output", "reference_answer"),
    )
    reference_key: JSONPathStr = "trace.last.metadata.reference"
    question_key: JSONPathStr | None = "trace.last.inputs"

    def get_prompt(self) -> TemplateReference:
        return TemplateReference(template_name="giskard_nb.checks::correctness.j2")

    async def get_inputs(self, trace: Trace) -> dict[str, Any]:
        answer = self.require(trace, self.answer, self.target_key, "the answer")
        reference = self.require(trace, self.reference, self.reference_key, "the reference answer")
        question = resolve(trace, self.question_key) if self.question_key else None
        if isinstance(question, NoMatch):
            question = None
        return {"trace": trace, "question": question, "answer": answer, "reference": reference}
