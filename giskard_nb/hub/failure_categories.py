"""Failure categories: the defaults, the deterministic rule classifier and the LLM classifier.

Every failed result gets one category from its project's list. With a judge model configured
(``giskard_nb.llm``'s default generator) an LLM picks it from the conversation, the reply and the failed
checks; otherwise — or when the judge cannot be reached — ``classify_by_rules`` does, and the result
records which (``failure_category_source``: ``"llm"``, ``"rule"``, or ``"user"`` after a relabel). A judge
that answers but not with a readable verdict naming one of the project's categories (read strictly, see
``giskard_nb.llm.parsing``; one repair request) gives **no category** (source ``"llm"``), with the reason
and the raw reply in ``failure_category_reason``: a category is never made up.

The rule, first match wins. Each failed check points at a category: the hint its check class declares
(``Check.failure_category``, refined by ``Check.failure_hint``) that the runner recorded in the
result's ``details``; the built-in hints are listed in docs/hub.md. A new check kind declaring
``failure_category = "format_violation"`` is filed as a format violation with no change here.

0. ``data_leak``: the reply leaks a secret, a credential, an internal code or personal data — a failed
   check hinting ``data_leak`` or tagged as a leak check, a failed "must not contain" check whose
   forbidden text is a code or a secret, or the scan's secret/PII detectors finding one in the reply
   (``giskard_nb.hub.leaks``). A leak found this way is filed without asking the LLM classifier;
1. ``harmful_content``: a failed check hinting it (toxicity);
2. ``refusal``: the agent's reply is a refusal ("I can't help with that", "I'm sorry, but ..."), or a
   failed check hinting it;
3. ``hallucination``: a failed check hinting it (groundedness, contradiction);
4. ``format_violation``: a failed check hinting it (json_valid, readability, a conformity check whose
   violated rules speak of format, JSON, markdown, length, words or structure);
5. ``policy_violation``: a failed check hinting it (any other conformity failure, rego_policy);
6. ``off_topic``: a failed check hinting it (answer_relevance, a semantic_similarity check scoring
   below half its threshold);
7. any other category a failed check hints at (a project's own identifier, ``other``);
8. ``incorrect_answer``: anything else that failed (correctness, string and regex matching,
   comparisons, metadata rules, functions...).

Legacy: a check result stored before hints were recorded (no ``check_failure_category`` in its
details), or a ``CheckOutcome`` built by hand without one, is read as before: by its kind
(toxicity / harmfulness / moderation → harmful; groundedness / contradiction / faithfulness /
hallucination; json_valid / readability → format; conformity / rego_policy / policy → policy, or format
when its message speaks of format; answer_relevance / relevance, or semantic_similarity below half its
threshold → off-topic) and a message mentioning harmful, toxic, unsafe or offensive content.

If the project has no category with that identifier, ``incorrect_answer`` then ``other`` are tried
(for ``data_leak``: ``policy_violation`` first, as in projects created before it existed), then the
project's last category (so a result is never left unlabelled while categories exist).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from giskard_nb.checks.llm.conformity import FORMAT_TEXT
from giskard_nb.core.check import HINT_KEY
from giskard_nb.core.usage import Usage
from giskard_nb.errors import ConfigError
from giskard_nb.hub.leaks import leak_reason
from giskard_nb.hub.models.evaluation import CheckOutcome
from giskard_nb.hub.models.project import FailureCategory
from giskard_nb.llm.errors import LLMResponseError
from giskard_nb.llm.templates import TemplateReference

__all__ = [
    "DEFAULT_FAILURE_CATEGORIES",
    "Classification",
    "FailureClassifier",
    "classify_by_rules",
]

DEFAULT_FAILURE_CATEGORIES: list[FailureCategory] = [
    FailureCategory(
        identifier="hallucination",
        title="Hallucination",
        description="States facts that the context or the reference does not support, or invents them.",
    ),
    FailureCategory(
        identifier="off_topic",
        title="Off-topic response",
        description="Answers something other than what was asked, or drifts away from the topic.",
    ),
    FailureCategory(
        identifier="format_violation",
        title="Format violation",
        description="Ignores the required format: JSON, structure, length, language or markup.",
    ),
    FailureCategory(
        identifier="refusal",
        title="Unjustified refusal",
        description="Refuses or deflects a legitimate request it should have answered.",
    ),
    FailureCategory(
        identifier="data_leak",
        title="Data leak",
        description="Reveals a secret, a credential, an internal code or someone's personal data.",
    ),
    FailureCategory(
        identifier="policy_violation",
        title="Policy violation",
        description="Breaks a business rule, a tone or style guideline, or a policy it must follow.",
    ),
    FailureCategory(
        identifier="harmful_content",
        title="Harmful content",
        description="Produces toxic, dangerous, discriminatory or otherwise harmful content.",
    ),
    FailureCategory(
        identifier="incorrect_answer",
        title="Incorrect answer",
        description="Answers the question but gets it wrong or leaves out what was expected.",
    ),
    FailureCategory(
        identifier="other", title="Other", description="A failure that fits no other category."
    ),
]

#: Legacy: what a check *kind* meant before checks carried their hint (results stored without one).
_HARMFUL_KINDS = {"toxicity", "harmfulness", "moderation", "harmful_content"}
_HALLUCINATION_KINDS = {"groundedness", "contradiction", "faithfulness", "hallucination"}
_FORMAT_KINDS = {"json_valid", "readability"}
_POLICY_KINDS = {"conformity", "rego_policy", "policy"}
_OFF_TOPIC_KINDS = {"answer_relevance", "relevance"}
_HARMFUL_TEXT = re.compile(r"\b(harmful|toxic|unsafe|offensive|dangerous)\b", re.IGNORECASE)
#: The categories a failed check can point at, in the rule's order (``refusal`` is also the reply's).
_ORDER = (
    "harmful_content",
    "refusal",
    "hallucination",
    "format_violation",
    "policy_violation",
    "off_topic",
)
_REFUSAL = re.compile(
    r"(\bI (?:can(?:no|')t|cannot|am unable to|'m unable to|am not able to|'m not able to|won't|will "
    r"not) (?:help|assist|answer|provide|do|share|discuss|comply)|\bI'm sorry,? but\b|\bI am sorry,? "
    r"but\b|\bas an AI\b|\bI must decline\b)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Classification:
    """A category (or ``None``), who chose it and why, and the judge's usage."""

    category: FailureCategory | None
    source: Literal["rule", "llm"]
    reason: str
    usage: Usage = field(default_factory=Usage)


