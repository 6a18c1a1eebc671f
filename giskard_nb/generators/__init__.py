"""Input generators: ``LLMGenerator`` (a model writes the inputs from your instructions) on
``BaseLLMGenerator`` (the turn loop), ``UserSimulator`` (an LLM playing the user) with its predefined
``PERSONAS``, and ``DatasetInputGenerator`` (inputs from a list, no LLM). May import: errors, core, llm
and checks."""

from giskard_nb.generators.dataset import DatasetInputGenerator
from giskard_nb.generators.llm_generator import BaseLLMGenerator, LLMGenerator, LLMGeneratorOutput
from giskard_nb.generators.personas import PERSONAS
from giskard_nb.generators.user_simulator import SimulatedTurn, UserSimulator

__all__ = [
    "PERSONAS",
    "BaseLLMGenerator",
    "DatasetInputGenerator",
    "LLMGenerator",
    "LLMGeneratorOutput",
    "SimulatedTurn",
    "UserSimulator",
]
