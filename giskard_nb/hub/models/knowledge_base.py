"""Knowledge bases: the collection, its topics and its documents (chunks), and search results."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, InstanceOf, computed_field

from giskard_nb.core.usage import Usage
from giskard_nb.hub.models.base import HubModel, HubRecord
from giskard_nb.kb.index import SearchHit

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["KBDocument", "KBSearchResult", "KBTopic", "KnowledgeBase"]


class KnowledgeBase(HubRecord):
    """An indexed collection of documents, stored as chunks (``n_documents``) with topics.

    ``source`` says what it was built from; ``n_source_documents`` how many documents that held;
    ``skipped`` how many rows had no text. ``embedding_model`` names the model of the stored vectors.
    ``topics_named_by``: "given" (``topic_column``), "keywords" or "llm"; ``naming_error`` why LLM naming
    fell back to keywords; ``usage`` the model calls building it cost."""

    project_id: str
    name: str = Field(min_length=1, max_length=200)
    description: str = ""
    source: str = ""
    document_column: str | None = None
    topic_column: str | None = None
    n_source_documents: int = 0
    n_documents: int = 0
    n_topics: int = 0
    skipped: int = 0
    chunk_size: int
    chunk_overlap: int
    embedding_model: str | None = None
    topics_named_by: Literal["given", "keywords", "llm", "mixed"] = "keywords"
    naming_error: str | None = None
    usage: Usage = Field(default_factory=Usage)

    def topics(self) -> list[KBTopic]:
        return self._require_hub().knowledge_bases.list_topics(self.id)

    def documents(self, **filters: Any) -> list[KBDocument]:
        return self._require_hub().knowledge_bases.list_documents(self.id, **filters)

    def search(self, query: str, *, limit: int = 5, **options: Any) -> list[KBSearchResult]:
        """``hub.knowledge_bases.search_documents(self.id, query, limit)``."""
        return self._require_hub().knowledge_bases.search_documents(
            self.id, query, limit=limit, **options
        )

    def to_dataframe(self) -> pd.DataFrame:
        """One row per document (chunk)."""
        return self._require_hub().knowledge_bases.documents_dataframe(self.id)

    def plot_topics(self) -> Any:
        """The topics as a Plotly bar chart of their document counts."""
        return self._require_hub().knowledge_bases.plot_topics(self.id)

    def __repr__(self) -> str:
        return (
            f"<KnowledgeBase {self.name!r} documents={self.n_documents} topics={self.n_topics} "
            f"id={self.id}>"
        )


class KBTopic(HubRecord):
    """A topic of a knowledge base: its name, distinctive keywords and number of documents."""

    knowledge_base_id: str
    project_id: str
    position: int
    name: str = Field(min_length=1, max_length=200)
    keywords: list[str] = Field(default_factory=list)
    document_count: int = 0
    named_by: Literal["given", "keywords", "llm", "user"] = "keywords"

    def __repr__(self) -> str:
        return f"<KBTopic {self.name!r} documents={self.document_count}>"


class KBDocument(HubRecord):
    """A chunk of a source document: ``content``, its topic, and where it comes from
    (``source_index``: the document's position in the source; ``chunk_index``; character ``start`` and
    ``end`` in that document; the Markdown ``section``; the source row's other columns in ``metadata``)."""

    knowledge_base_id: str
    project_id: str
    position: int
    topic_id: str | None = None
    content: str
    source_index: int = 0
    chunk_index: int = 0
    start: int = 0
    end: int = 0
    section: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @property
    def snippet(self) -> str:
        text = " ".join(self.content.split())
        return text if len(text) <= 160 else text[:159] + "…"

    def __repr__(self) -> str:
        return f"<KBDocument #{self.position} {self.snippet[:60]!r}>"


class KBSearchResult(HubModel):
    """A document found by ``search_documents``: the index's ``SearchHit`` (``hit``) placed in the Hub
    (its document, knowledge base and topic ids). ``content``, the rank-fused ``score``, each signal's
    score, ``topic_name`` and ``metadata`` are the hit's (and in ``model_dump()``; ``hit`` is not)."""

    document_id: str
    knowledge_base_id: str
    topic_id: str | None = None
    hit: InstanceOf[SearchHit] = Field(exclude=True, repr=False)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def content(self) -> str:
        return self.hit.content

    @computed_field  # type: ignore[prop-decorator]
    @property
    def score(self) -> float:
        return self.hit.score

    @computed_field  # type: ignore[prop-decorator]
    @property
    def lexical_score(self) -> float:
        return self.hit.lexical_score

    @computed_field  # type: ignore[prop-decorator]
    @property
    def semantic_score(self) -> float | None:
        return self.hit.semantic_score

    @computed_field  # type: ignore[prop-decorator]
    @property
    def topic_name(self) -> str | None:
        return self.hit.topic

    @computed_field  # type: ignore[prop-decorator]
    @property
    def metadata(self) -> dict[str, Any]:
        """A copy of the chunk's metadata (the chunk stays in the Hub's cached index)."""
        return dict(self.hit.chunk.metadata)

    def __repr__(self) -> str:
        text = " ".join(self.content.split())[:60]
        return f"<KBSearchResult score={self.score:.4f} topic={self.topic_name!r} {text!r}>"
