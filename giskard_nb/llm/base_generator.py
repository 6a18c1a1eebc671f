"""``BaseGenerator``: a model served in-process, written in the giskard-agents spelling.

::

    class MockJudge(BaseGenerator):
        passed: bool

        async def _call_model(self, messages, params, metadata=None) -> CompletionResponse:
            verdict = json.dumps({"passed": self.passed, "reason": "..."})
            return CompletionResponse(choices=[Choice(message=AssistantMessage(content=verdict))])

``messages`` are typed ``ChatMessage``s, ``params`` a ``GenerationParams`` (its ``response_format`` is the
pydantic class of a structured reply), ``metadata`` what the caller passed to ``complete``. A
``BaseGenerator`` is a ``Generator`` (the one seam): it goes wherever a generator does (LLM checks,
``LLMGenerator``, ``UserSimulator``, the scan judge and attacker, dataset generation), its replies go
through the same strict reader and repair request, and the ``usage`` its responses carry is counted
(``track_usage``, the checks' usage metrics). It is never cached (``cache=False``), so a double's answer
is never replayed from an earlier test; ``model`` is a label (default ``inproc/<class name>``).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, Field, field_serializer, field_validator, model_validator

from giskard_nb.errors import GiskardValidationError
from giskard_nb.llm.completion import Completion, Messages, without_secrets
from giskard_nb.llm.generator import Generator
from giskard_nb.llm.inproc import call_metadata
from giskard_nb.llm.types import ChatMessage, CompletionResponse, GenerationParams

__all__ = ["BaseGenerator", "GenerationParams"]

#: Modules between a ``class X(BaseGenerator)`` statement and ``__pydantic_init_subclass__``.
_MACHINERY = ("pydantic", "abc", "typing", __name__)


class BaseGenerator(Generator):
    """Base of in-process models written in the giskard-agents spelling: override
    ``async _call_model(messages, params, metadata=None) -> CompletionResponse`` (module docstring).

    ``params`` (a ``GenerationParams``) are the defaults of every call; ``complete(messages, params,
    metadata)`` merges per-call ones on top; ``with_params(**kw)`` returns a copy with some changed.
    A subclass joins the registry with ``@Generator.register("kind")`` to save and load by kind."""

    _typed_seam: ClassVar[bool] = True

    model: str = ""
    cache: bool | None = False
    params: GenerationParams = Field(default_factory=GenerationParams)  # type: ignore[assignment]

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        """Build a subclass where it is written: its field annotations (``list[Sequence[ChatMessage]]``)
        are read with the names visible there, also in a function body, a notebook cell or an
        ``exec``'d namespace, where a build deferred to the first use cannot see them."""
        super().__pydantic_init_subclass__(**kwargs)
        frame = sys._getframe(1)
        while frame is not None and frame.f_globals.get("__name__", "").startswith(_MACHINERY):
            frame = frame.f_back
        if frame is not None:
            cls.model_rebuild(
                raise_errors=False, _types_namespace={**frame.f_globals, **frame.f_locals}
            )

    def __init__(self, /, **data: Any) -> None:
        # Generator.__init__ moves unknown keywords into litellm parameters: a BaseGenerator has none,
        # so an unknown keyword is an error naming it (extra="forbid").
        super(Generator, self).__init__(**data)

    @model_validator(mode="before")
    @classmethod
    def _default_label(cls, data: Any) -> Any:
        if isinstance(data, dict) and not data.get("model"):
            data = {**data, "model": f"inproc/{cls.__name__}"}
        return data

    @field_validator("params", mode="before")
    @classmethod
    def _check_params(cls, value: Any) -> Any:
        if value is None:
            return GenerationParams()
        if not isinstance(value, GenerationParams | Mapping):
            raise GiskardValidationError(
                f"params must be a GenerationParams (or a dict of its fields), got "
                f"{type(value).__name__}"
            )
        return value

    @field_serializer("params")
    def _dump_params(self, value: GenerationParams) -> dict[str, Any]:
        sent = {k: v for k, v in value.sent().items() if not isinstance(v, type)}
        return without_secrets(sent)

    def __repr_args__(self):
        for name, value in super(Generator, self).__repr_args__():
            yield name, (without_secrets(value.sent(), mask="***") if name == "params" else value)

    def __getstate__(self) -> dict[Any, Any]:
        state = super(Generator, self).__getstate__()
        fields = dict(state["__dict__"])
        kept = without_secrets(fields["params"].sent())
        fields["params"] = GenerationParams.model_validate(kept)
        return {**state, "__dict__": fields}

    def call_params(self, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
        """The parameters a call sends: the fields ``temperature``/``max_tokens`` when set, then
        ``params`` (explicitly set keys), then per-call overrides (``tools`` concatenate)."""
        base = {
            k: getattr(self, k)
            for k in ("temperature", "max_tokens")
            if getattr(self, k) is not None
        }
        return GenerationParams.model_validate(base).merged(self.params).merged(overrides).sent()

    def with_params(self, **params: Any) -> BaseGenerator:
        """A copy whose ``params`` have some keys changed (other fields of the model may be given too)."""
        fields = {
            k: params.pop(k)
            for k in list(params)
            if k in type(self).model_fields and k not in GenerationParams.model_fields
        }
        if "params" in fields:
            raise GiskardValidationError("with_params takes the parameters themselves, not params=")
        data = {name: getattr(self, name) for name in self.model_fields_set}
        return type(self)(**{**data, **fields, "params": self.params.merged(params)})

    async def complete(  # type: ignore[override]
        self,
        messages: Messages | Sequence[ChatMessage],
        params: GenerationParams | Mapping[str, Any] | None = None,
        metadata: dict[str, Any] | None = None,
        *,
        output_type: type[BaseModel] | None = None,
        cache: bool | None = None,
        **kwargs: Any,
    ) -> Completion:
        """Ask the model. ``params`` are merged on top of the generator's; a ``response_format`` that
        is a pydantic class means ``output_type``; ``metadata`` reaches ``_call_model`` as it is."""
        if params is not None and not isinstance(params, GenerationParams | Mapping):
            raise GiskardValidationError(
                f"params must be a GenerationParams or a dict, got {type(params).__name__}"
            )
        overrides = GenerationParams.model_validate({}).merged(params).sent() | kwargs
        wanted = overrides.pop("response_format", None)
        if wanted is not None:
            if not (isinstance(wanted, type) and issubclass(wanted, BaseModel)):
                raise GiskardValidationError(
                    "response_format must be a pydantic model class (the structured reply's type), "
                    f"got {wanted!r:.100}"
                )
            output_type = output_type or wanted
        if isinstance(messages, Sequence) and not isinstance(messages, str):
            messages = [m.to_dict() if isinstance(m, ChatMessage) else m for m in messages]
        token = call_metadata.set(metadata)
        try:
            return await super().complete(
                messages, output_type=output_type, cache=cache, **overrides
            )
        finally:
            call_metadata.reset(token)

    async def batch_complete(
        self,
        messages: Sequence[Messages | Sequence[ChatMessage]],
        params: GenerationParams | Mapping[str, Any] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> list[Completion]:
        """``complete`` for each conversation of ``messages``, concurrently, in order."""
        return list(await asyncio.gather(*(self.complete(m, params, metadata) for m in messages)))

    async def _call_model(
        self,
        messages: Sequence[ChatMessage],
        params: GenerationParams,
        metadata: dict[str, Any] | None = None,
    ) -> CompletionResponse:
        raise NotImplementedError(
            f"{type(self).__name__} must override async _call_model(messages, params, metadata=None) "
            "and return a CompletionResponse"
        )
