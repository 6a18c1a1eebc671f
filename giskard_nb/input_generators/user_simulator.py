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
the second turn), when it has nothing more to say, or after ``max_steps`` (alias ``max_turns``) messages.
The model is ``generator`` (a Generator or model string) or the default one; without any, the step is an
ERROR that says how to configure one. Its calls count in ``track_usage()``. It is a ``BaseLLMGenerator``
(the same turn loop as ``LLMGenerator``); ``max_retries`` defaults to 0 here: a reply still unreadable
after its repair request ends the step with an ERROR, as before.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator

from giskard_nb.core.interaction import Trace
from giskard_nb.core.spec import InputGenerator
from giskard_nb.errors import GiskardValidationError, InputGenerationException
from giskard_nb.input_generators.llm_generator import BaseLLMGenerator
from giskard_nb.input_generators.personas import PERSONAS
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
class UserSimulator(BaseLLMGenerator):
    """Simulated user: a persona (predefined key or free description), a situation, an optional goal."""

    persona: str
    context: str | None = None
    goal: str | None = None
    max_steps: int = Field(default=3, ge=0, validation_alias=AliasChoices("max_steps", "max_turns"))
    max_retries: int = Field(default=0, ge=0)

    @field_validator("persona")
    @classmethod
    def _check_persona(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise GiskardValidationError(
                "persona must not be empty (it should have at least 1 character): use one of "
                f"{', '.join(PERSONAS)} or describe the user"
            )
        if _KEY_LIKE.match(value) and "_" in value and value not in PERSONAS:
            raise GiskardValidationError(
                f"unknown persona {value!r}: predefined personas are {', '.join(PERSONAS)}; "
                "or describe the user in a sentence"
            )
        return value

    @property
    def persona_description(self) -> str:
        """The predefined persona's description, or the persona text itself."""
        return PERSONAS.get(self.persona, self.persona)

    @property
    def max_turns(self) -> int:
        """``max_steps`` under this simulator's first name."""
        return self.max_steps

    def get_prompt(self) -> TemplateReference:
        return TemplateReference(template_name=_TEMPLATE)

    async def get_inputs(self, trace: Trace) -> dict[str, Any]:
        return {
            **await super().get_inputs(trace),
            "persona": self.persona_description,
            "context": self.context or "",
            "goal": self.goal or "",
        }

    def output_type_for(self, input_type: Any) -> type[BaseModel]:
        return SimulatedTurn  # the user writes text, whatever the target's input type

    def next_input(self, reply: Any, step: int) -> Any:
        """The user's message; the goal counts only from the second turn, and the opening message
        must not be empty."""
        message = (reply.message or "").strip()
        if step > 0 and (reply.goal_reached or not message):
            return None
        if not message:
            raise InputGenerationException(
                f"the user simulator's model ({self.get_generator().model}) wrote an empty opening "
                "message"
            )
        return message
