"""The columns people already have, turned into checks when a dataset is uploaded (CSV, JSONL, JSON).

- the expected answer, ``expected_output`` / ``expected`` / ``reference`` / ``answer`` (the first of
  them the item has; ``answer`` also stays the test case's ``demo_output``): a ``correctness`` check (an
  LLM judge) when a judge is configured at upload time (``set_default_generator(...)`` or
  ``GISKARD_NB_MODEL``); otherwise its offline stand-in, ``correctness_offline``: a
  ``semantic_similarity`` check of the reply against the expected answer with the offline embedding
  model at ``OFFLINE_THRESHOLD`` (see ``docs/hub.md`` for how that threshold was measured);
- ``keyword`` / ``must_contain``: the reply contains it (a ``string_match`` check, case-insensitive);
- ``must_not_contain``: the reply does not contain it (``not`` around that check);
- ``regex``: the pattern is found in the reply (``regex_matching``; the ``regex`` module's syntax).

A keyword cell may hold several keywords separated by ``|`` (``"30 days|receipt"``: one check each,
all must hold); a JSON list of strings (JSONL/JSON items) does the same. A ``regex`` value is one
pattern (``|`` is alternation there); a JSON list gives several patterns, all must match.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "EXPECTED_KEYS",
    "CaseTally",
    "KEYWORD_KEYS",
    "NO_CHECK_ADVICE",
    "ColumnError",
    "OFFLINE_CORRECTNESS",
    "OFFLINE_THRESHOLD",
    "UploadSummary",
    "column_checks",
    "judge_configured",
    "summarize_cases",
]

#: The columns holding the expected answer, in the order one is picked when several are given.
EXPECTED_KEYS = ("expected_output", "expected", "reference", "answer")
#: The columns holding text the reply must contain.
KEYWORD_KEYS = ("keyword", "must_contain")
#: The name of the offline stand-in for correctness.
OFFLINE_CORRECTNESS = "correctness_offline"
#: The similarity (offline WordLlama model) the stand-in needs to pass.
OFFLINE_THRESHOLD = 0.65
#: What to do about test cases without a check.
NO_CHECK_ADVICE = (
    "add a column expected_output (or answer, reference, expected), keyword (or must_contain), "
    "must_not_contain or regex to the file, or a 'checks' list to each item; or "
    "hub.test_cases.update(test_case_id, checks=[...])"
)


class ColumnError(ValueError):
    """A column's value cannot become a check: ``field`` and what is wrong."""

    def __init__(self, field: str, message: str):
        self.field, self.message = field, message
        super().__init__(f"{field}: {message}")


def judge_configured() -> bool:
    """Whether a default judge model is configured (the expected answer becomes ``correctness``)."""
    from giskard_nb.llm.settings import get_default_generator

    return get_default_generator(required=False) is not None


def column_checks(extra: dict[str, Any], *, judge: bool) -> list[dict[str, Any]]:
    """The check specs the check columns of ``extra`` (the item's keys that are not Hub fields) give;
    the columns used are removed from ``extra``. ``ColumnError`` for a value that cannot be used."""
    checks: list[dict[str, Any]] = []
    expected = next((k for k in EXPECTED_KEYS if k in extra), None)
    if expected is not None:
        value = extra[expected] if expected == "answer" else extra.pop(expected)
        checks.append(_expected(expected, value, judge))
    for key in KEYWORD_KEYS:
        for keyword in _values(extra.pop(key), key, split=True) if key in extra else ():
            checks.append({"identifier": "string_match", "params": _contains(key, keyword)})
    if "must_not_contain" in extra:
        for keyword in _values(extra.pop("must_not_contain"), "must_not_contain", split=True):
            inner = {"kind": "string_matching", **_contains(f"contains {keyword!r}", keyword)}
            params = {"name": "must_not_contain", "check": inner}
            checks.append({"identifier": "not", "params": params})
    if "regex" in extra:
        for pattern in _values(extra.pop("regex"), "regex", split=False):
            checks.append(
                {"identifier": "regex_matching", "params": {"name": "regex", "pattern": pattern}}
            )
    return checks


def _expected(key: str, value: Any, judge: bool) -> dict[str, Any]:
    if not isinstance(value, str) or not value.strip():
        raise ColumnError(key, "the expected answer must be a non-empty string")
    if judge:
        return {"identifier": "correctness", "params": {"reference": value}}
    params = {
        "name": OFFLINE_CORRECTNESS,
        "reference_text": value,
        "threshold": OFFLINE_THRESHOLD,
        "embedding_model": "offline",
    }
    return {"identifier": "semantic_similarity", "params": params}


def _contains(name: str, keyword: str) -> dict[str, Any]:
    return {"name": name, "keyword": keyword, "case_sensitive": False}


def _values(value: Any, key: str, *, split: bool) -> list[str]:
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(v, str) for v in items):
        raise ColumnError(key, "must be a string or a list of strings")
    parts = [p.strip() for v in items for p in (v.split("|") if split else [v])]
    parts = [p for p in parts if p]
    if not parts:
        raise ColumnError(key, "is empty")
    return parts


@dataclass(frozen=True)
class UploadSummary:
    """What an upload (or a dataset) holds: its test cases, how many have no (enabled) check, and how
    many compare the expected answer offline (``correctness_offline``) instead of with a judge."""

    test_cases: int
    without_checks: int
    offline_correctness: int

    @property
    def message(self) -> str:
        lines = [f"{self.test_cases} test case{'s' if self.test_cases != 1 else ''}"]
        if self.without_checks:
            lines.append(
                f"{self.without_checks} with no check (an evaluation skips them: 'no checks'): "
                + NO_CHECK_ADVICE
            )
        if self.offline_correctness:
            lines.append(
                f"{self.offline_correctness} compare the reply with the expected answer offline "
                f"({OFFLINE_CORRECTNESS}: the offline stand-in for correctness, semantic "
                f"similarity >= {OFFLINE_THRESHOLD:g} with the offline embedding model; it misses "
                "swapped facts and negations): configure a judge (set_default_generator(...) or "
                "GISKARD_NB_MODEL) before uploading to get LLM-judged correctness checks"
            )
        return "; ".join(lines)

    def __str__(self) -> str:
        return self.message


class CaseTally:
    """Counts test cases as they are imported (``add``); ``summary()`` is their ``UploadSummary``."""

    def __init__(self) -> None:
        self.total = self.without = self.offline = 0

    def add(self, case: Any) -> None:
        enabled = [spec for spec in case.checks if spec.enabled]
        self.total += 1
        self.without += not enabled
        self.offline += any(spec.params.get("name") == OFFLINE_CORRECTNESS for spec in enabled)

    def summary(self) -> UploadSummary:
        return UploadSummary(self.total, self.without, self.offline)


def summarize_cases(cases: Any) -> UploadSummary:
    """The ``UploadSummary`` of test cases (``HubTestCase`` records)."""
    tally = CaseTally()
    for case in cases:
        tally.add(case)
    return tally.summary()
