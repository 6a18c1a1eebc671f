"""Interaction (one exchange) and Trace (the immutable history a scenario builds)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, computed_field

from giskard_nb.core.missing import Value

__all__ = ["Interaction", "Trace"]


class Interaction(BaseModel):
    """One exchange with the system under test: ``inputs``, ``outputs`` and free ``metadata``."""

    model_config = ConfigDict(defer_build=True, frozen=True, arbitrary_types_allowed=True)

    inputs: Value = None
    outputs: Value = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class Trace(BaseModel):
    """The immutable, ordered history of interactions of one scenario run.

    Subclass it to add computed fields or helpers and select it with ``Scenario(trace_type=...)``.
    """

    model_config = ConfigDict(defer_build=True, frozen=True, arbitrary_types_allowed=True)

    interactions: list[Interaction] = Field(default_factory=list)
    annotations: dict[str, Any] = Field(default_factory=dict)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def last(self) -> Interaction | None:
        """The most recent interaction, or ``None`` when the trace is empty."""
        return self.interactions[-1] if self.interactions else None

    def with_interaction(self, interaction: Interaction) -> Trace:
        """A new trace (of the same class) with ``interaction`` appended."""
        new = self.model_copy()
        new.__dict__["interactions"] = [*self.interactions, interaction]
        return new

    def _repr_html_(self) -> str:
        from giskard_nb.core.render import trace_html

        return trace_html(self)
