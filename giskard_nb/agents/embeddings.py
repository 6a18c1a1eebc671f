"""giskard-agents' ``giskard.agents.embeddings``: the embedding models of ``giskard_nb.llm``."""

from giskard_nb.llm.embeddings import BaseEmbeddingModel, EmbeddingModel

__all__ = ["BaseEmbeddingModel", "EmbeddingModel"]
