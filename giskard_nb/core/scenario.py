"""Scenario: an ordered sequence of interactions and checks on a shared trace, with a fluent builder."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializeAsAny,
    field_serializer,
    field_validator,
    model_validator,
)

from giskard_nb.core.check import Check
from giskard_nb.core.generic import Parametrizable, Params
from giskard_nb.core.interaction import Trace
from giskard_nb.core.missing import MISSING, Value
from giskard_nb.core.registry import subclass_by_name
from giskard_nb.core.spec import Interact, InteractionSpec
from giskard_nb.core.sync import sync_twin
from giskard_nb.errors import GiskardValidationError

if TYPE_CHECKING:
    from giskard_nb.core.scenario_result import ScenarioResult

__all__ = ["Scenario", "Step"]


class Step(BaseModel):
    """The interactions added since the previous check, then the checks that follow them."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    interacts: list[SerializeAsAny[InteractionSpec]] = Field(default_factory=list)
    checks: list[SerializeAsAny[Check]] = Field(default_factory=list)


class Scenario(Parametrizable[*Params], BaseModel):
    """A named, ordered list of interaction specs and checks run against a shared trace.

    Build it fluently: ``Scenario("name").interact(inputs, outputs).check(SomeCheck(...))``. Each
    ``interact`` after a check opens a new step. Run it with ``await scenario.run()`` (or ``run_sync()``).
    The first failing or erroring step stops the run; later steps are reported as skipped.
    """

    model_config = ConfigDict(defer_build=True, extra="forbid", arbitrary_types_allowed=True)

    name: str = "Unnamed Scenario"
    steps: list[Step] = Field(default_factory=list)
    trace_type: type[Trace] | None = None
    annotations: dict[str, Any] = Field(default_factory=dict)
    target: Value = MISSING
    multiple_runs: int = Field(default=1, ge=1, strict=True)
    tags: list[str] = Field(default_factory=list)

    def __init__(self, name: str | None = None, /, **data: Any):
        if name is not None:
            data["name"] = name
        super().__init__(**data)

    @model_validator(mode="before")
    @classmethod
    def _drop_unknown_keys(cls, data: Any) -> Any:
        """Forward compatibility (as giskard-checks): keys a newer version saved are ignored, with a warning."""
        if isinstance(data, dict):
            unknown = [k for k in data if k not in cls.model_fields]
            if unknown:
                warnings.warn(
                    f"Scenario: ignoring unknown keys {sorted(map(str, unknown))} (saved by a newer version, "
                    "or misspelled)",
                    UserWarning,
                    stacklevel=2,
                )
                data = {k: v for k, v in data.items() if k not in unknown}
        return data

    @field_validator("trace_type", mode="before")
    @classmethod
    def _load_trace_type(cls, value: Any) -> Any:
        if isinstance(value, str):  # a saved scenario: only a Trace class already defined
            found = subclass_by_name(Trace, value)
            if found is None:
                raise GiskardValidationError(
                    f"trace_type {value[:200]!r} is not a Trace subclass defined in this program: "
                    "import the module that defines it first (a saved scenario never imports code)"
                )
            value = found
        if value is not None and not (isinstance(value, type) and issubclass(value, Trace)):
            raise GiskardValidationError(f"trace_type must be a subclass of Trace, got {value!r}")
        return value

    @field_serializer("trace_type")
    def _dump_trace_type(self, value: type[Trace] | None) -> str | None:
        return None if value is None else f"{value.__module__}.{value.__qualname__}"

    @field_validator("tags")
    @classmethod
    def _check_tags(cls, tags: list[str]) -> list[str]:
        for tag in tags:
            if not tag or not tag.strip():
                raise GiskardValidationError(
                    "tags must be non-empty strings such as 'topic:billing'"
                )
        return tags

    # -- fluent builder (each method mutates the scenario and returns it) --------------------------------

    def interact(
        self, inputs: Any = MISSING, outputs: Any = MISSING, metadata=None, **kw
    ) -> Scenario:
        """Add an interaction: static values, callables, generators or an InputGenerator."""
        if inputs is MISSING and "inputs" in kw:
            inputs = kw.pop("inputs")
        if outputs is MISSING and "outputs" in kw:
            outputs = kw.pop("outputs")
        if kw:
            raise GiskardValidationError(f"interact() got unexpected arguments: {', '.join(kw)}")
        if inputs is MISSING:
            raise GiskardValidationError(
                "interact() needs inputs (a value, a callable or a generator)"
            )
        return self.add_interaction(Interact(inputs, outputs, metadata=metadata or {}))

    def add_interaction(self, spec: InteractionSpec) -> Scenario:
        if not isinstance(spec, InteractionSpec):
            raise GiskardValidationError(f"expected an InteractionSpec, got {type(spec).__name__}")
        if not self.steps or self.steps[-1].checks:
            self.steps.append(Step())
        self.steps[-1].interacts.append(spec)
        return self

    def add_interactions(self, *specs: InteractionSpec) -> Scenario:
        for spec in specs:
            self.add_interaction(spec)
        return self

    def check(self, check: Check) -> Scenario:
        """Add a check, evaluated on the trace as it is after the interactions before it."""
        if not isinstance(check, Check):
            raise GiskardValidationError(
                f"expected a Check, got {type(check).__name__}; wrap a function with from_fn(...)"
            )
        if not self.steps:
            self.steps.append(Step())
        self.steps[-1].checks.append(check)
        return self

    def checks(self, *checks: Check) -> Scenario:
        for check in checks:
            self.check(check)
        return self

    def append(self, component: Check | InteractionSpec) -> Scenario:
        if isinstance(component, Check):
            return self.check(component)
        if isinstance(component, InteractionSpec):
            return self.add_interaction(component)
        raise GiskardValidationError(
            f"a scenario holds Checks and InteractionSpecs, not {type(component).__name__}"
        )

    def extend(self, *components: Check | InteractionSpec) -> Scenario:
        for component in components:
            self.append(component)
        return self

    def with_target(self, target: Any) -> Scenario:
        self.target = target
        return self

    def with_annotations(self, annotations: dict[str, Any]) -> Scenario:
        self.annotations = dict(annotations)
        return self

    def with_tags(self, tags: list[str] | str, *more: str) -> Scenario:
        self.tags = self._check_tags([tags, *more] if isinstance(tags, str) else [*tags, *more])
        return self

    # -- running -------------------------------------------------------------------------------------

    async def run(
        self,
        target: Any = MISSING,
        *,
        return_exception: bool = True,
        multiple_runs: int | None = None,
        timeout: float | None = None,
    ) -> ScenarioResult:
        """Run the scenario. ``target`` overrides the scenario's own target.

        Exceptions from the target, input generators or checks become ERROR results naming their phase;
        ``return_exception=False`` re-raises them instead. ``timeout`` (seconds) bounds each run.
        """
        from giskard_nb.core.runner import default_scenario_runner

        return await default_scenario_runner.run(
            self,
            target,
            return_exception=return_exception,
            multiple_runs=multiple_runs,
            timeout=timeout,
        )

    run_sync = sync_twin(run)

    @property
    def checks_count(self) -> int:
        return sum(len(s.checks) for s in self.steps)
