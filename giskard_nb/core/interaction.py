"""Interaction (one exchange) and Trace (the immutable history a scenario builds)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, computed_field

from giskard_nb.core.generic import Parametrizable
from giskard_nb.core.missing import MISSING, Value
from giskard_nb.core.tools import ToolCall
from giskard_nb.errors import GiskardValidationError

__all__ = ["Interaction", "Trace"]


class Interaction(Parametrizable, BaseModel):
    """One exchange with the system under test: ``inputs``, ``outputs``, free ``metadata`` and the
    ``tool_calls`` the agent made during it (``giskard_nb.core.tools.ToolCall``; a target that returns
    a reply carrying tool calls — an OpenAI or Anthropic message, a chat completion, a Responses
    output, ``{"text": ..., "tool_calls": [...]}`` — has its text as ``outputs`` and its calls here).

    ``latency_s`` is the wall-clock time, in seconds, that producing ``outputs`` took when a scenario
    called a target or an ``outputs=`` callable for it (``None`` for static outputs and for interactions
    built by hand, unless given). ``Interaction[InputType, OutputType]`` is accepted for typing (it
    returns ``Interaction``).
    """

    model_config = ConfigDict(defer_build=True, frozen=True, arbitrary_types_allowed=True)

    inputs: Value = None
    outputs: Value = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    tool_calls: list[ToolCall] = Field(default_factory=list)
    latency_s: float | None = Field(
        default=None,
        ge=0,
        allow_inf_nan=False,
        description="Seconds the call that produced the outputs took (None when nothing was called).",
    )

    def __eq__(self, other: object) -> bool:
        """Equal when the class, ``inputs``, ``outputs`` and ``metadata`` are: ``latency_s`` is timing
        metadata, so a timed interaction equals the same exchange built by hand (as in giskard-checks,
        whose ``Interaction`` has no timing field)."""
        if not isinstance(other, Interaction):
            return NotImplemented
        return type(self) is type(other) and _compared(self) == _compared(other)

    def __hash__(self) -> int:
        return hash((type(self), *(_freeze(v) for v in _compared(self))))


def _compared(interaction: Interaction) -> tuple[Any, ...]:
    """What equality reads: every field except ``latency_s`` (extra fields included)."""
    fields = {k: v for k, v in interaction.__dict__.items() if k != "latency_s"}
    return (fields, interaction.__pydantic_extra__)


def _freeze(value: Any) -> Any:
    """A hashable stand-in for dicts and lists (an unhashable leaf still raises ``TypeError``)."""
    if isinstance(value, dict):
        return frozenset((k, _freeze(v)) for k, v in value.items())  # order-free, like dict ==
    if isinstance(value, list | tuple | set | frozenset):
        items = (_freeze(v) for v in value)
        return frozenset(items) if isinstance(value, set | frozenset) else tuple(items)
    return value


def _at_turn(call: ToolCall, turn: int) -> ToolCall:
    """``call.model_copy(update={"turn": turn})`` without its cost (the checks read every trace's
    calls: this runs once per call per check): the fields are already valid, only ``turn`` changes."""
    new = object.__new__(ToolCall)
    object.__setattr__(new, "__dict__", {**call.__dict__, "turn": turn})
    object.__setattr__(new, "__pydantic_fields_set__", call.__pydantic_fields_set__ | {"turn"})
    object.__setattr__(new, "__pydantic_extra__", call.__pydantic_extra__)
    object.__setattr__(new, "__pydantic_private__", call.__pydantic_private__)
    return new


class Trace(Parametrizable, BaseModel):
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

    @computed_field  # type: ignore[prop-decorator]
    @property
    def tool_calls(self) -> list[ToolCall]:
        """Every tool call of the conversation, in order, each with ``turn`` set to the index of
        its interaction."""
        return [
            call if call.turn == i else _at_turn(call, i)
            for i, interaction in enumerate(self.interactions)
            for call in interaction.tool_calls
        ]

    @classmethod
    async def from_interactions(cls, *items: Any, target: Any = MISSING) -> Trace:
        """A trace of this class built from interactions and/or interaction specs (resolved in order)."""
        return await cls().with_interactions(*items, target=target)

    async def with_interaction(self, item: Any, *, target: Any = MISSING) -> Trace:
        """A new trace with ``item`` appended: an ``Interaction``, or an ``InteractionSpec`` (such as an
        ``Interact``) resolved against this trace (``target`` is passed to specs that call one).

        The synchronous twin for a ready ``Interaction`` is ``appended``.
        """
        if isinstance(item, Interaction):
            return self.appended(item)
        from giskard_nb.core.runner import apply_spec
        from giskard_nb.core.spec import InteractionSpec

        if not isinstance(item, InteractionSpec):
            raise GiskardValidationError(
                f"with_interaction takes an Interaction or an InteractionSpec (e.g. Interact(...)), "
                f"got {type(item).__name__}"
            )
        return await apply_spec(item, self, target)

    async def with_interactions(self, *items: Any, target: Any = MISSING) -> Trace:
        """A new trace with each interaction or spec of ``items`` appended in order."""
        trace = self
        for item in items:
            trace = await trace.with_interaction(item, target=target)
        return trace

    def appended(self, interaction: Interaction) -> Trace:
        """A new trace (of the same class) with ``interaction`` appended (synchronous, no validation)."""
        new = object.__new__(type(self))
        object.__setattr__(
            new, "__dict__", {**self.__dict__, "interactions": [*self.interactions, interaction]}
        )
        new.__dict__.pop("last", None)  # cached computed values, if any
        new.__dict__.pop("tool_calls", None)
        object.__setattr__(new, "__pydantic_fields_set__", set(self.__pydantic_fields_set__))
        object.__setattr__(new, "__pydantic_extra__", self.__pydantic_extra__)
        private = self.__pydantic_private__
        object.__setattr__(new, "__pydantic_private__", dict(private) if private else private)
        return new

    def _repr_html_(self) -> str:
        from giskard_nb.core.render import trace_html

        return trace_html(self)
