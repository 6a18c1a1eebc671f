"""Built-in checks: text, comparison, JSON, composition, metadata, retrieval metrics, semantic
similarity, Rego policies, and the LLM judges of ``checks.llm``. Public names are re-exported from
``giskard_nb``. May import: errors, core and llm."""

from giskard_nb.checks.comparison import (
    Equals,
    GreaterEquals,
    GreaterThan,
    GreaterThanEquals,
    LesserThan,
    LesserThanEquals,
    LessThan,
    LessThanEquals,
    NotEquals,
)
from giskard_nb.checks.composition import AllOf, AnyOf, Not
from giskard_nb.checks.fn import FnCheck, from_fn
from giskard_nb.checks.json_valid import JsonValid
from giskard_nb.checks.latency import Latency
from giskard_nb.checks.metadata import Metadata, MetadataRule
from giskard_nb.checks.readability import Readability
from giskard_nb.checks.rego_policy import RegoPolicy
from giskard_nb.checks.retrieval import (
    MRR,
    NDCG,
    AveragePrecision,
    HitRateAtK,
    PrecisionAtK,
    RecallAtK,
)
from giskard_nb.checks.text import RegexMatching, StringMatching
from giskard_nb.checks.unsafe_output import UnsafeOutput

__all__ = [
    "AllOf",
    "AnyOf",
    "AveragePrecision",
    "Equals",
    "FnCheck",
    "GreaterEquals",
    "GreaterThan",
    "GreaterThanEquals",
    "HitRateAtK",
    "JsonValid",
    "Latency",
    "LessThan",
    "LessThanEquals",
    "LesserThan",
    "LesserThanEquals",
    "MRR",
    "Metadata",
    "MetadataRule",
    "NDCG",
    "Not",
    "NotEquals",
    "PrecisionAtK",
    "Readability",
    "RecallAtK",
    "RegexMatching",
    "RegoPolicy",
    "StringMatching",
    "UnsafeOutput",
    "from_fn",
]


def __getattr__(name: str) -> object:
    """The reference's import path: ``from giskard_nb.checks import Scenario`` (``giskard.checks`` with
    its package renamed) finds every public name of ``giskard_nb``, read at first use (the top level
    imports this package, so it cannot be imported here)."""
    import giskard_nb

    if name in giskard_nb.__all__:
        return getattr(giskard_nb, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
