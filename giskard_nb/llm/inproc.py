"""The in-process seam: calling a generator's own ``_call_model`` instead of litellm.

A generator subclass serves completions by overriding ``_call_model``, in either spelling:

- giskard-nb's: ``_call_model(messages: list[dict], params: dict) -> str | Completion`` (``params`` holds
  ``output_type`` when a structured reply is expected);
- giskard-agents': ``_call_model(messages: Sequence[ChatMessage], params: GenerationParams,
  metadata: dict | None = None) -> CompletionResponse`` (every ``BaseGenerator`` subclass, and any
  ``Generator`` subclass whose override takes ``metadata``); ``params.response_format`` is the pydantic
  class of a structured reply.

Either way the reply goes through the generator's strict reader, repair request, cache, recording and usage
accounting (``Generator.complete``). ``call_metadata`` carries the ``metadata=`` of the current
``complete`` call to the override.
"""

from __future__ import annotations

import inspect
import weakref
from contextvars import ContextVar
from typing import Any

from pydantic import BaseModel

from giskard_nb.core.usage import Usage
from giskard_nb.errors import GiskardValidationError
from giskard_nb.llm.completion import Completion
from giskard_nb.llm.types import CompletionResponse, GenerationParams, from_dicts

__all__ = ["call_in_process", "call_metadata", "typed_seam"]

#: The ``metadata=`` of the ``complete`` call in progress (None outside one, or when none was given).
call_metadata: ContextVar[dict[str, Any] | None] = ContextVar(
    "giskard_nb_call_metadata", default=None
)
_TYPED: weakref.WeakKeyDictionary[type, bool] = weakref.WeakKeyDictionary()


def typed_seam(cls: type) -> bool:
    """Whether ``cls._call_model`` takes typed messages and ``GenerationParams`` (the giskard-agents
    spelling): always for a ``BaseGenerator``, else when the override has a ``metadata`` parameter."""
    found = _TYPED.get(cls)
    if found is None:
        if getattr(cls, "_typed_seam", False):
            found = True
        else:
            try:
                found = "metadata" in inspect.signature(cls._call_model).parameters
            except (TypeError, ValueError):
                found = False
        _TYPED[cls] = found
    return found


async def call_in_process(
    generator: Any,
    msgs: list[dict[str, Any]],
    sent: dict[str, Any],
    output_type: type[BaseModel] | None,
) -> tuple[str, Usage, bool]:
    """One request served by ``generator._call_model``: the reply text, its usage, whether its cost is
    known (always, for an in-process model: it costs nothing unless its ``Completion`` says so)."""
    name = type(generator).__name__
    if typed_seam(type(generator)):
        params = GenerationParams.model_validate(sent)
        if output_type is not None:
            params = params.merged({"response_format": output_type})
        reply = await generator._call_model(from_dicts(msgs), params, call_metadata.get())
    else:
        params_dict = dict(sent)
        if output_type is not None:
            params_dict["output_type"] = output_type
        reply = await generator._call_model(msgs, params_dict)
    if isinstance(reply, str):
        return reply, Usage(llm_calls=1), True
    if isinstance(reply, CompletionResponse):
        return reply.text, reply.call_usage(), True
    if isinstance(reply, Completion):
        return reply.raw_text or reply.text, reply.usage, reply.cost_known
    raise GiskardValidationError(
        f"{name}._call_model must return a str or a Completion (or a "
        f"giskard_nb.llm.types.CompletionResponse), got {type(reply).__name__}"
    )
