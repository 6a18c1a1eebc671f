"""Text normalization as the comparison and text checks apply it (giskard-checks'
``giskard.checks.utils.normalization``).

``normalize_string(value, normalization_form=None)``: Unicode-normalize (``"NFC"``, ``"NFD"``, ``"NFKC"``,
``"NFKD"``; None leaves the code points alone), then collapse every whitespace run to one space and
strip. ``normalize_data(data, normalization_form=None)`` does it to every string inside dicts, lists,
tuples (named ones included) and sets, and leaves other values as they are.
"""

from __future__ import annotations

from typing import Any, TypeVar

from giskard_nb.checks.base import NormalizationForm, normalize_text
from giskard_nb.checks.base import normalize_data as _normalize_data
from giskard_nb.errors import GiskardValidationError

__all__ = ["NormalizationForm", "normalize_data", "normalize_string"]

T = TypeVar("T")
_FORMS = ("NFC", "NFD", "NFKC", "NFKD")


def _form(normalization_form: Any) -> Any:
    if normalization_form is not None and normalization_form not in _FORMS:
        raise GiskardValidationError(
            f"normalization_form must be one of {_FORMS} or None, got {normalization_form!r}"
        )
    return normalization_form


def normalize_string(value: str, normalization_form: NormalizationForm = None) -> str:
    """``value`` Unicode-normalized (when a form is given), whitespace runs collapsed, stripped."""
    if not isinstance(value, str):
        raise GiskardValidationError(
            f"normalize_string takes a str, got {type(value).__name__}; use normalize_data for "
            "containers"
        )
    return normalize_text(value, _form(normalization_form), collapse_whitespace=True)


def normalize_data(data: T, normalization_form: NormalizationForm = None) -> T:
    """``data`` with every string inside it normalized as ``normalize_string`` does (a new container;
    the input is not modified)."""
    return _normalize_data(data, _form(normalization_form), True)
