"""JsonValid: the value is (or parses as) JSON, optionally valid against a JSON Schema.

Any valid JSON text is reported valid, in bounded time and stack (``giskard_nb.checks.json_text``):
documents nested beyond ``MAX_PARSE_DEPTH`` levels are checked without being parsed (no schema check
then: an ERROR says so), and integers of any length are read (very long ones as ``Decimal``)."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any, ClassVar

from pydantic import AliasChoices, ConfigDict, Field, model_validator

from giskard_nb.checks.base import no_value, target_key_field, wrong_type
from giskard_nb.checks.json_text import MAX_PARSE_DEPTH, JsonTooDeep, load_json
from giskard_nb.core.check import Check
from giskard_nb.core.extraction import JSONPathStr, NoMatch, resolve
from giskard_nb.core.interaction import Trace
from giskard_nb.core.result import CheckResult
from giskard_nb.errors import GiskardValidationError

__all__ = ["JsonValid", "schema_validator"]


@Check.register("json_valid")
class JsonValid(Check):
    """With ``parse=True`` (default) the value must be a string holding JSON; with ``parse=False`` it must
    be JSON-serializable data. ``expected_schema`` (alias ``schema``) adds JSON Schema validation; the
    schema itself is checked when the check is built."""

    failure_category: ClassVar[str | None] = "format_violation"

    model_config = ConfigDict(serialize_by_alias=True)

    target_key: JSONPathStr = target_key_field()
    parse: bool = True
    expected_schema: dict[str, Any] | None = Field(
        default=None,
        validation_alias=AliasChoices("expected_schema", "schema"),
        serialization_alias="schema",  # saved as giskard-checks saves it; both names load
    )

    @model_validator(mode="after")
    def _check_schema(self) -> JsonValid:
        if self.expected_schema is not None:
            from jsonschema import exceptions, validators

            try:
                validators.validator_for(self.expected_schema).check_schema(self.expected_schema)
            except exceptions.SchemaError as exc:
                raise GiskardValidationError(f"invalid JSON schema: {exc.message}") from None
        return self

    def run(self, trace: Trace) -> CheckResult:
        value = resolve(trace, self.target_key)
        if isinstance(value, NoMatch):
            return no_value("the JSON", self.target_key).with_details(
                {"target_key": self.target_key, "value": value, "schema": self.expected_schema}
            )
        details: dict[str, Any] = {
            "target_key": self.target_key,
            "value": value,
            "schema": self.expected_schema,
        }
        if self.parse:
            if not isinstance(value, str | bytes):
                return wrong_type(
                    f"the value at {self.target_key!r}", "a JSON string (or use parse=False)", value
                )
            try:
                data = load_json(value)
            except json.JSONDecodeError as exc:
                return CheckResult.failure(
                    f"not valid JSON: {exc}", details={**details, "error": str(exc)}
                )
            except JsonTooDeep as exc:
                return self._too_deep(exc.depth, details)
        else:
            data = value
            try:
                json.dumps(data)
            except (TypeError, ValueError) as exc:
                return CheckResult.failure(
                    f"the value at {self.target_key!r} is not JSON serializable: {exc}",
                    details={**details, "error": str(exc)},
                )
        details["parsed_value"] = data
        if self.expected_schema is not None:
            from jsonschema import exceptions

            validator = schema_validator(self.expected_schema)
            try:
                error = next(iter(validator.iter_errors(data)), None)
            except exceptions.RefResolutionError as exc:  # pragma: no cover - depends on the schema
                return CheckResult.error(f"the schema cannot be resolved: {exc}", details=details)
            except Exception as exc:
                return CheckResult.error(f"the schema cannot be applied: {exc}", details=details)
            if error is not None:
                where = "/".join(str(p) for p in error.absolute_path) or "(root)"
                return CheckResult.failure(
                    f"JSON does not match the provided schema at {where}: {error.message}",
                    details={**details, "error": error.message},
                )
            return CheckResult.success("Valid JSON matching the schema.", details=details)
        return CheckResult.success("Valid JSON.", details=details)

    def _too_deep(self, depth: int, details: dict[str, Any]) -> CheckResult:
        """Valid JSON nested beyond ``MAX_PARSE_DEPTH``: valid, but not parsed (nor schema-checked)."""
        details = {**details, "depth": depth}
        if self.expected_schema is not None:
            return CheckResult.error(
                f"the JSON is valid but nested {depth} levels deep: a schema is only checked on JSON "
                f"nested at most {MAX_PARSE_DEPTH} levels",
                details=details,
            )
        return CheckResult.success(f"Valid JSON (nested {depth} levels deep).", details=details)


def schema_validator(schema: dict[str, Any]) -> Any:
    """The schema's validator; an integer too long for ``int`` (read as a ``Decimal``) is an integer."""
    from jsonschema import validators

    cls = validators.validator_for(schema)
    checker = cls.TYPE_CHECKER.redefine(
        "integer",
        lambda checker, value: (
            (isinstance(value, Decimal) and value == value.to_integral_value())
            or cls.TYPE_CHECKER.is_type(value, "integer")
        ),
    )
    return validators.extend(cls, type_checker=checker)(schema)
