"""Input generators: ``UserSimulator`` (an LLM playing the user) and its predefined ``PERSONAS``.
May import: errors, core, llm and checks."""

from giskard_nb.generators.dataset import DatasetInputGenerator
from giskard_nb.generators.personas import PERSONAS
from giskard_nb.generators.user_simulator import SimulatedTurn, UserSimulator

__all__ = ["PERSONAS", "DatasetInputGenerator", "SimulatedTurn", "UserSimulator"]
