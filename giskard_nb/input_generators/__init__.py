"""Input generators: ``UserSimulator`` (an LLM playing the user) and its predefined ``PERSONAS``."""

from giskard_nb.input_generators.dataset import DatasetInputGenerator
from giskard_nb.input_generators.personas import PERSONAS
from giskard_nb.input_generators.user_simulator import SimulatedTurn, UserSimulator

__all__ = ["PERSONAS", "DatasetInputGenerator", "SimulatedTurn", "UserSimulator"]
