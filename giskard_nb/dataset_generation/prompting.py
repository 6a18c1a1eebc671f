"""The generator model behind generation and topic naming: finding it, prompting it, counting its usage.

Prompts are Jinja templates in ``giskard_nb/dataset_generation/prompts`` rendered in a **sandbox** (document
text and user descriptions are data and may contain template syntax; the sandbox never evaluates it
as code). Every call asks for a pydantic ``output_type`` and validates what comes back.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from giskard_nb.core.usage import Usage
from giskard_nb.errors import ConfigError, LLMError

__all__ = ["ask", "configured_generator", "render", "require_generator"]

M = TypeVar("M", bound=BaseModel)
PROMPTS = Path(__file__).with_name("prompts")

_HOW = (
    "configure a generator model: giskard_nb.set_default_generator('openai/gpt-4o-mini') (any "
    "litellm model name), or set the GISKARD_NB_MODEL environment variable, or pass generator="
)


def configured_generator() -> Any:
    """The default generator model, or ``None`` when none is configured."""
    from giskard_nb.llm import get_default_generator

    return get_default_generator(required=False)


def require_generator(what: str, generator: Any = None) -> Any:
    """``generator`` or the default one; ``ConfigError`` saying how to configure one if there is none."""
    if generator is not None:
        return generator
    found = configured_generator()
    if found is None:
        raise ConfigError(f"{what} needs a generator model and none is configured: {_HOW}")
    return found


@lru_cache(maxsize=16)
def _template(name: str) -> Any:
    from jinja2 import StrictUndefined

    from giskard_nb.llm.sandbox import sandbox

    env = sandbox(autoescape=False, keep_trailing_newline=True, undefined=StrictUndefined)
    return env.from_string((PROMPTS / name).read_text(encoding="utf-8"))


def render(name: str, **context: Any) -> str:
    """Render the packaged prompt template ``name`` in the package's limited Jinja sandbox."""
    from giskard_nb.llm.sandbox import render_limited

    return render_limited(_template(name), context, label=f"the generation prompt {name!r}")


async def ask(generator: Any, prompt: str, output_type: type[M]) -> tuple[M, Usage]:
    """One completion parsed as ``output_type``, and its usage. Junk raises ``LLMError``."""
    completion = await generator.complete(
        [{"role": "user", "content": prompt}], output_type=output_type
    )
    parsed = completion.parsed
    if isinstance(parsed, output_type):
        return parsed, completion.usage
    from giskard_nb.llm.parsing import ReplyParseError, parse_reply

    try:  # a generator of another kind: the same strict reader as Generator's
        if isinstance(parsed, dict):
            value = output_type.model_validate(parsed, strict=True)
        else:
            value = parse_reply(getattr(completion, "text", None), output_type)
    except (ValidationError, ReplyParseError) as exc:
        raise LLMError(
            f"the generator's answer does not match {output_type.__name__}: {exc}"
        ) from None
    return value, completion.usage
