"""Asking a model for a structured answer, one way for the whole package.

``await ask_structured(generator, prompt, OutputType, inputs={...})``:

1. **render** — ``prompt`` is a Jinja template (a string or a ``TemplateReference`` such as
   ``"giskard_nb.hub::failure_category.j2"``) rendered with ``inputs`` in the package's one sandbox
   (``giskard_nb.llm.templates``: limited, immutable, strict about undefined values), or ready chat
   messages (a list of ``{"role", "content"}``), sent as they are;
2. **call** — ``generator.complete(messages, output_type=OutputType, **params)``;
3. **read strictly** — a ``Generator`` reads the reply with ``giskard_nb.llm.parsing.parse_reply`` and
4. **repairs once** (one repair request, then ``LLMResponseError`` with the raw replies).

Any other object with an async ``complete(messages, output_type=...)`` (a test double, a wrapper) gets the
same rule: its ``parsed`` value, a dict validated in strict mode, or its text read by ``parse_reply``;
anything else is ``LLMResponseError`` with the raw reply. The answer is never coerced or guessed.

``require_generator(what, generator)`` is the model to use — the one given, else the default — or a
``ConfigError`` saying how to configure one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from giskard_nb.core.usage import Usage
from giskard_nb.errors import ConfigError
from giskard_nb.llm.errors import LLMResponseError
from giskard_nb.llm.parsing import ReplyParseError, parse_reply
from giskard_nb.llm.templates import TemplateReference, render_messages

__all__ = ["StructuredAnswer", "ask_structured", "read_structured", "require_generator"]

M = TypeVar("M", bound=BaseModel)

_HOW = (
    "configure a generator model: giskard_nb.set_default_generator('openai/gpt-4o-mini') (any "
    "litellm model name), or set the GISKARD_NB_MODEL environment variable, or pass generator="
)
_USAGE_FIELDS = frozenset(Usage.model_fields)


@dataclass(frozen=True)
class StructuredAnswer(Generic[M]):
    """A structured answer: the validated ``value``, the call's ``usage`` and the ``completion``."""

    value: M
    usage: Usage
    completion: Any


async def ask_structured(
    generator: Any,
    prompt: str | TemplateReference | list[dict[str, Any]],
    output_type: type[M],
    *,
    inputs: Mapping[str, Any] | None = None,
    **params: Any,
) -> StructuredAnswer[M]:
    """Render ``prompt``, call ``generator`` and read its reply as ``output_type`` (module docstring).

    ``params`` go to ``complete`` (``temperature=0``...). Raises the generator's errors (``LLMError``),
    ``LLMResponseError`` for an unreadable reply and ``TemplateError`` for a template that cannot render."""
    if isinstance(prompt, list):
        messages = prompt
    else:
        messages = render_messages(prompt, dict(inputs or {}))
    completion = await generator.complete(messages, output_type=output_type, **params)
    usage = _usage(completion)
    try:
        value = read_structured(completion, output_type)
    except LLMResponseError as exc:  # the call was made (and paid for): the error carries its usage
        exc.usage = getattr(exc, "usage", None) or usage
        raise
    return StructuredAnswer(value=value, usage=usage, completion=completion)


def read_structured(completion: Any, output_type: type[M]) -> M:
    """The ``output_type`` instance of a completion, read under the strict rule (module docstring)."""
    parsed = getattr(completion, "parsed", None)
    if isinstance(parsed, output_type):
        return parsed
    raw = getattr(completion, "raw_text", None) or getattr(completion, "text", None)
    try:
        if isinstance(parsed, dict):
            return output_type.model_validate(parsed, strict=True)
        if isinstance(parsed, str):
            raw = parsed
        if isinstance(raw, str):
            return parse_reply(raw, output_type)  # type: ignore[return-value]
    except (ValidationError, ReplyParseError) as exc:
        shown = raw if isinstance(raw, str) else repr(parsed)
        raise LLMResponseError(
            f"the reply does not match {output_type.__name__}: {exc}", raw=shown
        ) from None
    raise LLMResponseError(
        f"the reply holds no {output_type.__name__} (got {type(parsed).__name__} and no text)",
        raw=None,
    )


def require_generator(what: str, generator: Any = None) -> Any:
    """``generator`` or the default one; ``ConfigError`` saying how to configure one if there is none."""
    if generator is not None:
        return generator
    from giskard_nb.llm.settings import get_default_generator

    found = get_default_generator(required=False)
    if found is None:
        raise ConfigError(f"{what} needs a generator model and none is configured: {_HOW}")
    return found


def _usage(completion: Any) -> Usage:
    """The usage a completion reports, as a ``Usage`` (zero when it reports none)."""
    usage = getattr(completion, "usage", None)
    if isinstance(usage, Usage):
        return usage
    if isinstance(usage, Mapping):
        values = {k: v for k, v in usage.items() if k in _USAGE_FIELDS and v is not None}
    else:
        values = {
            k: getattr(usage, k) for k in _USAGE_FIELDS if getattr(usage, k, None) is not None
        }
    try:
        return Usage.model_validate(values)
    except ValidationError:
        return Usage()