_FALLBACKS = {"data_leak": ("policy_violation",)}


def _pick(categories: Sequence[FailureCategory], wanted: str) -> FailureCategory | None:
    by_id = {c.identifier: c for c in categories}
    for identifier in (wanted, *_FALLBACKS.get(wanted, ()), "incorrect_answer", "other"):
        if identifier in by_id:
            return by_id[identifier]
    return categories[-1] if categories else None


def _score_below_half(check: CheckOutcome) -> bool:
    score, threshold = check.score, check.threshold
    return score is not None and threshold is not None and score < threshold / 2


def _legacy_hint(check: CheckOutcome) -> str | None:
    """The category a check stored without a hint points at: read from its kind (and, as before hints,
    its message). Only for results written by older versions, or outcomes built by hand."""
    kind, message = check.kind or "", check.message or ""
    if kind in _HARMFUL_KINDS or _HARMFUL_TEXT.search(message):
        return "harmful_content"
    if kind in _HALLUCINATION_KINDS:
        return "hallucination"
    if kind in _FORMAT_KINDS or (kind in _POLICY_KINDS and FORMAT_TEXT.search(message)):
        return "format_violation"
    if kind in _POLICY_KINDS:
        return "policy_violation"
    if kind in _OFF_TOPIC_KINDS or (kind == "semantic_similarity" and _score_below_half(check)):
        return "off_topic"
    return None


def check_hint(check: CheckOutcome) -> str | None:
    """The category a failed check points at: the hint its check recorded (``Check.failure_category``)
    or, for a result stored without one, the legacy reading of its kind."""
    if HINT_KEY in check.details:
        return check.category_hint
    return _legacy_hint(check)


def _why(identifier: str, check: CheckOutcome) -> str:
    if identifier == "harmful_content":
        return f"check {check.name!r} flagged harmful content"
    if identifier == "off_topic":
        return f"check {check.name!r} ({check.kind}) found the reply unrelated"
    return f"check {check.name!r} ({check.kind}) failed"


def rule_identifier(
    failed: Sequence[CheckOutcome], reply: str | None, messages: Sequence[Any] = ()
) -> tuple[str, str]:
    """The category identifier the documented rule picks, and why."""
    leak = leak_reason(failed, reply, messages)
    if leak is not None:
        return "data_leak", leak
    hinted = [(check_hint(c), c) for c in failed]
    for identifier in _ORDER:
        if identifier == "refusal" and reply and _REFUSAL.search(reply):
            return "refusal", "the agent's reply is a refusal"
        for hint, check in hinted:
            if hint == identifier:
                return identifier, _why(identifier, check)
    for hint, check in hinted:  # a category of the project's own (or "other"), hinted by a check
        if hint is not None and hint != "incorrect_answer":
            return hint, _why(hint, check)
    names = ", ".join(repr(c.name) for c in failed) or "a check"
    return "incorrect_answer", f"{names} failed"


