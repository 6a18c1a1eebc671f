"""What the calls carried: ``ToolArgs``, ``ToolSchemaValid`` and ``ToolCallF1``.

::

    ToolArgs(tool="transfer", expected={"amount": 100, "currency": "EUR"})          # a subset
    ToolArgs(tool="transfer", schema={"type": "object", "required": ["iban"]})
    ToolArgs(tool="transfer", rules=[{"json_path": "amount", "operator": "less_than", "expected_value": 1000}])
    ToolSchemaValid(tools=[ToolSpec(...), {"type": "function", "function": {...}}])
    ToolCallF1(expected=[{"name": "search", "arguments": {"q": "paris"}}], threshold=0.8)

Arguments are compared as data (strings NFKC-normalised with whitespace collapsed, ``1.0`` equal to
``1``); schemas are JSON Schema (``jsonschema``, as ``JsonValid``); rules are ``MetadataRule`` JSONPath
rules evaluated on the arguments.
"""

from __future__ import annotations

import json
from collections import Counter
from functools import lru_cache
from typing import Any, ClassVar, Literal

from pydantic import (
    AliasChoices,
    ConfigDict,
    Field,
    PrivateAttr,
    field_validator,
    model_validator,
)

from giskard_nb.checks.json_valid import schema_validator
from giskard_nb.checks.metadata import MetadataRule
from giskard_nb.checks.tools.common import (
    MAX_LISTED,
    ToolCheck,
    args_diff,
    as_calls,
    as_specs,
    call_key,
    normalise_args,
    short,
)
from giskard_nb.core.check import Check
from giskard_nb.core.interaction import Trace
from giskard_nb.core.result import CheckResult, Metric
from giskard_nb.core.tools import ToolCall, ToolSpec
from giskard_nb.errors import GiskardValidationError

__all__ = ["ToolArgs", "ToolCallF1", "ToolSchemaValid", "schema_errors"]


def _check_schema(schema: dict[str, Any], where: str) -> None:
    from jsonschema import exceptions, validators

    try:
        validators.validator_for(schema).check_schema(schema)
    except exceptions.SchemaError as exc:
        raise GiskardValidationError(f"invalid JSON schema for {where}: {exc.message}") from None


@lru_cache(maxsize=256)
def _compiled(schema: str) -> Any:
    """The validator of a schema (given as canonical JSON), built once: building one is slow."""
    return schema_validator(json.loads(schema))


def compiled_schema(schema: dict[str, Any]) -> Any:
    """The (cached) validator of ``schema``: a check keeps it rather than rebuild it per call."""
    return _compiled(json.dumps(schema, sort_keys=True, default=str))


def schema_errors(schema: dict[str, Any] | Any, value: Any, limit: int = 10) -> list[str]:
    """The ways ``value`` breaks ``schema`` (a dict, or its ``compiled_schema``), as
    ``$.path: message``, at most ``limit``."""
    if not schema:
        return []
    validator = compiled_schema(schema) if isinstance(schema, dict) else schema
    out = []
    try:
        for error in validator.iter_errors(value):
            where = "".join(
                f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path
            )
            out.append(f"${where}: {error.message[:300]}")
            if len(out) >= limit:
                break
    except Exception as exc:  # a schema that cannot be applied (a bad $ref...)
        return [f"the schema cannot be applied: {type(exc).__name__}: {exc}"[:300]]
    return out


