"""FakeModel: an in-process scripted or function-backed chat model (no server, no litellm call)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field, PrivateAttr, model_validator

from giskard_nb.errors import GiskardValidationError
from giskard_nb.llm.generator import Generator

__all__ = ["FakeModel"]


@Generator.register("fake_model")
class FakeModel(Generator):
    """A ``Generator`` answering from Python: ``FakeModel(replies=[...])`` serves the replies in order
    (the last one repeats when ``repeat_last=True``, otherwise running out is an error), and
    ``FakeModel(fn=lambda messages: ...)`` computes each reply. A reply may be a string, a dict or a
    pydantic model (sent as JSON). ``calls`` holds the messages of every request.

    It overrides only ``_call_model``, so it goes through the same structured-reply reader, repair and
    usage accounting as a real model, and works wherever a generator does (LLM checks, the scan judge,
    the simulators). Not cached by default, so scripted replies are never replayed from the cache.
    Kind ``fake_model``: a scripted one saves and loads with its replies (``fn`` is not saved)."""

    model: str = "fake/in-process"
    cache: bool | None = False
    replies: list[Any] = Field(default_factory=list)
    fn: Callable[[list[dict[str, Any]]], Any] | None = Field(default=None, exclude=True)
    repeat_last: bool = False
    _calls: list[list[dict[str, Any]]] = PrivateAttr(default_factory=list)

    @model_validator(mode="after")
    def _one_source(self) -> FakeModel:
        if bool(self.replies) == (self.fn is not None):
            raise GiskardValidationError("FakeModel takes exactly one of replies=[...] or fn=")
        return self

    @property
    def calls(self) -> list[list[dict[str, Any]]]:
        return self._calls

    async def _call_model(self, messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
        index = len(self._calls)
        self._calls.append([dict(m) for m in messages])
        if self.fn is not None:
            reply = self.fn(messages)
        elif index < len(self.replies):
            reply = self.replies[index]
        elif self.repeat_last:
            reply = self.replies[-1]
        else:
            raise GiskardValidationError(
                f"FakeModel ran out of replies: request {index + 1} but only {len(self.replies)} "
                "scripted (add replies or pass repeat_last=True)"
            )
        if isinstance(reply, BaseModel):
            return reply.model_dump_json()
        if isinstance(reply, dict | list):
            return json.dumps(reply)
        if not isinstance(reply, str):
            raise GiskardValidationError(
                f"a FakeModel reply must be a str, dict or pydantic model, got {type(reply).__name__}"
            )
        return reply
