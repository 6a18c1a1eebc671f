"""UserSimulator — input generator kind ``user_simulator``: an LLM plays the user for several turns.

::

    Scenario("late order").interact(
        UserSimulator(persona="frustrated_customer", context="my order is two weeks late",
                      goal="get a new delivery date", max_turns=4),
        my_agent,
    )

``persona``: one of ``PERSONAS`` (``helpful_user``, ``confused_user``, ``novice_user``,
``frustrated_customer``, ``impatient_user``, ``verbose_user``, ``non_native_speaker``,
``detail_oriented_user``, ``skeptical_user``, ``adversarial_user``) or a description in your own words.
Each turn the model sees the conversation so far and writes the user's next message; the agent answers it
(one interaction per turn). The conversation stops when the model says the goal is reached (never before
the second turn), when it has nothing more to say, or after ``max_turns`` (alias ``max_steps``) messages.
The model is ``generator`` (a Generator or model string) or the default one; without any, the step is an
ERROR that says how to configure one. Its calls count in ``track_usage()``.
"""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator

from giskard_nb.checks.llm.base import format_history
from giskard_nb.core.interaction import Trace
from giskard_nb.core.spec import InputGenerator
from giskard_nb.errors import GiskardValidationError, InputGenerationException
from giskard_nb.input_generators.personas import PERSONAS
from giskard_nb.llm.generator import Generator
from giskard_nb.llm.templates import TemplateReference

__all__ = ["SimulatedTurn", "UserSimulator"]

_KEY_LIKE = re.compile(r"^[a-z0-9]+(?:_[a-z0-9]+)*$")
_TEMPLATE = "giskard_nb.input_generators::user_simulator.j2"


class SimulatedTurn(BaseModel):
    """What the simulating model returns each turn."""

    model_config = ConfigDict(defer_build=True)

    goal_reached: bool = Field(
        strict=True, description="true only if the conversation already achieved the goal"
    )
    message: str | None = Field(default=None, description="the user's next message")


@InputGenerator.register("user_simulator")
class UserSimulator(InputGenerator):
    """Simulated user: a persona (predefined key or free description), a situation, an optional goal."""

    persona: str
    context: str | None = None
    goal: str | None = None
    max_turns: int = Field(default=3, ge=1, validation_alias=AliasChoices("max_turns", "max_steps"))
    generator: Generator | None = None

    @field_validator("persona")
    @classmethod
    def _check_persona(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise GiskardValidationError(
                f"persona must not be empty: use one of {', '.join(PERSONAS)} or describe the user"
            )
        if _KEY_LIKE.match(value) and "_" in value and value not in PERSONAS:
            raise GiskardValidationError(
                f"unknown persona {value!r}: predefined personas are {', '.join(PERSONAS)}; "
                "or describe the user in a sentence"
            )
        return value

    @field_validator("generator", mode="before")
    @classmethod
    def _model_string(cls, value: Any) -> Any:
        return Generator(model=value) if isinstance(value, str) else value

    @property
    def persona_description(self) -> str:
        return PERSONAS.get(self.persona, self.persona)

    async def __call__(
        self, trace: Trace, input_type: type | None = None
    ) -> AsyncGenerator[Any, Trace]:
        from giskard_nb.llm.settings import resolve_generator
        from giskard_nb.llm.structured import ask_structured
        from giskard_nb.llm.templates import render_messages

        generator = resolve_generator(self.generator)
        for turn in range(self.max_turns):
            messages = render_messages(
                TemplateReference(template_name=_TEMPLATE),
                {
                    "persona": self.persona_description,
                    "context": self.context or "",
                    "goal": self.goal or "",
                    "history": format_history(trace),
                    "turn": turn + 1,
                    "max_turns": self.max_turns,
                },
            )
            reply = (await ask_structured(generator, messages, SimulatedTurn)).value
            message = (reply.message or "").strip()
            if turn > 0 and (reply.goal_reached or not message):
                return
            if not message:
                raise InputGenerationException(
                    f"the user simulator's model ({generator.model}) wrote an empty opening message"
                )
            trace = yield message
