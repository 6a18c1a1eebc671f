"""LLM-driven input generators: ``BaseLLMGenerator`` (the turn loop) and ``LLMGenerator`` (kind
``llm_generator``: your own instructions).

::

    Scenario("refund").interact(
        LLMGenerator(prompt="Ask for a refund of order 1234; the goal is reached once the assistant "
                            "gives a refund date.", max_steps=4),
        my_agent,
    )

Each turn the model gets the prompt, the conversation so far and the turn number, and answers
``{"goal_reached": bool, "message": <the next input> | null, "schema_issue": str | null}``, read by the
strict structured-answer reader (one JSON object, no coercion; one repair request). The conversation stops
when ``goal_reached`` is true (the message of that reply is not sent), when the message is empty, or after
``max_steps`` inputs. A reply that is still unreadable after its repair, or that reports a
``schema_issue``, is asked again up to ``max_retries`` times; after that the step is an ERROR in the
``input_generation`` phase naming the last problem (never a silent pass, never a made-up input).

When the target's first parameter is annotated with a pydantic model, ``message`` must be an instance of
it (its JSON schema is in the prompt), and the agent receives that model. The model is ``generator`` (a
Generator, a registered subclass, or a model string) or the default one; its calls count in
``track_usage()``. Subclass ``BaseLLMGenerator`` for your own generators: implement ``get_prompt()``, and
optionally ``get_inputs(trace)`` (template variables), ``build_messages`` and ``next_input``.
"""

from __future__ import annotations

import functools
import inspect
from abc import abstractmethod
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator, model_validator

from giskard_nb.checks.llm.base import format_history
from giskard_nb.core.interaction import Trace
from giskard_nb.core.spec import InputGenerator
from giskard_nb.errors import GiskardValidationError, InputGenerationException
from giskard_nb.llm.errors import LLMResponseError
from giskard_nb.llm.generator import Generator
from giskard_nb.llm.mixins import WithGeneratorMixin
from giskard_nb.llm.parsing import json_schema
from giskard_nb.llm.structured import ask_structured
from giskard_nb.llm.templates import (
    TemplateReference,
    render_messages,
    template_variables,
)

__all__ = ["BaseLLMGenerator", "LLMGenerator", "LLMGeneratorOutput"]

_FRAME = "giskard_nb.input_generators::llm_generator.j2"
_TRACE_VARIABLES = {"trace", "history"}


class LLMGeneratorOutput(BaseModel):
    """One turn of an LLM generator: the next input, or that the goal is reached, or a schema issue."""

    model_config = ConfigDict(defer_build=True)

    goal_reached: bool = Field(
        strict=True, description="true only if the conversation already achieved the goal"
    )
    message: str | None = Field(default=None, description="the next input to send, or null")
    schema_issue: str | None = Field(
        default=None, description="why the input format cannot carry the input, or null"
    )

    @field_validator("schema_issue")
    @classmethod
    def _blank_is_none(cls, value: str | None) -> str | None:
        return value.strip() or None if isinstance(value, str) else value

    @model_validator(mode="after")
    def _one_of(self) -> LLMGeneratorOutput:
        if self.schema_issue is not None and self.message not in (None, ""):
            raise ValueError("give either message or schema_issue, not both")
        return self


@functools.lru_cache(maxsize=256)
def _typed_output(input_type: type[BaseModel]) -> type[LLMGeneratorOutput]:
    """``LLMGeneratorOutput`` whose ``message`` is an instance of the target's input model."""
    return create_model(
        f"LLMGeneratorOutput_{input_type.__name__}",
        __base__=LLMGeneratorOutput,
        message=(
            input_type | None,
            Field(default=None, description=f"the next input, a {input_type.__name__}, or null"),
        ),
    )


def _structured(input_type: Any) -> bool:
    return isinstance(input_type, type) and issubclass(input_type, BaseModel)


