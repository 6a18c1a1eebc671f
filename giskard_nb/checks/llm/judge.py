"""LLMJudge — kind ``llm_judge``: your own criteria, as an inline Jinja prompt or a template file.

::

    LLMJudge(prompt="The assistant asked for the email politely: {{ trace.last.outputs }}")
    LLMJudge(prompt_path="my_project::judges/tone.j2")

The prompt sees ``trace``, ``inputs``, ``outputs``, ``metadata`` (of the last interaction) and ``history``
(the conversation as text). It is wrapped in a judging frame that asks for ``{"reason", "passed"}``. If the
prompt reads none of those variables, the conversation is appended for the judge automatically
(``include_conversation=None``); set it to True or False to decide yourself.
"""

from __future__ import annotations

from typing import Any

from pydantic import model_validator

from giskard_nb.checks.llm.base import BaseLLMCheck
from giskard_nb.core.check import Check
from giskard_nb.core.interaction import Trace
from giskard_nb.errors import GiskardValidationError
from giskard_nb.llm.templates import TemplateReference, render_text, template_variables

__all__ = ["LLMJudge"]

_TRACE_VARIABLES = {"trace", "inputs", "outputs", "metadata", "history"}


@Check.register("llm_judge")
class LLMJudge(BaseLLMCheck):
    """PASS when the judge finds the interaction meets ``prompt`` (inline) or ``prompt_path`` (a file)."""

    prompt: str | None = None
    prompt_path: str | None = None
    include_conversation: bool | None = None

    @model_validator(mode="after")
    def _one_prompt(self) -> LLMJudge:
        if (self.prompt is None) == (self.prompt_path is None):
            raise GiskardValidationError(
                f"LLMJudge needs exactly one of prompt= (an inline Jinja prompt) or prompt_path= "
                f"(a template name such as 'my_project::judges/tone.j2'); "
                f"{'both were' if self.prompt is not None else 'neither was'} given"
            )
        if self.prompt is not None and not self.prompt.strip():
            raise GiskardValidationError("LLMJudge prompt must not be empty")
        return self

    def criteria(self) -> str | TemplateReference:
        """The user's criteria template (inline string or reference)."""
        if self.prompt is not None:
            return self.prompt
        return TemplateReference(template_name=self.prompt_path or "")

    def get_prompt(self) -> TemplateReference:
        return TemplateReference(template_name="giskard_nb.checks::llm_judge.j2")

    async def get_inputs(self, trace: Trace) -> dict[str, Any]:
        inputs = await super().get_inputs(trace)
        criteria = self.criteria()
        include = self.include_conversation
        if include is None:
            include = not (template_variables(criteria) & _TRACE_VARIABLES)
        return {
            **inputs,
            "criteria": render_text(criteria, inputs),
            "conversation": inputs["history"] if include else "",
        }
