"""Text checks: StringMatching (substring) and RegexMatching (with a match timeout)."""

from __future__ import annotations

from typing import Any

from pydantic import model_validator

from giskard_nb.checks.base import (
    NormalizationForm,
    no_value,
    normalize_text,
    target_key_field,
    value_or_key,
    wrong_type,
)
from giskard_nb.core.check import Check
from giskard_nb.core.extraction import JSONPathStr, NoMatch
from giskard_nb.core.interaction import Trace
from giskard_nb.core.missing import MISSING, Value
from giskard_nb.core.result import CheckResult
from giskard_nb.errors import GiskardValidationError

__all__ = ["RegexMatching", "StringMatching"]


def _exactly_one(model: Any, a: str, b: str) -> None:
    given = [n for n in (a, b) if getattr(model, n) not in (MISSING, None)]
    if len(given) != 1:
        raise GiskardValidationError(
            f"{type(model).__name__}: Exactly one of {a!r} or {b!r} must be given (got {len(given)})"
        )


@Check.register("string_matching")
class StringMatching(Check):
    """PASS when ``keyword`` occurs in the text (at ``target_key``, or given directly as ``text``).

    Both sides are unicode-normalized (``normalization_form``, NFKC by default) and whitespace runs are
    collapsed (``collapse_whitespace``); ``case_sensitive=False`` compares case-insensitively.
    """

    text: Value = MISSING
    target_key: JSONPathStr = target_key_field()
    keyword: str | None = None
    keyword_key: JSONPathStr | None = None
    normalization_form: NormalizationForm = "NFKC"
    case_sensitive: bool = True
    collapse_whitespace: bool = True

    @model_validator(mode="after")
    def _one_keyword(self) -> StringMatching:
        _exactly_one(self, "keyword", "keyword_key")
        return self

    def run(self, trace: Trace) -> CheckResult:
        keyword = value_or_key(
            trace, self.keyword if self.keyword is not None else MISSING, self.keyword_key
        )
        if isinstance(keyword, NoMatch):
            return no_value("the keyword", self.keyword_key or "", named=True).with_details(
                {"keyword": keyword}
            )
        if not isinstance(keyword, str):
            return wrong_type("the keyword", "a string", keyword)
        text = value_or_key(trace, self.text, self.target_key)
        if isinstance(text, NoMatch):
            return no_value("the text", self.target_key, named=True).with_details({"text": text})
        if not isinstance(text, str):
            return wrong_type(f"the text at {self.target_key!r}", "a string", text)
        norm = dict(collapse_whitespace=self.collapse_whitespace, casefold=not self.case_sensitive)
        found = normalize_text(keyword, self.normalization_form, **norm) in normalize_text(
            text, self.normalization_form, **norm
        )
        details = {"text": text, "keyword": keyword, "case_sensitive": self.case_sensitive}
        if found:
            return CheckResult.success(
                f"The text contains the keyword {keyword!r}.", details=details
            )
        return CheckResult.failure(
            f"The text does not contain the keyword {keyword!r}.", details=details
        )


@Check.register("regex_matching")
class RegexMatching(Check):
    """PASS when ``pattern`` (the ``regex`` module's syntax; inline flags like ``(?i)``) is found in the text.

    A static pattern is compiled when the check is built (an invalid one is a construction error); a
    search running longer than ``match_timeout_seconds`` is an ERROR (catastrophic backtracking).
    """

    text: Value = MISSING
    target_key: JSONPathStr = target_key_field()
    pattern: str | None = None
    pattern_key: JSONPathStr | None = None
    match_timeout_seconds: float = 2.0

    @model_validator(mode="after")
    def _validate_pattern(self) -> RegexMatching:
        _exactly_one(self, "pattern", "pattern_key")
        if self.match_timeout_seconds <= 0:
            raise GiskardValidationError("match_timeout_seconds must be > 0")
        if self.pattern is not None:
            _compile(self.pattern)
        return self

    def run(self, trace: Trace) -> CheckResult:
        import regex

        pattern = value_or_key(
            trace, self.pattern if self.pattern is not None else MISSING, self.pattern_key
        )
        if isinstance(pattern, NoMatch):
            return no_value("the pattern", self.pattern_key or "", named=True).with_details(
                {"pattern": pattern}
            )
        if not isinstance(pattern, str):
            return wrong_type("the pattern", "a string", pattern)
        text = value_or_key(trace, self.text, self.target_key)
        if isinstance(text, NoMatch):
            return no_value("the text", self.target_key, named=True).with_details({"text": text})
        if not isinstance(text, str):
            return wrong_type(f"the text at {self.target_key!r}", "a string", text)
        try:
            compiled = _compile(pattern)
            match = compiled.search(text, timeout=self.match_timeout_seconds)
        except GiskardValidationError as exc:
            return CheckResult.error(str(exc))
        except TimeoutError:
            return CheckResult.error(
                f"the pattern {pattern!r} did not finish matching within {self.match_timeout_seconds} s "
                "(catastrophic backtracking?); simplify the pattern or raise match_timeout_seconds"
            )
        except regex.error as exc:  # pragma: no cover - compile errors are caught above
            return CheckResult.error(f"regex error: {exc}")
        details = {"text": text, "pattern": pattern}
        if match:
            details["match"] = match.group(0)
            return CheckResult.success(f"The text matches {pattern!r}.", details=details)
        return CheckResult.failure(f"The text does not match {pattern!r}.", details=details)


_cache: dict[str, Any] = {}


def _compile(pattern: str) -> Any:
    compiled = _cache.get(pattern)
    if compiled is None:
        import regex

        try:
            compiled = regex.compile(pattern)
        except regex.error as exc:
            raise GiskardValidationError(f"invalid regular expression {pattern!r}: {exc}") from None
        if len(_cache) < 4096:
            _cache[pattern] = compiled
    return compiled
