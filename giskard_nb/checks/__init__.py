"""Built-in checks. Public names are re-exported from ``giskard_nb``."""

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
from giskard_nb.checks.metadata import Metadata, MetadataRule
from giskard_nb.checks.text import RegexMatching, StringMatching

__all__ = [
    "AllOf",
    "AnyOf",
    "Equals",
    "FnCheck",
    "GreaterEquals",
    "GreaterThan",
    "GreaterThanEquals",
    "JsonValid",
    "LessThan",
    "LessThanEquals",
    "LesserThan",
    "LesserThanEquals",
    "Metadata",
    "MetadataRule",
    "Not",
    "NotEquals",
    "RegexMatching",
    "StringMatching",
    "from_fn",
]