@Check.register("tool_args")
class ToolArgs(ToolCheck):
    """PASS when every call of ``tool`` in scope (or only its ``occurrence``-th call, 0-based,
    negative from the end) has arguments that equal ``expected`` (``mode="exact"``) or contain it
    (``mode="subset"``, default), are valid against ``schema``, and satisfy every JSONPath rule of
    ``rules``. A tool never called is a FAIL. ``details["calls"]`` has, per call, the per-argument
    diff, the schema errors and the rules' outcomes."""

    failure_category: ClassVar[str | None] = "incorrect_answer"

    model_config = ConfigDict(serialize_by_alias=True)

    tool: str
    expected: dict[str, Any] | None = None
    mode: Literal["subset", "exact"] = "subset"
    expected_schema: dict[str, Any] | None = Field(
        default=None,
        validation_alias=AliasChoices("expected_schema", "schema"),
        serialization_alias="schema",
    )
    rules: list[MetadataRule] = Field(default_factory=list)
    occurrence: int | None = None

    _compiled: Any = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _something(self) -> ToolArgs:
        if self.expected is None and self.expected_schema is None and not self.rules:
            raise GiskardValidationError(
                "ToolArgs needs expected={...}, schema={...} or rules=[...] to check the arguments of "
                f"{self.tool!r}"
            )
        if self.expected_schema is not None:
            _check_schema(self.expected_schema, f"the arguments of {self.tool!r}")
        return self

    def run(self, trace: Trace) -> CheckResult:
        calls = self.scope(trace)
        if isinstance(calls, CheckResult):
            return calls
        mine = [c for c in calls if c.name == self.tool.strip()]
        if self.occurrence is not None:
            try:
                mine = [mine[self.occurrence]]
            except IndexError:
                return CheckResult.failure(
                    f"{self.tool!r} was called {len(mine)} time(s) {self.where()}: there is no "
                    f"occurrence {self.occurrence}.",
                    details={"calls": [], "count": len(mine), "turn": self.turn},
                )
        if not mine:
            return CheckResult.failure(
                f"{self.tool!r} was not called {self.where()}, so its arguments cannot be checked.",
                details={"calls": [], "count": 0, "turn": self.turn},
            )
        report = [self._one(call) for call in mine[:MAX_LISTED]]
        bad = [r for r in report if not r["ok"]]
        details = {"calls": report, "count": len(mine), "turn": self.turn}
        if not bad:
            return CheckResult.success(
                f"The arguments of {len(mine)} call(s) of {self.tool!r} are as expected.",
                details=details,
            )
        first = bad[0]
        problems = [
            f"{d['argument']} {d['problem']}"
            + (
                f" (expected {d['expected']!r:.60}, got {d.get('actual')!r:.60})"
                if "expected" in d and "actual" in d
                else ""
            )
            for d in first["diff"][:3]
        ]
        problems += first["schema_errors"][:2] + first["failed_rules"][:2]
        return CheckResult.failure(
            f"{len(bad)} of {len(mine)} call(s) of {self.tool!r} have wrong arguments; "
            f"{first['call']}: " + "; ".join(problems),
            details=details,
        )

    def _validator(self) -> Any:
        if self._compiled is None:
            self._compiled = compiled_schema(self.expected_schema or {})
        return self._compiled

    def _one(self, call: ToolCall) -> dict[str, Any]:
        args = call.arguments
        diff: list[dict[str, Any]] = []
        if call.arguments_error:
            diff.append({"argument": "$", "problem": "unparseable", "actual": args})
        elif self.expected is not None:
            diff = args_diff(normalise_args(self.expected), normalise_args(args), mode=self.mode)
        errors = schema_errors(self._validator(), args) if self.expected_schema else []
        rules = []
        for rule in self.rules:
            ok, detail = rule.evaluate(args) if isinstance(args, dict) else (False, "not a dict")
            rules.append({"ok": ok, "detail": detail})
        failed = [f"rule not met: {r['detail']}" for r in rules if not r["ok"]]
        return {
            "call": short([call])[0],
            "ok": not diff and not errors and not failed,
            "diff": diff,
            "schema_errors": errors,
            "rules": rules,
            "failed_rules": failed,
        }


