"""Saving what the ScenarioBuilder and the Playground made as a Hub test case.

A scenario becomes a test case: its text turns become the conversation (user inputs, and the fixed
or recorded agent outputs as assistant messages), its checks become check specs (each check's kind
and the parameters that differ from the defaults), its tags and name are kept.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from giskard_nb.core.missing import MISSING
from giskard_nb.core.scenario import Scenario
from giskard_nb.errors import GiskardNBError, GiskardValidationError

__all__ = ["save_to_hub", "scenario_to_test_case"]


def _text(value: Any, what: str) -> str:
    if isinstance(value, str):
        return value
    if callable(value):
        raise GiskardValidationError(
            f"this scenario's {what} is a Python function: only text (or JSON data) turns can be "
            "saved as a Hub test case"
        )
    return json.dumps(value, ensure_ascii=False)


def scenario_to_test_case(scenario: Scenario) -> dict[str, Any]:
    """The ``hub.test_cases.create`` arguments (messages, checks, tags, name) of a scenario."""
    messages: list[dict[str, str]] = []
    checks: list[dict[str, Any]] = []
    for step in scenario.steps:
        for spec in step.interacts:
            inputs = getattr(spec, "inputs", MISSING)
            if inputs is MISSING:
                raise GiskardValidationError(
                    f"cannot save a {type(spec).__name__} interaction as a Hub test case: only "
                    "interact(inputs, outputs) turns can be saved"
                )
            messages.append({"role": "user", "content": _text(inputs, "input")})
            outputs = getattr(spec, "outputs", MISSING)
            if outputs is not MISSING:
                messages.append({"role": "assistant", "content": _text(outputs, "output")})
        for check in step.checks:
            if check.kind is None:
                raise GiskardValidationError(
                    f"the check {check.label!r} is not registered: register its class with "
                    "@Check.register('kind') so the Hub can rebuild it"
                )
            try:
                params = check.model_dump(
                    mode="json", exclude={"kind", "name", "description"}, exclude_defaults=True
                )
            except (ValueError, GiskardNBError) as exc:  # a Python function inside the check
                raise GiskardValidationError(
                    f"the check {check.label!r} cannot be saved as a Hub test case: {exc}"
                ) from None
            checks.append({"identifier": check.kind, "params": params})
    if not messages:
        raise GiskardValidationError("the scenario has no interaction to save")
    return {
        "messages": messages,
        "checks": checks,
        "tags": list(scenario.tags),
        "name": scenario.name,
    }


def save_to_hub(hub: Any, dataset_id: str) -> Callable[[Scenario], Any]:
    """An ``on_save`` for ScenarioBuilder / Playground that adds the scenario to a Hub dataset as a
    test case and returns the stored ``HubTestCase``."""
    hub.datasets.retrieve(dataset_id)  # a clear NotFoundError now rather than on the first save

    def save(scenario: Scenario) -> Any:
        return hub.test_cases.create(dataset_id, **scenario_to_test_case(scenario))

    return save
