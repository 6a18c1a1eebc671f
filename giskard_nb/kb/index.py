"""``DocumentIndex``: a searchable knowledge base in memory (chunks, embeddings, topics).

Build one from documents (``await DocumentIndex.abuild(data)`` or ``DocumentIndex.build(data)``): they
are loaded (``giskard_nb.kb.documents``), chunked (``giskard_nb.kb.chunking``), embedded with the
embedding model (the default one unless given) and given topics — from ``topic_column`` when the data
has one, else discovered by clustering (``giskard_nb.kb.topics``) and named by the generator model when
one is configured. ``search`` combines BM25 and embedding similarity (``giskard_nb.kb.retrieval``).
The Hub stores the parts (``chunks``, ``embeddings``, ``topics``) and rebuilds an index from them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from giskard_nb.core.sanitize import valid_unicode
from giskard_nb.core.sync import sync_twin
from giskard_nb.core.usage import Usage
from giskard_nb.errors import GiskardValidationError
from giskard_nb.kb.chunking import DEFAULT_MAX_CHARS, DEFAULT_OVERLAP, chunk_text
from giskard_nb.kb.documents import LoadedDocuments, load_documents
from giskard_nb.kb.embedding import default_embedding_model, embed_matrix, model_name
from giskard_nb.kb.retrieval import HybridRetriever
from giskard_nb.kb.topics import (
    TopicDraft,
    cluster,
    keyword_name,
    keywords_by_cluster,
    name_topics_with_llm,
)

__all__ = ["Chunk", "DocumentIndex", "SearchHit"]

NameTopics = Literal["auto", "llm", "keywords"]
OTHER_TOPIC = "Other"


@dataclass(frozen=True)
class Chunk:
    """A piece of a document: its text, where it comes from and its topic (index into ``topics``)."""

    content: str
    document: int
    position: int
    start: int
    end: int
    section: str | None = None
    topic: int | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def search_text(self) -> str:
        """What is indexed: the Markdown section (or document title) above the text, then the text."""
        title = self.section or self.metadata.get("title")
        if not isinstance(title, str) or not title or title in self.content[: len(title) + 8]:
            return self.content
        return f"{title}\n{self.content}"


@dataclass(frozen=True)
class SearchHit:
    """One search result: the chunk, its rank-fused score and each signal's score."""

    chunk: Chunk
    index: int
    score: float
    lexical_score: float
    semantic_score: float | None
    topic: str | None

    @property
    def content(self) -> str:
        return self.chunk.content


class DocumentIndex:
    """Chunks with their embeddings and topics, searchable by ``search``/``asearch``."""

    def __init__(
        self,
        chunks: Sequence[Chunk],
        *,
        embeddings: np.ndarray | None,
        topics: Sequence[TopicDraft],
        embedding_model: Any = None,
        usage: Usage | None = None,
        skipped: Sequence[str] = (),
        naming_error: str | None = None,
    ):
        if embeddings is not None and len(embeddings) != len(chunks):
            raise GiskardValidationError(f"{len(embeddings)} embeddings for {len(chunks)} chunks")
        self.chunks = list(chunks)
        self.embeddings = embeddings
        self.topics = list(topics)
        self.embedding_model = embedding_model
        self.usage = usage or Usage()
        self.skipped = list(skipped)
        self.naming_error = naming_error
        self._retriever = HybridRetriever([c.search_text for c in self.chunks], embeddings)

    # -- building ------------------------------------------------------------------------------------

    @classmethod
    async def abuild(
        cls,
        data: Any,
        *,
        document_column: str | None = None,
        topic_column: str | None = None,
        chunk_size: int = DEFAULT_MAX_CHARS,
        chunk_overlap: int = DEFAULT_OVERLAP,
        embedding_model: Any = None,
        n_topics: int | None = None,
        max_topics: int = 12,
        name_topics: NameTopics = "auto",
        generator: Any = None,
        seed: int = 0,
    ) -> DocumentIndex:
        """Load, chunk, embed and organize documents into topics (see the module docstring).

        ``n_topics`` fixes the number of discovered topics (default: chosen by silhouette, at most
        ``max_topics``). ``name_topics``: ``"auto"`` (the generator model if configured, else
        keywords), ``"llm"`` (requires one) or ``"keywords"``."""
        if name_topics not in ("auto", "llm", "keywords"):
            raise GiskardValidationError(
                f"name_topics is 'auto', 'llm' or 'keywords', got {name_topics!r}"
            )
        loaded = (
            data
            if isinstance(data, LoadedDocuments)
            else load_documents(data, document_column=document_column, topic_column=topic_column)
        )
        chunks = _chunk_documents(loaded, chunk_size, chunk_overlap)
        model = embedding_model if embedding_model is not None else default_embedding_model()
        embeddings = await embed_matrix(model, [c.search_text for c in chunks])
        naming_error = None
        usage = Usage()
        if any(d.topic for d in loaded.documents):
            chunks, topics = _given_topics(loaded, chunks)
        else:
            labels = cluster(embeddings, n_topics=n_topics, max_topics=max_topics, seed=seed)
            chunks = [_with_topic(c, int(t)) for c, t in zip(chunks, labels, strict=True)]
            topics = _keyword_topics(chunks, labels)
            if name_topics != "keywords":
                from giskard_nb.llm import get_default_generator
                from giskard_nb.llm.structured import require_generator

                model_gen = (
                    require_generator("naming topics with the LLM", generator)
                    if name_topics == "llm"
                    else generator or get_default_generator(required=False)
                )
                if model_gen is not None:
                    naming_error, usage = await _llm_names(model_gen, topics, chunks, embeddings)
        return cls(
            chunks,
            embeddings=embeddings,
            topics=topics,
            embedding_model=model,
            usage=usage,
            skipped=loaded.skipped,
            naming_error=naming_error,
        )

    build = sync_twin(abuild)

    # -- searching -----------------------------------------------------------------------------------

    async def asearch(
        self, query: str, *, limit: int = 5, topics: Sequence[int] | None = None
    ) -> list[SearchHit]:
        """The ``limit`` chunks most relevant to ``query`` (only in ``topics`` if given)."""
        if not isinstance(query, str) or not query.strip():
            raise GiskardValidationError("search needs a non-empty query string")
        query = valid_unicode(query)  # a lone surrogate cannot be sent to an embedding model
        vector = None
        if self.embeddings is not None and self.embedding_model is not None:
            vector = (await embed_matrix(self.embedding_model, [query]))[0]
        allowed = None
        if topics is not None:
            wanted = set(topics)
            allowed = np.array([c.topic in wanted for c in self.chunks], dtype=bool)
        ranked = self._retriever.rank(query, vector, limit=limit, allowed=allowed)
        return [
            SearchHit(
                chunk=self.chunks[r.index],
                index=r.index,
                score=r.score,
                lexical_score=r.lexical_score,
                semantic_score=r.semantic_score,
                topic=self.topic_name(self.chunks[r.index].topic),
            )
            for r in ranked
        ]

    search = sync_twin(asearch)

    def topic_name(self, topic: int | None) -> str | None:
        return self.topics[topic].name if topic is not None and topic < len(self.topics) else None

    @property
    def embedding_model_name(self) -> str | None:
        return model_name(self.embedding_model) if self.embedding_model is not None else None

    def __len__(self) -> int:
        return len(self.chunks)

    def __repr__(self) -> str:
        return f"<DocumentIndex chunks={len(self.chunks)} topics={len(self.topics)}>"


