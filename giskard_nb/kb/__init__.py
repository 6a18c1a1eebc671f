"""Knowledge bases: loading documents, chunking, hybrid (BM25 + embedding) search and topic discovery.
May import: errors, core and llm; topic naming borrows the prompting helper of dataset_generation
until the structured-answer helper moves to llm (an allow-listed exception).

The Hub's ``hub.knowledge_bases`` stores them; ``DocumentIndex`` is the engine, usable on its own.
"""

from giskard_nb.kb.documents import LoadedDocuments, SourceDocument, load_documents
from giskard_nb.kb.embedding import EmbeddingModel, HashingEmbedder
from giskard_nb.kb.index import Chunk, DocumentIndex, SearchHit

__all__ = [
    "Chunk",
    "DocumentIndex",
    "EmbeddingModel",
    "HashingEmbedder",
    "LoadedDocuments",
    "SearchHit",
    "SourceDocument",
    "load_documents",
]
