"""How the ScenarioBuilder offers the check kinds: grouped by family with the common kinds first,
and, per kind, the fields a user fills (the others — where the check reads the agent's answer
(``target_key``, ``text``...), Unicode normalisation, the judge model... — wait behind "advanced").

A check registered outside giskard-nb lands in the "custom" family, and its form shows every field
except the ones named like the built-ins' internal fields.
"""

from __future__ import annotations

from typing import Any

from giskard_nb.core.check import Check

__all__ = ["COMMON_KINDS", "FAMILIES", "basic_fields", "families"]

#: Offered first, in this order (the builder starts on the first one registered).
COMMON_KINDS = (
    "string_matching", "regex_matching", "equals", "json_valid", "metadata", "correctness",
    "groundedness", "llm_judge",
)  # fmt: skip

#: (family id, title, modules of giskard_nb.checks whose kinds belong to it), in the dropdown's order.
FAMILIES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("common", "common checks", ()),
    ("text", "text", ("text", "semantic", "readability")),
    ("comparison", "comparison (=, <, >)", ("comparison",)),
    ("llm", "LLM judges (need a model)", ("llm",)),
    ("format", "format, metadata, safety, latency",
     ("json_valid", "metadata", "unsafe_output", "latency", "rego_policy")),
    ("retrieval", "retrieval (RAG)", ("retrieval",)),
    ("composition", "composition (all of, any of, not)", ("composition",)),
    ("custom", "custom and other checks", ()),
)  # fmt: skip

_COMPARISONS = ("equals", "not_equals", "greater_than", "greater_than_equals", "less_than",
                "less_than_equals")  # fmt: skip
_RETRIEVAL = ("hit_rate_at_k", "precision_at_k", "recall_at_k", "mrr", "ndcg", "average_precision")

#: Fields a user fills, per built-in kind (every other field is "advanced").
_BASIC: dict[str, tuple[str, ...]] = {
    "string_matching": ("keyword", "case_sensitive"),
    "regex_matching": ("pattern",),
    "semantic_similarity": ("reference_text", "threshold"),
    "readability": ("metric", "min_score", "max_score"),
    **dict.fromkeys(_COMPARISONS, ("expected_value",)),
    "correctness": ("reference",),
    "groundedness": ("context",),
    "contradiction": ("context",),
    "conformity": ("rules",),
    "answer_relevance": ("context",),
    "llm_judge": ("prompt",),
    "sentiment": ("expected", "min_confidence"),
    "toxicity": ("categories",),
    "json_valid": ("expected_schema",),
    "metadata": ("rules",),
    "latency": ("max_seconds", "scope"),
    "unsafe_output": (),
    "rego_policy": ("policy", "rule", "data"),
    **dict.fromkeys(_RETRIEVAL, ("relevant", "k", "threshold")),
    "all_of": ("checks",),
    "any_of": ("checks",),
    "not": ("check",),
}

#: Fields of the built-ins that are internal: what a custom check's form hides too.
_INTERNAL = frozenset(
    {"name", "description", "generator", "embedding_model", "text", "answer", "output", "question",
     "normalization_form", "collapse_whitespace", "match_timeout_seconds", "include_history",
     "include_conversation", "prompt_path", "parse", "match"}
)  # fmt: skip


def basic_fields(kind: str, cls: type[Check]) -> list[str]:
    """The fields of ``kind`` a user fills (in the class's order); required fields always are."""
    fields = cls.model_fields
    chosen = _BASIC.get(kind)
    if chosen is None:
        chosen = tuple(n for n in fields if n not in _INTERNAL and not n.endswith("_key"))
    required = {n for n, info in fields.items() if info.is_required()}
    return [n for n in fields if n in chosen or n in required]


def _family_of(cls: type[Any]) -> str:
    module = cls.__module__
    if module.startswith("giskard_nb.checks."):
        parts = module.removeprefix("giskard_nb.checks.").split(".")
        for family, _title, modules in FAMILIES:
            if parts[0] in modules:
                return family
    return "custom"


def families(kinds: list[str]) -> dict[str, list[str]]:
    """``{family id: kinds}`` for the given kinds, in the dropdown's order, empty families left out;
    "common" lists the common kinds, and every kind is also in its own family (the common ones
    first there too)."""
    grouped: dict[str, list[str]] = {family: [] for family, _title, _modules in FAMILIES}
    grouped["common"] = [k for k in COMMON_KINDS if k in kinds]
    rank = {k: n for n, k in enumerate(COMMON_KINDS)}
    for kind in sorted(kinds, key=lambda k: (rank.get(k, len(rank)), k)):  # common ones first
        grouped[_family_of(Check.registered_class(kind))].append(kind)
    return {family: members for family, members in grouped.items() if members}
