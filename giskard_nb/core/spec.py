"""Interaction specs: how a scenario produces interactions.

``InteractionSpec`` is the registered base (``generate(trace)`` is an async generator that yields
interactions and receives the updated trace back). ``Interact`` is the everyday spec: inputs and outputs as
static values, callables, (a)sync generators or an ``InputGenerator``; outputs left out are produced by the
target bound at run time.

Every call of a target (or of an ``outputs=`` callable) is timed with ``time.perf_counter``: the
interaction it produces carries the wall-clock seconds in ``Interaction.latency_s`` (what the ``Latency``
check reads). Static outputs are not timed (``latency_s`` stays ``None``).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import typing
from abc import abstractmethod
from collections.abc import AsyncGenerator
from contextvars import ContextVar
from typing import Any, ClassVar, NamedTuple

from pydantic import Field, field_validator, model_validator

from giskard_nb.core.agent_call import call_user, timed_call_agent
from giskard_nb.core.inject import Injector, injector
from giskard_nb.core.interaction import Interaction, Trace
from giskard_nb.core.missing import MISSING, Value
from giskard_nb.core.registry import Registered
from giskard_nb.core.tool_adapters import split_reply
from giskard_nb.core.workers import run_in_worker
from giskard_nb.errors import InteractionGenerationError, MissingOutputsError

__all__ = [
    "TARGET_CALL_HOOK",
    "InputGenerator",
    "Interact",
    "InteractionSpec",
    "TargetReply",
    "call_target",
    "timed_call_target",
]

_INPUT_NAMES = ("trace", "input_type")
_OUTPUT_NAMES = ("inputs", "trace")


class InteractionSpec(Registered):
    """Base of interaction specifications. Register subclasses with ``@InteractionSpec.register("kind")``."""

    _family: ClassVar[str] = "interaction spec"
    _registry: ClassVar[dict[str, type[Registered]]] = {}

    #: Specs that produce outputs with the scenario's target set this to True and accept ``target=``.
    binds_target: ClassVar[bool] = False

    @abstractmethod
    def generate(self, trace: Trace) -> AsyncGenerator[Interaction, Trace]:
        """Yield interactions; after each one the updated trace is sent back into the generator."""


class InputGenerator(Registered):
    """Base of input generators (such as ``UserSimulator``) usable as ``Interact(inputs=...)``.

    Calling one returns an async generator yielding inputs, receiving the updated trace after each turn.
    """

    _family: ClassVar[str] = "input generator"
    _registry: ClassVar[dict[str, type[Registered]]] = {}

    @abstractmethod
    def __call__(self, trace: Trace, input_type: type | None = None) -> AsyncGenerator[Any, Trace]:
        """Yield the inputs of successive turns."""


class TargetReply(NamedTuple):
    """What calling a target gave: its ``outputs`` and the seconds the call took (``latency_s``,
    ``None`` when nothing was called: a static value, or a replayed call recorded without a time)."""

    outputs: Any
    latency_s: float | None


#: Set by ``giskard_nb.llm.recording()``: an async ``hook(target, inputs, trace, call)`` returning a
#: ``TargetReply`` that records or replays calls to Python targets (``await call()`` performs the real,
#: timed call and returns its ``TargetReply``).
TARGET_CALL_HOOK: ContextVar[Any] = ContextVar("giskard_nb_target_call_hook", default=None)


async def call_target(target: Any, inputs: Any, trace: Trace, plan: Injector | None = None) -> Any:
    """Produce outputs from a target: a static value or an (a)sync callable of (inputs[, trace]).

    The inputs reach it shaped by the agent convention (``giskard_nb.core.agent_call``): a target
    that takes the conversation gets a string input as the conversation so far, one that takes text
    gets a conversation input as its last user message. A sync callable runs on a worker thread (``giskard_nb.core.workers``), so sync targets run
    concurrently and a timeout abandons a hung one at the deadline. ``timed_call_target`` also gives
    the time the call took."""
    return (await timed_call_target(target, inputs, trace, plan)).outputs


async def timed_call_target(
    target: Any, inputs: Any, trace: Trace, plan: Injector | None = None
) -> TargetReply:
    """``call_target`` with the wall-clock seconds of the call (``None`` for a static value).

    The time is the call itself: for a sync target, measured on its worker thread (no wait for a
    thread); for an async one, from the call until its result, which includes the time the event loop
    spends on other tasks meanwhile (many concurrent scenarios make an async target look slower)."""
    if not callable(target):
        return TargetReply(target, None)
    hook = TARGET_CALL_HOOK.get()
    if hook is not None:
        return await hook(target, inputs, trace, lambda: _call(target, inputs, trace, plan))
    return await _call(target, inputs, trace, plan)


async def _call(target: Any, inputs: Any, trace: Trace, plan: Injector | None) -> TargetReply:
    out, seconds = await timed_call_agent(target, inputs, {"trace": trace}, plan)
    return TargetReply(out, seconds)


def _advance(generator: Any, value: Any) -> tuple[bool, Any]:
    """One step of a sync generator (on a worker thread): (finished, yielded value)."""
    try:
        return False, generator.send(value)
    except StopIteration:
        return True, None


def _close(generator: Any) -> None:
    with contextlib.suppress(
        ValueError
    ):  # still running on an abandoned worker thread: it ends itself
        generator.close()


@InteractionSpec.register("interact")
class Interact(InteractionSpec):
    """Inputs and outputs of one or more interactions.

    ``inputs``: a static value; a callable of (trace) (sync or async); a sync or async generator function
    of (trace) yielding one input per turn; or an ``InputGenerator`` such as ``UserSimulator``.
    ``outputs``: a static value or a callable of (inputs[, trace]), sync or async; it may return a whole
    ``Interaction``. Left out, the scenario's target produces it.
    """

    binds_target: ClassVar[bool] = True

    inputs: Value
    outputs: Value = MISSING
    metadata: dict[str, Any] = Field(default_factory=dict)

    def __init__(self, inputs: Any = MISSING, outputs: Any = MISSING, /, **data: Any):
        if inputs is not MISSING:
            data["inputs"] = inputs
        if outputs is not MISSING:
            data["outputs"] = outputs
        super().__init__(**data)

    @field_validator("inputs", mode="before")
    @classmethod
    def _load_input_generator(cls, value: Any) -> Any:
        """A dumped InputGenerator (a dict whose ``kind`` is a registered input generator) comes back alive."""
        if isinstance(value, dict) and value.get("kind") in InputGenerator.kinds():
            return InputGenerator.model_validate(value)
        return value

    @model_validator(mode="after")
    def _check_signatures(self) -> Interact:
        """Reject a callable whose parameters cannot be filled now, not when the scenario runs."""
        self._plan("inputs")
        self._plan("outputs")
        return self

    def _plan(self, which: str) -> Injector | None:
        value = self.inputs if which == "inputs" else self.outputs
        if not _is_plain_callable(value):
            return None
        return injector(value, _INPUT_NAMES if which == "inputs" else _OUTPUT_NAMES)

    async def generate(
        self, trace: Trace, *, target: Any = MISSING
    ) -> AsyncGenerator[Interaction, Trace]:
        outputs = self.outputs if self.outputs is not MISSING else target
        if outputs is MISSING:
            raise MissingOutputsError(
                "Interaction outputs are not provided and no target was bound: give outputs=..., or "
                "a target with Scenario(target=...), Suite(target=...) or run(target=...)",
                phase="target",
                partial_trace=trace,
            )
        out_plan = self._plan("outputs") if outputs is self.outputs else None
        source = self._input_stream(trace, outputs)
        sent: Trace | None = None
        try:
            while True:
                try:
                    inputs = await source.asend(sent)
                except StopAsyncIteration:
                    return
                except Exception as exc:
                    raise InteractionGenerationError(
                        f"generating inputs raised {type(exc).__name__}: {exc}",
                        phase="input_generation",
                        partial_trace=trace,
                    ) from exc
                try:
                    reply = await timed_call_target(outputs, inputs, trace, out_plan)
                except Exception as exc:
                    raise InteractionGenerationError(
                        f"the target raised {type(exc).__name__}: {exc}",
                        phase="target",
                        partial_trace=trace,
                    ) from exc
                trace = sent = yield self._interaction(inputs, reply)
        finally:
            await source.aclose()

    def _interaction(self, inputs: Any, reply: TargetReply) -> Interaction:
        """The interaction of one call: an ``Interaction`` the outputs returned keeps its own
        ``latency_s`` if it set one (and gets this spec's metadata under its own)."""
        out = reply.outputs
        if not isinstance(out, Interaction):
            split = None if isinstance(out, str) or out is None else split_reply(out)
            if split is not None:  # a reply carrying tool calls: its text, and the calls
                return Interaction(
                    inputs=inputs,
                    outputs=split[0],
                    tool_calls=split[1],
                    metadata=dict(self.metadata),
                    latency_s=reply.latency_s,
                )
            return Interaction(
                inputs=inputs, outputs=out, metadata=dict(self.metadata), latency_s=reply.latency_s
            )
        update: dict[str, Any] = {}
        if self.metadata:
            update["metadata"] = {**self.metadata, **out.metadata}
        if out.latency_s is None and reply.latency_s is not None:
            update["latency_s"] = reply.latency_s
        return out.model_copy(update=update) if update else out

    async def _input_stream(self, trace: Trace, target: Any = None) -> AsyncGenerator[Any, Trace]:
        """Every kind of ``inputs`` as one stream: yields an input, receives the updated trace.

        ``input_type`` (the annotation of ``target``'s first parameter, if any) is forwarded to input
        generators and to ``inputs`` callables that take ``input_type``, as in giskard-checks.
        """
        if isinstance(self.inputs, InputGenerator):
            produced: Any = self.inputs(trace, _input_annotation(target))
        elif (plan := self._plan("inputs")) is None:
            yield self.inputs
            return
        else:
            produced = await call_user(
                plan, {"trace": trace, "input_type": _input_annotation(target)}
            )
        if inspect.isasyncgen(produced):
            try:
                value = await anext(produced)
                while True:
                    trace = yield value
                    value = await produced.asend(trace)
            except StopAsyncIteration:
                return
            finally:
                await produced.aclose()
        elif inspect.isgenerator(produced):  # each step on a worker thread, like any sync code
            try:
                done, value = await run_in_worker(_advance, produced, None)
                while not done:
                    trace = yield value
                    done, value = await run_in_worker(_advance, produced, trace)
            finally:
                _close(produced)
        else:
            yield produced


def _is_plain_callable(value: Any) -> bool:
    return callable(value) and not isinstance(value, type | InputGenerator | Registered)


def trace_type_for(target: Any) -> type[Trace] | None:
    """The ``Trace`` subclass a callable target annotates one of its parameters with (giskard-checks infers
    the trace type of a run this way), else ``None``."""
    if target is MISSING or not callable(target) or isinstance(target, type):
        return None
    try:
        return _trace_hint(target)
    except TypeError:  # an unhashable callable object: not cached
        return _trace_hint.__wrapped__(target)


@functools.lru_cache(maxsize=256)
def _trace_hint(target: Any) -> type[Trace] | None:
    try:
        hints = typing.get_type_hints(target)
    except Exception:  # unreadable annotations: no inference
        return None
    hints.pop("return", None)
    for hint in hints.values():
        if isinstance(hint, type) and issubclass(hint, Trace) and hint is not Trace:
            return hint
    return None


def _input_annotation(target: Any) -> type | None:
    """The annotation of a callable target's first parameter (``None`` if absent or unreadable)."""
    if not callable(target) or isinstance(target, type):
        return None
    try:
        params = list(inspect.signature(target).parameters.values())
        hints = typing.get_type_hints(target)
    except (TypeError, ValueError, NameError, AttributeError):
        return None
    if not params:
        return None
    hint = hints.get(params[0].name)
    return hint if hint is not None else None
