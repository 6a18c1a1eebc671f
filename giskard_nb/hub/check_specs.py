"""A test case's check spec (``{"identifier": ..., "params": {...}}``) and a core ``Check``, both ways:
``build_check(spec)`` makes the check a spec describes, ``check_to_spec(check)`` the spec of a check;
``build_check(check_to_spec(check))`` is the same check (an unnamed one comes back named after its kind,
the label it had anyway).

From a spec to a check: an identifier is, in this order: a project check (``hub.checks.create``) whose ``type`` and preset
``params`` are used, the test case's params overriding them; one of the Hub's built-in identifiers
(``BUILTIN_CHECKS``: correctness, conformity, groundedness, semantic_similarity, string_match,
metadata); or any registered core check kind (``equals``, ``regex_matching``, ``json_valid``...). The
check is then built with ``Check.model_validate({"kind": kind, "name": identifier, **params})``, so bad
params are rejected when the test case is created, not when it runs.

Params from data are not configuration: a test case's params (from a dataset, an upload or a database
row) that name an endpoint or a credential (``generator.api_base``, ``api_key``, headers...) are refused
(``data_params.refuse_data_configuration``), and references in them (``${VAR}``, ``${secret:<id>}``) are
never resolved. A project check's params (``hub.checks.create``: the user's explicit configuration) may
carry a judge's endpoint and key; their references are resolved when the check is built.

From a check to a spec: the identifier is the check's registered kind, the params its fields that differ
from their defaults (JSON data; secrets masked), its name kept unless it is the kind itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from giskard_nb.core.check import Check
from giskard_nb.errors import GiskardNBError, GiskardValidationError, UnknownKindError
from giskard_nb.hub.data_params import refuse_data_configuration, resolve_sealed_digests
from giskard_nb.hub.models.base import format_validation_error
from giskard_nb.hub.models.check import HubCheck
from giskard_nb.hub.models.dataset import CheckSpec
from giskard_nb.hub.secrets import resolve_secret_params

__all__ = [
    "BUILTIN_CHECKS",
    "BuiltinCheck",
    "build_check",
    "check_to_spec",
    "known_identifiers",
    "resolve_kind",
]


@dataclass(frozen=True)
class BuiltinCheck:
    identifier: str
    kind: str
    evaluates_with: str
    description: str


#: The Hub's built-in check identifiers and the core check kind each one runs.
BUILTIN_CHECKS: dict[str, BuiltinCheck] = {
    b.identifier: b
    for b in (
        BuiltinCheck(
            "correctness",
            "correctness",
            "LLM judge",
            "Is the answer factually correct relative to the expected output (param: reference)?",
        ),
        BuiltinCheck(
            "conformity",
            "conformity",
            "LLM judge",
            "Does the answer follow the given format, tone or style rules (params: rule or rules)?",
        ),
        BuiltinCheck(
            "groundedness",
            "groundedness",
            "LLM judge",
            "Is the answer grounded in the given context, with no hallucination (param: context)?",
        ),
        BuiltinCheck(
            "semantic_similarity",
            "semantic_similarity",
            "embeddings",
            "Is the answer semantically close to the reference (params: reference_text, threshold)?",
        ),
        BuiltinCheck(
            "string_match",
            "string_matching",
            "rule",
            "Does the answer contain the keyword (param: keyword)?",
        ),
        BuiltinCheck(
            "metadata",
            "metadata",
            "rule",
            "Do JSONPath values of the answer's metadata meet the rules (param: json_path_rules)?",
        ),
    )
}


def resolve_kind(type_or_identifier: str) -> str:
    """The registered check kind for a built-in identifier or a kind name."""
    builtin = BUILTIN_CHECKS.get(type_or_identifier)
    kind = builtin.kind if builtin else type_or_identifier
    if kind in Check.kinds():  # lazy built-in kinds included (core.registry.LAZY_KINDS)
        return kind
    if builtin is not None:
        raise GiskardValidationError(
            f"check {type_or_identifier!r} runs the check kind {kind!r} ({builtin.evaluates_with}), "
            "which is not available in this installation: it is provided by giskard_nb.checks "
            "(LLM judges and embeddings). Use a rule check meanwhile."
        )
    raise UnknownKindError("check", kind, Check.kinds())


def known_identifiers(custom: Mapping[str, HubCheck] | None = None) -> list[str]:
    """Every identifier a test case may use: project checks, built-ins, then core kinds."""
    return [*sorted(custom or {}), *BUILTIN_CHECKS, *sorted(Check.kinds() - set(BUILTIN_CHECKS))]


def build_check(
    spec: CheckSpec | Mapping[str, Any], custom: Mapping[str, HubCheck] | None = None
) -> Check:
    """The core ``Check`` a spec describes (``GiskardValidationError`` naming the identifier if not)."""
    if not isinstance(spec, CheckSpec):
        try:
            spec = CheckSpec.model_validate(spec)
        except ValidationError as exc:
            raise GiskardValidationError(
                f"invalid check spec {dict(spec)!r:.200}: {format_validation_error(exc)}"
            ) from None
    identifier = spec.identifier
    custom = custom or {}
    refuse_data_configuration(spec.params, what=f"check {identifier!r}")
    if identifier in custom:
        project_check = custom[identifier]
        configured = resolve_secret_params(project_check.params, what=f"check {identifier!r}")
        source, params = project_check.type, {**configured, **resolve_sealed_digests(spec.params)}
    elif identifier in BUILTIN_CHECKS or identifier in Check.kinds():
        source, params = identifier, resolve_sealed_digests(spec.params)
    else:
        raise GiskardValidationError(
            f"unknown check identifier {identifier!r}. Known identifiers: "
            f"{', '.join(known_identifiers(custom))}. Create a project check with "
            "hub.checks.create(project_id, identifier, name, params={'type': ...})."
        )
    try:
        kind = resolve_kind(source)
    except UnknownKindError:
        raise GiskardValidationError(
            f"check {identifier!r} has type {source!r}, which is neither a built-in identifier "
            f"({', '.join(BUILTIN_CHECKS)}) nor a registered check kind"
        ) from None
    return _instantiate(identifier, kind, params)


def check_to_spec(check: Check) -> CheckSpec:
    """The spec of a core check: its kind as identifier, its non-default fields as params.

    ``GiskardValidationError`` when the check cannot be rebuilt from data: an unregistered class, or a
    Python function among its fields."""
    if check.kind is None:
        raise GiskardValidationError(
            f"the check {check.label!r} is not registered: register its class with "
            "@Check.register('kind') so the Hub can rebuild it"
        )
    try:
        params = check.model_dump(mode="json", exclude={"kind"}, exclude_defaults=True)
    except (ValueError, GiskardNBError) as exc:  # a Python function inside the check
        raise GiskardValidationError(
            f"the check {check.label!r} cannot be saved as a Hub test case: {exc}"
        ) from None
    if params.get("name") == check.kind:
        del params["name"]  # build_check names a check after its identifier
    return CheckSpec(identifier=check.kind, params=params)


def _instantiate(identifier: str, kind: str, params: dict[str, Any]) -> Check:
    params = {"name": identifier, **params}
    cls = Check.registered_class(kind)
    fields = cls.model_fields
    rules = params.get("rules")
    if isinstance(rules, list) and "rules" not in fields and "rule" in fields:
        # The Hub's conformity takes a list of rules; a one-rule check per rule, all of them required.
        from giskard_nb.checks.composition import AllOf

        rest = {k: v for k, v in params.items() if k not in ("rules", "name")}
        checks = [
            _validate(identifier, {"kind": kind, "name": f"{identifier}[{i}]", "rule": r, **rest})
            for i, r in enumerate(rules)
        ]
        return AllOf(checks=checks, name=identifier)
    return _validate(identifier, {"kind": kind, **params})


def _validate(identifier: str, data: dict[str, Any]) -> Check:
    try:
        return Check.model_validate(data)
    except ValidationError as exc:
        raise GiskardValidationError(
            f"check {identifier!r} (kind {data['kind']!r}): {format_validation_error(exc)}"
        ) from None
    except GiskardValidationError as exc:
        raise GiskardValidationError(
            f"check {identifier!r} (kind {data['kind']!r}): {exc}"
        ) from None