def _chunk_documents(loaded: LoadedDocuments, size: int, overlap: int) -> list[Chunk]:
    chunks = []
    for number, document in enumerate(loaded.documents):
        for position, span in enumerate(
            chunk_text(document.content, max_chars=size, overlap=overlap)
        ):
            metadata = {**document.metadata, "source": document.location}
            chunks.append(
                Chunk(
                    content=span.text,
                    document=number,
                    position=position,
                    start=span.start,
                    end=span.end,
                    section=span.section,
                    metadata=metadata,
                )
            )
    return chunks


def _with_topic(chunk: Chunk, topic: int | None) -> Chunk:
    return Chunk(**{**chunk.__dict__, "topic": topic})


def _given_topics(
    loaded: LoadedDocuments, chunks: list[Chunk]
) -> tuple[list[Chunk], list[TopicDraft]]:
    names = list(dict.fromkeys(d.topic or OTHER_TOPIC for d in loaded.documents))
    index = {name: i for i, name in enumerate(names)}
    topics = [TopicDraft(name=name, members=[], keywords=[], named_by="given") for name in names]
    assigned = []
    for i, chunk in enumerate(chunks):
        topic = index[loaded.documents[chunk.document].topic or OTHER_TOPIC]
        topics[topic].members.append(i)
        assigned.append(_with_topic(chunk, topic))
    keywords = keywords_by_cluster([c.content for c in assigned], [c.topic for c in assigned])
    for i, topic in enumerate(topics):
        topic.keywords = keywords.get(i, [])
    return assigned, topics


def _keyword_topics(chunks: list[Chunk], labels: np.ndarray) -> list[TopicDraft]:
    keywords = keywords_by_cluster([c.content for c in chunks], labels.tolist())
    taken: set[str] = set()
    topics = []
    for label in range(int(labels.max()) + 1 if len(labels) else 0):
        members = np.flatnonzero(labels == label).tolist()
        words = keywords.get(label, [])
        topics.append(TopicDraft(keyword_name(words, taken), members, words))
    return topics


async def _llm_names(
    generator: Any, topics: list[TopicDraft], chunks: list[Chunk], embeddings: np.ndarray
) -> tuple[str | None, Usage]:
    """Rename ``topics`` in place with the generator's names; an error message if it failed."""
    samples = {}
    for label, topic in enumerate(topics):
        members = np.array(topic.members)
        center = embeddings[members].mean(axis=0)
        closest = members[np.argsort(-(embeddings[members] @ center))[:4]]
        samples[label] = [chunks[i].content for i in closest]
    keywords = {label: topic.keywords for label, topic in enumerate(topics)}
    try:
        names, usage = await name_topics_with_llm(generator, samples, keywords)
    except Exception as exc:  # naming is a nicety: keep the keyword names, report why
        return (
            f"topic naming by the LLM failed, keyword names kept: {type(exc).__name__}: {exc}",
            Usage(),
        )
    for label, name in names.items():
        topics[label].name, topics[label].named_by = name, "llm"
    return None, usage
