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
        new = object.__new__(type(self))
        object.__setattr__(
            new, "__dict__", {**self.__dict__, "interactions": [*self.interactions, interaction]}
        )
        new.__dict__.pop("last", None)  # a cached computed value, if any
        object.__setattr__(new, "__pydantic_fields_set__", set(self.__pydantic_fields_set__))
        object.__setattr__(new, "__pydantic_extra__", self.__pydantic_extra__)
        private = self.__pydantic_private__
        object.__setattr__(new, "__pydantic_private__", dict(private) if private else private)
        return new

    def _repr_html_(self) -> str:
        from giskard_nb.core.render import trace_html

        return trace_html(self)
