"""Conformity — kind ``conformity``: the assistant's behaviour follows one rule or several.

::

    Conformity(rule="The agent must answer in English")
    Conformity(rules=["Never promise a refund", "Always offer a human hand-over"])

Rules are literal text (not templates). One judge call covers all the rules; the judge lists the numbers of
the rules that do not hold, and the result's ``details["violated_rules"]`` gives their text (a number that
names no rule makes the result an ERROR). The judge
sees the conversation (``include_history=True``) or only the last interaction.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from giskard_nb.checks.llm.base import BaseLLMCheck, LLMCheckResult, format_history
from giskard_nb.core.check import Check
from giskard_nb.core.interaction import Trace
from giskard_nb.core.result import CheckResult
from giskard_nb.errors import GiskardValidationError
from giskard_nb.llm.templates import TemplateReference

__all__ = ["FORMAT_TEXT", "Conformity", "ConformityVerdict"]

#: Words that make a violated rule a format rule (``format_violation`` rather than a policy).
FORMAT_TEXT = re.compile(
    r"\b(format\w*|json|markdown|length|words?|structure\w*|bullet\w*|sentences?)\b", re.IGNORECASE
)


class ConformityVerdict(LLMCheckResult):
    """The judge's verdict on a set of numbered rules."""

    model_config = ConfigDict(defer_build=True)

    violated_rules: list[int] = Field(
        default_factory=list, description="Numbers of the rules that do not hold (1-based)."
    )


@Check.register("conformity")
class Conformity(BaseLLMCheck):
    """PASS when the assistant's turns follow every rule.

    A failure hints ``policy_violation``, or ``format_violation`` when the violated rules or the
    judge's reason (``details``) speak of format, JSON, markdown, length, words or structure.
    """

    failure_category: ClassVar[str | None] = "policy_violation"

    rule: str | None = None
    rules: list[str] = Field(default_factory=list)
    include_history: bool = True

    @model_validator(mode="after")
    def _some_rule(self) -> Conformity:
        if not self.all_rules:
            raise GiskardValidationError(
                "Conformity needs a rule: rule='The agent must answer in English' or rules=[...]"
            )
        if any(not r.strip() for r in self.all_rules):
            raise GiskardValidationError("Conformity rules must be non-empty strings")
        return self

    @property
    def all_rules(self) -> list[str]:
        return ([self.rule] if self.rule is not None else []) + list(self.rules)

    def failure_hint(self, result: CheckResult) -> str | None:
        details = result.details
        texts = [*(details.get("violated_rules") or ()), details.get("reason")]
        if any(isinstance(t, str) and FORMAT_TEXT.search(t) for t in texts):
            return "format_violation"
        return "policy_violation"

    @property
    def output_type(self) -> type[BaseModel]:
        return ConformityVerdict

    def get_prompt(self) -> TemplateReference:
        return TemplateReference(template_name="giskard_nb.checks::conformity.j2")

    async def get_inputs(self, trace: Trace) -> dict[str, Any]:
        if trace.last is None:
            from giskard_nb.checks.llm.base import MissingInput

            raise MissingInput(
                CheckResult.error("Conformity needs at least one interaction in the trace")
            )
        conversation = format_history(trace, limit=None if self.include_history else 1)
        return {"trace": trace, "rules": self.all_rules, "conversation": conversation}

    async def _handle_output(
        self, output_value: Any, template_inputs: dict[str, Any], trace: Trace
    ) -> CheckResult:
        rules = self.all_rules
        unknown = sorted({n for n in output_value.violated_rules if not 1 <= n <= len(rules)})
        if unknown:  # an incoherent verdict: never read as "no rule violated"
            raise ValueError(
                f"the judge cited rule number(s) {unknown}, but the rules are numbered 1 to {len(rules)}"
            )
        numbers = sorted(set(output_value.violated_rules))
        violated = [rules[n - 1] for n in numbers]
        passed = output_value.passed and not violated
        details = {"reason": output_value.reason, "rules": rules, "violated_rules": violated}
        if passed:
            return CheckResult.success(output_value.reason, details=details)
        return CheckResult.failure(output_value.reason, details=details)