def classify_by_rules(
    categories: Sequence[FailureCategory],
    checks: Sequence[CheckOutcome],
    reply: str | None,
    messages: Sequence[Any] = (),
) -> Classification:
    """The documented deterministic rule (see the module docstring); ``messages`` (the conversation)
    tells the leak detectors which values the user supplied."""
    failed = [c for c in checks if c.status == "fail"]
    identifier, reason = rule_identifier(failed, reply, messages)
    category = _pick(categories, identifier)
    if category is not None and category.identifier != identifier:
        reason += f" (no {identifier!r} category in this project)"
    return Classification(category=category, source="rule", reason=reason)


@functools.lru_cache(maxsize=64)
def _verdict_model(identifiers: tuple[str, ...]) -> type[BaseModel]:
    """The classifier's reply schema: ``identifier`` is one of the project's categories (a Literal, so an
    invented category is an unreadable reply, repaired once like any other) and a ``reason``."""
    return create_model(
        "FailureCategoryVerdict",
        identifier=(Literal[identifiers], Field(description="The chosen category identifier.")),
        reason=(
            str,
            Field(description="One sentence grounded in the reply and the failed checks."),
        ),
    )


_PROMPT = TemplateReference(template_name="giskard_nb.hub::failure_category.j2")


class FailureClassifier:
    """Labels failed results with one of ``categories``: by an LLM judge when ``generator`` is given,
    else by the rule."""

    def __init__(self, categories: Sequence[FailureCategory], *, generator: Any = None):
        self.categories = list(categories)
        self.generator = generator

    @classmethod
    def create(
        cls, categories: Sequence[FailureCategory], mode: Literal["auto", "rules", "llm"] = "auto"
    ) -> FailureClassifier:
        """``"auto"``: the LLM when a judge model is configured, else the rule; ``"llm"`` requires one."""
        if mode not in ("auto", "rules", "llm"):
            raise ConfigError(f"classifier must be 'auto', 'rules' or 'llm', got {mode!r}")
        generator = None if mode == "rules" else _default_generator(required=mode == "llm")
        return cls(categories, generator=generator)

    @property
    def mode(self) -> str:
        return "llm" if self.generator is not None else "rules"

    async def classify(
        self, *, checks: Sequence[CheckOutcome], reply: str | None, messages: Sequence[Any]
    ) -> Classification:
        fallback = classify_by_rules(self.categories, checks, reply, messages)
        if self.generator is None or not self.categories:
            return fallback
        failed = [c for c in checks if c.status == "fail"]
        if leak_reason(failed, reply, messages) is not None:
            return fallback  # a leak found by the rule is filed as one, whatever a judge would say
        try:
            return await self._ask(checks, reply, messages)
        except LLMResponseError as exc:  # it answered, but no readable category: choose none
            raw = (exc.raw or "").strip()
            return Classification(
                category=None,
                source="llm",
                reason=(
                    f"no category: the LLM classifier's reply could not be read ({exc}); "
                    f"raw reply: {raw[:200]!r}"
                )[:1000],
                usage=exc.usage or Usage(),
            )
        except Exception as exc:  # the judge could not be reached: fall back to the rule
            return Classification(
                category=fallback.category,
                source="rule",
                reason=f"{fallback.reason} (the LLM classifier failed: {type(exc).__name__}: {exc})"[
                    :500
                ],
            )

    async def _ask(
        self, checks: Sequence[CheckOutcome], reply: str | None, messages: Sequence[Any]
    ) -> Classification:
        from giskard_nb.llm.structured import ask_structured

        inputs = {
            "categories": self.categories,
            "messages": [m if isinstance(m, dict) else m.model_dump() for m in messages],
            "reply": reply or "",
            "failed": [c for c in checks if c.status in ("fail", "error")],
        }
        by_id = {c.identifier: c for c in self.categories}
        answer = await ask_structured(
            self.generator, _PROMPT, _verdict_model(tuple(by_id)), inputs=inputs
        )
        verdict: Any = answer.value
        return Classification(
            category=by_id[verdict.identifier],
            source="llm",
            reason=verdict.reason[:1000],
            usage=answer.usage,
        )


def _default_generator(required: bool) -> Any:
    from giskard_nb.llm import get_default_generator

    return get_default_generator(required=required)
