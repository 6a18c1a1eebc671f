"""Generating test cases with a generator model: from personas (``scenario_based``) and from documents
(``document_based``), deduplicated, each recording its source. The Hub's ``hub.datasets.generate_*``
store them as test cases; personas are the one ``Persona`` model of input_generators. May import:
errors, core, llm, kb and input_generators."""

from giskard_nb.dataset_generation.document_based import generate_from_passages
from giskard_nb.dataset_generation.models import GeneratedCase, GenerationResult, Passage, Persona
from giskard_nb.dataset_generation.scenario_based import generate_from_persona

__all__ = [
    "GeneratedCase",
    "GenerationResult",
    "Passage",
    "Persona",
    "generate_from_passages",
    "generate_from_persona",
]
