"""RegoPolicy: evaluate an OPA Rego rule over a trace value (needs the optional ``rego`` extra)."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from pydantic import Field, PrivateAttr, field_validator, model_validator

from giskard_nb.checks.base import no_value, target_key_field
from giskard_nb.core.check import Check
from giskard_nb.core.extraction import JSONPathStr, NoMatch, resolve
from giskard_nb.core.interaction import Trace
from giskard_nb.core.result import CheckResult
from giskard_nb.errors import ConfigError, GiskardValidationError

__all__ = ["REGO_MISSING", "RegoPolicy"]

REGO_MISSING = (
    "RegoPolicy needs the regorus package, which is not installed: pip install 'giskard-nb[rego]'"
)


def _regorus() -> Any:
    try:
        import regorus
    except ImportError:
        raise ConfigError(REGO_MISSING) from None
    return regorus


@Check.register("rego_policy")
class RegoPolicy(Check):
    """PASS when ``rule`` (``data.<package>.<rule>``) evaluates to ``true`` with the value at
    ``target_key`` as OPA ``input`` and ``data`` as static data; ``false`` or undefined is FAIL, any other
    value ERROR. The policy is compiled when the check is built if regorus is installed; without it the
    check still loads (so saved suites open) and every run is ERROR naming the extra."""

    failure_category: ClassVar[str | None] = "policy_violation"

    policy: str = Field(min_length=1)
    rule: str
    target_key: JSONPathStr = target_key_field()
    data: dict[str, Any] = Field(default_factory=dict)
    _engine: Any = PrivateAttr(default=None)

    @field_validator("rule")
    @classmethod
    def _check_rule(cls, value: str) -> str:
        if not value.startswith("data."):
            raise GiskardValidationError(f"rule must start with 'data.', got {value!r}")
        return value

    @model_validator(mode="after")
    def _compile(self) -> RegoPolicy:
        try:
            self._engine = self._build()
        except ConfigError:
            self._engine = None
        return self

    def _build(self) -> Any:
        engine = _regorus().Engine()
        try:
            engine.add_policy("policy.rego", self.policy)
            engine.add_data_json(json.dumps(self.data))
        except (RuntimeError, ValueError) as exc:
            raise GiskardValidationError(
                f"the Rego policy does not compile: {_engine_message(exc)}"
            ) from None
        return engine

    def run(self, trace: Trace) -> CheckResult:
        if self._engine is None:
            return CheckResult.error(REGO_MISSING, details={"missing_extra": "rego"})
        value = resolve(trace, self.target_key)
        if isinstance(value, NoMatch):
            return no_value("the policy input", self.target_key)
        try:
            document = json.dumps(value)
        except (TypeError, ValueError) as exc:
            return CheckResult.error(f"the policy input is not JSON-serializable: {exc}")
        try:
            self._engine.set_input_json(document)
            outcome = self._engine.eval_rule(self.rule)
        except RuntimeError as exc:
            return CheckResult.error(f"evaluating {self.rule} failed: {_engine_message(exc)}")
        details = {"rule": self.rule, "value": outcome}
        if outcome is True:
            return CheckResult.success(f"{self.rule} is true", details=details)
        if outcome is False or outcome is None:
            state = "false" if outcome is False else "undefined"
            return CheckResult.failure(f"{self.rule} is {state}", details=details)
        return CheckResult.error(
            f"{self.rule} must be a boolean, got {type(outcome).__name__}: {outcome!r:.200}",
            details=details,
        )


def _engine_message(exc: Exception) -> str:
    """regorus' error text without the Rust stack backtrace it appends (the policy's line and caret
    are kept)."""
    return str(exc).split("Stack backtrace:", 1)[0].strip()
