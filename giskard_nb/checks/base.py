"""Helpers shared by the built-in checks: the subject value, JSONPath keys, text normalization."""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Literal

from pydantic import AliasChoices, Field

from giskard_nb.core.extraction import NoMatch, resolve
from giskard_nb.core.interaction import Trace
from giskard_nb.core.missing import MISSING
from giskard_nb.core.result import CheckResult

NormalizationForm = Literal["NFC", "NFD", "NFKC", "NFKD"] | None
_WS = re.compile(r"\s+")


def target_key_field(default: str = "trace.last.outputs") -> Any:
    """``target_key``, also accepted as ``answer_key``, ``text_key`` or ``key`` (the seed's names)."""
    return Field(
        default=default,
        validation_alias=AliasChoices("target_key", "answer_key", "text_key", "key"),
        description="JSONPath to the value checked (default: the last interaction's outputs).",
    )


def value_or_key(trace: Trace, value: Any, key: str | None) -> Any:
    """A directly given value wins; otherwise resolve ``key`` (NoMatch when absent)."""
    if value is not MISSING:
        return value
    if key is None:
        return NoMatch(key="(no key)")
    return resolve(trace, key)


def no_value(what: str, key: str, *, named: bool = False) -> CheckResult:
    """ERROR: nothing at ``key`` for ``what``, in giskard-checks' words, then how to fix it.

    ``named`` puts ``what`` before "key" ("No value found for answer key 'trace.last.outputs'", the
    LLM and text checks' form); otherwise it follows it ("No value found for key 'trace.last.outputs'
    (the answer)", the rule-based checks' form)."""
    if named:
        head = f"No value found for {what.removeprefix('the ')} key {key!r}"
    else:
        head = f"No value found for key {key!r} ({what})"
    return CheckResult.error(
        f"{head}: the trace has nothing at that path. Check the key (for example "
        "'trace.last.outputs' or 'trace.last.outputs.answer') against the interaction.",
        details={"key": key},
    )


def wrong_type(what: str, expected: str, value: Any) -> CheckResult:
    return CheckResult.error(
        f"{what} must be {expected}, got {type(value).__name__}: {value!r:.200}",
        details={"value_type": type(value).__name__},
    )


def normalize_text(
    text: str, form: NormalizationForm, *, collapse_whitespace: bool = False, casefold: bool = False
) -> str:
    if form:
        text = unicodedata.normalize(form, text)
    if collapse_whitespace:
        text = _WS.sub(" ", text).strip()
    if casefold:
        text = text.casefold()
    return text


def normalize_string(text: str, normalization_form: NormalizationForm = "NFKC") -> str:
    """giskard-checks' string normalization: unicode form, then whitespace runs collapsed and stripped."""
    return normalize_text(text, normalization_form, collapse_whitespace=True)


def normalize_data(
    value: Any, normalization_form: NormalizationForm = "NFKC", collapse_whitespace: bool = True
) -> Any:
    """Normalize every string inside ``value`` (dicts, lists, tuples, named tuples, sets), leaving
    other values alone. Called as in giskard-checks, ``normalize_data(value, form)``, strings are also
    whitespace-collapsed and stripped; the comparison checks pass their own ``collapse_whitespace``.
    A dict subclass (``defaultdict``, ``OrderedDict``) and a named tuple keep their type."""
    form = normalization_form
    if isinstance(value, str):
        return normalize_text(value, form, collapse_whitespace=collapse_whitespace)
    if not form and not collapse_whitespace:
        return value
    if isinstance(value, dict):
        items = {k: normalize_data(v, form, collapse_whitespace) for k, v in value.items()}
        if type(value) is dict:
            return items
        out = value.copy()  # keeps the subclass and its state (a defaultdict's factory)
        out.update(items)
        return out
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a named tuple
        return type(value)(*(normalize_data(v, form, collapse_whitespace) for v in value))
    if isinstance(value, list | tuple | set | frozenset):
        return type(value)(normalize_data(v, form, collapse_whitespace) for v in value)
    return value
