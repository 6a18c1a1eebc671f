"""giskard-agents' ``giskard.agents.generators.base``: ``BaseGenerator`` and ``GenerationParams``."""

from giskard_nb.llm.base_generator import BaseGenerator
from giskard_nb.llm.types import GenerationParams

__all__ = ["BaseGenerator", "GenerationParams"]
