"""giskard-agents' ``giskard.agents.generators``: the generator classes of ``giskard_nb.llm``. May import:
llm."""

from giskard_nb.llm.base_generator import BaseGenerator
from giskard_nb.llm.generator import Generator
from giskard_nb.llm.types import GenerationParams

__all__ = ["BaseGenerator", "GenerationParams", "Generator"]
