"""AnswerRelevance — kind ``answer_relevance``: the latest answer addresses the latest question.

The question is ``question=`` or the value at ``question_key`` (default ``trace.last.inputs``); the
answer is ``answer=`` or the value at ``target_key`` (also ``answer_key``/``text_key``/``key``). ``context``
optionally describes the assistant's scope ("a bank's support bot"), so an in-scope refusal is judged
relevant. ``include_history`` shows earlier turns to the judge (to resolve "and for tomorrow?").
Brevity and factual errors are not relevance problems: combine with Correctness or Groundedness.
"""

from __future__ import annotations

from typing import Any, ClassVar

from giskard_nb.checks.base import target_key_field
from giskard_nb.checks.llm.base import BaseLLMCheck, format_history
from giskard_nb.core.check import Check
from giskard_nb.core.extraction import JSONPathStr
from giskard_nb.core.interaction import Trace
from giskard_nb.core.missing import MISSING, Value
from giskard_nb.llm.templates import TemplateReference

__all__ = ["AnswerRelevance"]


@Check.register("answer_relevance")
class AnswerRelevance(BaseLLMCheck):
    """PASS when the answer addresses the question."""

    failure_category: ClassVar[str | None] = "off_topic"

    question: Value = MISSING
    question_key: JSONPathStr = "trace.last.inputs"
    answer: Value = MISSING
    target_key: JSONPathStr = target_key_field()
    context: str | None = None
    include_history: bool = True

    def get_prompt(self) -> TemplateReference:
        return TemplateReference(template_name="giskard_nb.checks::answer_relevance.j2")

    async def get_inputs(self, trace: Trace) -> dict[str, Any]:
        question = self.require(trace, self.question, self.question_key, "the question")
        answer = self.require(trace, self.answer, self.target_key, "the answer")
        earlier = Trace(interactions=trace.interactions[:-1])
        history = format_history(earlier) if self.include_history else ""
        return {
            "trace": trace,
            "question": question,
            "answer": answer,
            "scope": self.context or "",
            "history": history,
        }