class BaseLLMGenerator(WithGeneratorMixin, InputGenerator):
    """Base of input generators driven by a model, one structured request per turn.

    ``max_steps``: most inputs produced (0 produces none); ``max_retries``: extra requests for a turn
    whose reply is unreadable after its repair or reports a ``schema_issue``."""

    max_steps: int = Field(default=3, ge=0)
    max_retries: int = Field(default=2, ge=0)

    @abstractmethod
    def get_prompt(self) -> str | TemplateReference:
        """The prompt: an inline Jinja string or a ``TemplateReference``."""

    async def get_inputs(self, trace: Trace) -> dict[str, Any]:
        """Template variables: ``trace`` and ``history`` (the conversation as text). The loop adds
        ``turn`` (1-based), ``max_steps`` and ``input_schema`` (JSON schema text, or "" for text)."""
        return {"trace": trace, "history": format_history(trace)}

    def output_type_for(self, input_type: Any) -> type[BaseModel]:
        """The reply model for a target whose input annotation is ``input_type``."""
        return _typed_output(input_type) if _structured(input_type) else LLMGeneratorOutput

    def build_messages(self, inputs: dict[str, Any]) -> list[dict[str, str]]:
        """Render the prompt into chat messages (override to post-process them)."""
        return render_messages(self.get_prompt(), inputs)

    def next_input(self, reply: Any, step: int) -> Any:
        """The input to send for this reply, or None to end the conversation."""
        if reply.goal_reached:
            return None
        message = reply.message
        if isinstance(message, str):
            message = message.strip()
        return message if message not in (None, "") else None

    async def __call__(
        self, trace: Trace, input_type: type | None = None
    ) -> AsyncGenerator[Any, Trace]:
        if self.max_steps == 0:
            return
        generator = self.get_generator()
        output_type = self.output_type_for(input_type)
        schema = json_schema(input_type) if _structured(input_type) else ""
        for step in range(self.max_steps):
            inputs = await _maybe_await(self.get_inputs(trace))
            inputs = {**inputs, "turn": step + 1, "max_steps": self.max_steps}
            messages = self.build_messages({**inputs, "input_schema": schema})
            reply = await self._ask(generator, messages, output_type, step)
            value = self.next_input(reply, step)
            if value is None:
                return
            trace = yield value

    async def _ask(
        self,
        generator: Generator,
        messages: list[dict[str, str]],
        output_type: type[BaseModel],
        step: int,
    ) -> Any:
        """One turn's reply, asking again (uncached) after an unreadable reply or a schema issue."""
        problem = ""
        attempts = self.max_retries + 1
        for attempt in range(attempts):
            cache = None if attempt == 0 else False
            try:
                done = await ask_structured(generator, messages, output_type, cache=cache)
            except LLMResponseError as exc:
                problem = str(exc)
                continue
            issue = getattr(done.value, "schema_issue", None)
            if issue:
                problem = f"the model reported a schema issue: {issue}"
                continue
            return done.value
        raise InputGenerationException(
            f"{type(self).__name__} got no usable input from {generator.model} for turn {step + 1} "
            f"in {attempts} attempt(s) (max_retries={self.max_retries}): {problem}"
        )


@InputGenerator.register("llm_generator")
class LLMGenerator(BaseLLMGenerator):
    """Inputs written by a model following your instructions: ``prompt=`` (inline) xor ``prompt_path=``.

    ``prompt`` is sent literally unless ``as_template=True``, which renders it as Jinja (in the package's
    sandbox) with ``trace``, ``history``, ``turn``, ``max_steps`` and ``input_schema``. ``prompt_path`` is a
    prompt file (a path, also looked up under ``./prompts``) or a template name ``namespace::file.j2``; a
    file is always a template. The instructions are framed with the conversation so far (left out when
    the template itself reads ``history`` or ``trace``; ``include_conversation`` decides explicitly); a
    template written as ``{% message %}`` blocks is sent as written, without the frame."""

    prompt: str | None = None
    prompt_path: str | None = None
    as_template: bool = False
    include_conversation: bool | None = None

    @model_validator(mode="after")
    def _one_prompt(self) -> LLMGenerator:
        if (self.prompt is None) == (self.prompt_path is None):
            raise GiskardValidationError(
                f"LLMGenerator needs exactly one of prompt= (the instructions, inline) or prompt_path= "
                f"(a prompt file, or a template name such as 'my_project::inputs.j2'); "
                f"{'both were' if self.prompt is not None else 'neither was'} given"
            )
        if self.prompt is not None and not self.prompt.strip():
            raise GiskardValidationError("LLMGenerator prompt must not be empty")
        if self.prompt_path is not None and "::" not in self.prompt_path:
            _prompt_file(self.prompt_path)
        return self

    def get_prompt(self) -> str | TemplateReference:
        """The instructions: the inline prompt, the prompt file's text, or a template reference."""
        if self.prompt is not None:
            return self.prompt
        path = self.prompt_path or ""
        if "::" in path:
            return TemplateReference(template_name=path)
        return _prompt_file(path).read_text(encoding="utf-8")

    def build_messages(self, inputs: dict[str, Any]) -> list[dict[str, str]]:
        source = self.get_prompt()
        literal = self.prompt is not None and not self.as_template
        if literal:
            own = [{"role": "user", "content": self.prompt or ""}]
        else:
            own = render_messages(source, inputs)
        if len(own) != 1 or own[0]["role"] != "user":
            return own  # the template wrote its own chat: sent as written
        include = self.include_conversation
        if include is None:
            include = literal or not (template_variables(source) & _TRACE_VARIABLES)
        frame = {
            "instructions": own[0]["content"],
            "conversation": inputs["history"] if include else "",
            "turn": inputs["turn"],
            "max_steps": inputs["max_steps"],
            "input_schema": inputs.get("input_schema", ""),
        }
        return render_messages(TemplateReference(template_name=_FRAME), frame)


def _prompt_file(path: str) -> Path:
    """The prompt file ``path`` names (as given, else under ``./prompts``), or a clear error."""
    given = Path(path).expanduser()
    under_prompts = Path.cwd() / "prompts" / path
    for candidate in (given, under_prompts):
        if candidate.is_file():
            return candidate
    raise GiskardValidationError(
        f"LLMGenerator prompt_path {path!r} is not a file (looked for {given.resolve()} and "
        f"{under_prompts}): give the path of a prompt file, or a template name "
        "'namespace::file.j2' of a folder registered with register_template_folder"
    )


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value