@Check.register("tool_schema_valid")
class ToolSchemaValid(ToolCheck):
    """PASS when every call in scope names one of ``tools`` (no hallucinated tool) and its arguments
    are valid JSON, valid against that tool's input schema. ``tools`` are ``ToolSpec`` objects or
    tool definitions (OpenAI, Anthropic, MCP). A failure hints ``hallucination`` when a tool does
    not exist, ``format_violation`` otherwise."""

    failure_category: ClassVar[str | None] = "format_violation"

    tools: list[ToolSpec]

    _compiled: dict[str, Any] | None = PrivateAttr(default=None)

    @field_validator("tools", mode="before")
    @classmethod
    def _specs(cls, value: Any) -> Any:
        return as_specs(value)

    @model_validator(mode="after")
    def _schemas(self) -> ToolSchemaValid:
        if not self.tools:
            raise GiskardValidationError("ToolSchemaValid needs the tools the agent may call")
        for spec in self.tools:
            if spec.input_schema:
                _check_schema(spec.input_schema, f"tool {spec.name!r}")
        return self

    def failure_hint(self, result: CheckResult) -> str | None:
        return "hallucination" if result.details.get("unknown_tools") else "format_violation"

    def run(self, trace: Trace) -> CheckResult:
        calls = self.scope(trace)
        if isinstance(calls, CheckResult):
            return calls
        specs = {s.name: s for s in self.tools}
        if self._compiled is None:
            self._compiled = {s.name: compiled_schema(s.input_schema) for s in self.tools}
        unknown, invalid = [], []
        for call in calls:
            spec = specs.get(call.name)
            if spec is None:
                unknown.append(call)
                continue
            if call.arguments_error:
                invalid.append({"call": short([call])[0], "errors": [call.arguments_error]})
                continue
            errors = schema_errors(spec.input_schema and self._compiled[call.name], call.arguments)
            if errors:
                invalid.append({"call": short([call])[0], "errors": errors})
        details = {
            "unknown_tools": short(unknown),
            "invalid_arguments": invalid[:MAX_LISTED],
            "known_tools": sorted(specs)[:MAX_LISTED],
            "count": len(calls),
            "turn": self.turn,
        }
        if not unknown and not invalid:
            return CheckResult.success(
                f"All {len(calls)} call(s) {self.where()} name a known tool with valid arguments.",
                details=details,
            )
        parts = []
        if unknown:
            names = sorted({c.name for c in unknown})
            parts.append(f"unknown tool(s) {', '.join(repr(n) for n in names[:5])}")
        if invalid:
            parts.append(f"{invalid[0]['call']}: {invalid[0]['errors'][0]}")
        return CheckResult.failure(
            f"{len(unknown) + len(invalid)} of {len(calls)} call(s) {self.where()} are not valid: "
            + "; ".join(parts),
            details=details,
        )


@Check.register("tool_call_f1")
class ToolCallF1(ToolCheck):
    """Precision, recall and F1 of the calls against ``expected`` (Ragas' ToolCallF1): a call counts
    when its name and its normalised arguments equal an expected call's (``arguments="name"``:
    names only), each expected call matched once. Metric ``f1`` (and ``precision``, ``recall``);
    PASS when ``f1 >= threshold`` (default 1). No expected and no actual call is an F1 of 1."""

    failure_category: ClassVar[str | None] = "incorrect_answer"

    expected: list[ToolCall]
    arguments: Literal["exact", "name"] = "exact"
    threshold: float = Field(default=1.0, ge=0.0, le=1.0)

    @field_validator("expected", mode="before")
    @classmethod
    def _calls(cls, value: Any) -> Any:
        return as_calls(value)

    def run(self, trace: Trace) -> CheckResult:
        calls = self.scope(trace)
        if isinstance(calls, CheckResult):
            return calls
        with_args = self.arguments == "exact"
        want_keys = [call_key(c, with_arguments=with_args) for c in self.expected]
        got_keys = [call_key(c, with_arguments=with_args) for c in calls]
        want, got = Counter(want_keys), Counter(got_keys)
        hits = sum((want & got).values())
        precision = hits / len(calls) if calls else (1.0 if not self.expected else 0.0)
        recall = hits / len(self.expected) if self.expected else (1.0 if not calls else 0.0)
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        missing = _unmatched(self.expected, want_keys, got)
        extra = _unmatched(calls, got_keys, want)
        details = {
            "precision": precision,
            "recall": recall,
            "f1": f1,
            "matched": hits,
            "missing": short(missing),
            "extra": short(extra),
            "turn": self.turn,
        }
        metrics = [
            Metric(name="f1", value=f1),
            Metric(name="precision", value=precision),
            Metric(name="recall", value=recall),
        ]
        summary = f"F1 {f1:.2f} (precision {precision:.2f}, recall {recall:.2f}) {self.where()}"
        if f1 >= self.threshold:
            return CheckResult.success(summary + ".", details=details, metrics=metrics)
        return CheckResult.failure(
            f"{summary} < {self.threshold:.2f}", details=details, metrics=metrics
        )


def _unmatched(calls: list[ToolCall], keys: list[str], other: Counter[str]) -> list[ToolCall]:
    """The calls (with their ``keys``) left once each is paired with one of ``other``, in order."""
    left = Counter(other)
    out = []
    for call, key in zip(calls, keys, strict=True):
        if left[key] > 0:
            left[key] -= 1
        else:
            out.append(call)
    return out
