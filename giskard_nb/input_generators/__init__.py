"""Input generators: ``UserSimulator`` (an LLM playing the user) and its predefined ``PERSONAS``;
``DatasetInputGenerator``; ``Persona``, the one persona model (also read by dataset generation and
stored by the Hub as a project scenario)."""

from giskard_nb.input_generators.dataset import DatasetInputGenerator
from giskard_nb.input_generators.personas import PERSONAS, Persona
from giskard_nb.input_generators.user_simulator import SimulatedTurn, UserSimulator

__all__ = ["PERSONAS", "DatasetInputGenerator", "Persona", "SimulatedTurn", "UserSimulator"]
