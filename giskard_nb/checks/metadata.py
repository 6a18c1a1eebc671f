"""Metadata: JSONPath rules over an interaction's metadata (the Hub's ``metadata`` check)."""

from __future__ import annotations

import operator
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator, model_validator

from giskard_nb.checks.base import no_value, wrong_type
from giskard_nb.core.check import Check
from giskard_nb.core.extraction import JSONPathStr, NoMatch, compile_path, resolve
from giskard_nb.core.interaction import Trace
from giskard_nb.core.missing import MISSING, Value
from giskard_nb.core.result import CheckResult
from giskard_nb.errors import GiskardValidationError

__all__ = ["Metadata", "MetadataRule"]

_OPS = {
    "equals": operator.eq,
    "not_equals": operator.ne,
    "greater_than": operator.gt,
    "greater_than_equals": operator.ge,
    "less_than": operator.lt,
    "less_than_equals": operator.le,
    "contains": lambda a, b: b in a,
}


class MetadataRule(BaseModel):
    """One rule: the value at ``json_path`` (relative to the metadata, e.g. ``$.tool_calls[0].name`` or
    ``model``) compared with ``expected_value`` by ``operator``; ``exists``/``not_exists`` need no value."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    json_path: str
    expected_value: Value = MISSING
    expected_value_type: Literal["string", "number", "boolean"] | None = None
    operator: Literal[
        "equals",
        "not_equals",
        "greater_than",
        "greater_than_equals",
        "less_than",
        "less_than_equals",
        "contains",
        "exists",
        "not_exists",
    ] = "equals"

    @field_validator("json_path")
    @classmethod
    def _compile(cls, path: str) -> str:
        path = path.strip()
        if not path.startswith("$"):
            path = "$." + path
        compile_path(path)
        return path

    @model_validator(mode="after")
    def _coerce(self) -> MetadataRule:
        needs_value = self.operator not in ("exists", "not_exists")
        if needs_value and self.expected_value is MISSING:
            raise GiskardValidationError(
                f"metadata rule {self.json_path!r} needs an expected_value"
            )
        if needs_value and self.expected_value_type:
            self.expected_value = _coerce(
                self.expected_value, self.expected_value_type, self.json_path
            )
        return self

    def evaluate(self, metadata: Any) -> tuple[bool, str]:
        actual = compile_path(self.json_path).find(metadata)
        if self.operator == "exists":
            return not isinstance(actual, NoMatch), f"{self.json_path} exists"
        if self.operator == "not_exists":
            return isinstance(actual, NoMatch), f"{self.json_path} does not exist"
        if isinstance(actual, NoMatch):
            return False, f"{self.json_path} is missing"
        if self.expected_value_type:
            try:
                actual = _coerce(actual, self.expected_value_type, self.json_path)
            except GiskardValidationError:
                return (
                    False,
                    f"{self.json_path} = {actual!r:.100} is not a {self.expected_value_type}",
                )
        try:
            ok = bool(_OPS[self.operator](actual, self.expected_value))
        except TypeError as exc:
            return False, f"{self.json_path} = {actual!r:.100} cannot be compared: {exc}"
        return (
            ok,
            f"{self.json_path} = {actual!r:.100} ({self.operator} {self.expected_value!r:.100})",
        )


def _coerce(value: Any, kind: str, path: str) -> Any:
    try:
        if kind == "number":
            if isinstance(value, bool):
                raise ValueError
            return float(value)
        if kind == "boolean":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.strip().lower() in ("true", "false"):
                return value.strip().lower() == "true"
            raise ValueError
        return str(value)
    except (TypeError, ValueError):
        raise GiskardValidationError(f"{path}: {value!r} is not a {kind}") from None


@Check.register("metadata")
class Metadata(Check):
    """PASS when every rule holds on the metadata at ``metadata_key`` (default: the last interaction's)."""

    rules: list[MetadataRule] = Field(validation_alias=AliasChoices("rules", "json_path_rules"))
    metadata_key: JSONPathStr = "trace.last.metadata"

    @field_validator("rules")
    @classmethod
    def _not_empty(cls, rules: list[MetadataRule]) -> list[MetadataRule]:
        if not rules:
            raise GiskardValidationError("Metadata needs at least one rule")
        return rules

    def run(self, trace: Trace) -> CheckResult:
        metadata = resolve(trace, self.metadata_key)
        if isinstance(metadata, NoMatch):
            return no_value("the metadata", self.metadata_key)
        if not isinstance(metadata, dict):
            return wrong_type(f"the metadata at {self.metadata_key!r}", "a dict", metadata)
        outcomes = [rule.evaluate(metadata) for rule in self.rules]
        details = {"rules": [{"ok": ok, "detail": d} for ok, d in outcomes]}
        failed = [d for ok, d in outcomes if not ok]
        if failed:
            return CheckResult.failure(
                "Metadata rules not met: " + "; ".join(failed), details=details
            )
        return CheckResult.success(f"All {len(outcomes)} metadata rules hold.", details=details)
