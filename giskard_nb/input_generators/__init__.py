"""Input generators: ``LLMGenerator`` (a model writes the inputs from your instructions) on
``BaseLLMGenerator`` (the turn loop), ``UserSimulator`` (an LLM playing the user) with its predefined
``PERSONAS``, ``DatasetInputGenerator`` (inputs from a list, no LLM) and ``Persona``, the one persona
model (also read by dataset generation and stored by the Hub as a project scenario). May import:
errors, core, llm and checks."""

from giskard_nb.input_generators.dataset import DatasetInputGenerator
from giskard_nb.input_generators.llm_generator import (
    BaseLLMGenerator,
    LLMGenerator,
    LLMGeneratorOutput,
)
from giskard_nb.input_generators.personas import PERSONAS, Persona
from giskard_nb.input_generators.user_simulator import SimulatedTurn, UserSimulator

__all__ = [
    "PERSONAS",
    "BaseLLMGenerator",
    "DatasetInputGenerator",
    "LLMGenerator",
    "LLMGeneratorOutput",
    "Persona",
    "SimulatedTurn",
    "UserSimulator",
]
