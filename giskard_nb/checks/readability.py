"""Readability: a reading-ease or grade-level score kept inside bounds (computed in-house, no dependency)."""

from __future__ import annotations

import re
from typing import ClassVar, Literal

from pydantic import model_validator

from giskard_nb.checks.base import no_value, target_key_field, wrong_type
from giskard_nb.core.check import Check
from giskard_nb.core.extraction import JSONPathStr, NoMatch, resolve
from giskard_nb.core.interaction import Trace
from giskard_nb.core.result import CheckResult, Metric
from giskard_nb.errors import GiskardValidationError

__all__ = [
    "Readability",
    "ReadabilityMetric",
    "automated_readability_index",
    "coleman_liau_index",
    "flesch_kincaid_grade",
    "flesch_reading_ease",
    "gunning_fog",
    "text_counts",
]

_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")
_SENTENCE_END = re.compile(r"[.!?]+(?:\s|$)")
_VOWEL_GROUPS = re.compile(r"[aeiouy]+")


def _syllables(word: str) -> int:
    """English syllable estimate: vowel groups, minus a silent final 'e', at least one."""
    w = word.lower()
    count = len(_VOWEL_GROUPS.findall(w))
    if w.endswith("e") and not w.endswith(("le", "ee", "ye")) and count > 1:
        count -= 1
    return max(count, 1)


def text_counts(text: str) -> tuple[int, int, int]:
    """(sentences, words, syllables) of an English text, by simple rules."""
    words = _WORD.findall(text)
    sentences = max(len(_SENTENCE_END.findall(text.strip())), 1) if words else 0
    return sentences, len(words), sum(_syllables(w) for w in words)


def _counted(text: str) -> tuple[int, int, int]:
    sentences, words, syllables = text_counts(text)
    if not words:
        raise ValueError("the text has no words")
    return sentences, words, syllables


def flesch_reading_ease(text: str) -> float:
    sentences, words, syllables = _counted(text)
    return 206.835 - 1.015 * (words / sentences) - 84.6 * (syllables / words)


def flesch_kincaid_grade(text: str) -> float:
    sentences, words, syllables = _counted(text)
    return 0.39 * (words / sentences) + 11.8 * (syllables / words) - 15.59


def gunning_fog(text: str) -> float:
    """0.4 x (words per sentence + 100 x share of words of three syllables or more)."""
    sentences, words, _ = _counted(text)
    complex_words = sum(1 for w in _WORD.findall(text) if _syllables(w) >= 3)
    return 0.4 * (words / sentences + 100 * complex_words / words)


def automated_readability_index(text: str) -> float:
    """4.71 x letters per word + 0.5 x words per sentence - 21.43."""
    sentences, words, _ = _counted(text)
    letters = sum(len(w.replace("'", "")) for w in _WORD.findall(text))
    return 4.71 * (letters / words) + 0.5 * (words / sentences) - 21.43


def coleman_liau_index(text: str) -> float:
    """0.0588 x letters per 100 words - 0.296 x sentences per 100 words - 15.8."""
    sentences, words, _ = _counted(text)
    letters = sum(len(w.replace("'", "")) for w in _WORD.findall(text))
    return 0.0588 * (100 * letters / words) - 0.296 * (100 * sentences / words) - 15.8


_METRICS = {
    "flesch_reading_ease": flesch_reading_ease,
    "flesch_kincaid_grade": flesch_kincaid_grade,
    "gunning_fog": gunning_fog,
    "automated_readability_index": automated_readability_index,
    "coleman_liau_index": coleman_liau_index,
}
_GRADE = "a US school grade: 5 easy, 8 plain English, 12+ hard"
_GUIDE = {
    "flesch_reading_ease": "0-100+, higher is easier: 90+ very easy, 60-70 plain English, under 30 very hard",
    "flesch_kincaid_grade": _GRADE,
    "gunning_fog": _GRADE,
    "automated_readability_index": _GRADE,
    "coleman_liau_index": _GRADE,
}
ReadabilityMetric = Literal[
    "flesch_reading_ease",
    "flesch_kincaid_grade",
    "gunning_fog",
    "automated_readability_index",
    "coleman_liau_index",
]


@Check.register("readability")
class Readability(Check):
    """The text's readability score lies within ``[min_score, max_score]`` (without a bound the score is
    only measured, and the check passes). English-only estimates (syllables are counted by vowel
    groups), so treat scores near a bound as approximate."""

    failure_category: ClassVar[str | None] = "format_violation"

    target_key: JSONPathStr = target_key_field()
    metric: ReadabilityMetric = "flesch_reading_ease"
    min_score: float | None = None
    max_score: float | None = None

    @model_validator(mode="after")
    def _check_bounds(self) -> Readability:
        if (
            self.min_score is not None
            and self.max_score is not None
            and self.min_score > self.max_score
        ):
            raise GiskardValidationError(
                f"min_score must be less than or equal to max_score (got min_score={self.min_score}, "
                f"max_score={self.max_score}): swap them or widen the range"
            )
        return self

    def run(self, trace: Trace) -> CheckResult:
        value = resolve(trace, self.target_key)
        if isinstance(value, NoMatch):
            return no_value("the text", self.target_key).with_details({"text": value})
        if not isinstance(value, str):
            return wrong_type(f"the value at {self.target_key!r}", "a string", value)
        try:
            score = round(_METRICS[self.metric](value), 2)
        except ValueError as exc:
            return CheckResult.error(
                f"cannot score readability: {exc}", details={"text": value[:200]}
            )
        details = {
            "text": value,
            "score": score,
            "metric": self.metric,
            "score_guide": _GUIDE[self.metric],
        }
        metrics = [Metric(name=self.metric, value=score)]
        if self.min_score is not None and score < self.min_score:
            msg = f"{self.metric} {score} is below the minimum {self.min_score}"
            return CheckResult.failure(msg, details=details, metrics=metrics)
        if self.max_score is not None and score > self.max_score:
            msg = f"{self.metric} {score} is above the maximum {self.max_score}"
            return CheckResult.failure(msg, details=details, metrics=metrics)
        bounded = self.min_score is not None or self.max_score is not None
        verdict = "is within bounds" if bounded else "(no min_score or max_score: measured only)"
        return CheckResult.success(
            f"{self.metric} {score} {verdict}", details=details, metrics=metrics
        )
