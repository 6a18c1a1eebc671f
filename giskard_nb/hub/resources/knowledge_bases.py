"""``hub.knowledge_bases``: document collections stored as chunks with topics, searchable.

``create(project_id, data, name=...)`` loads documents (a list of texts or dicts, a CSV/JSONL/JSON file
or a folder of .txt/.md files; ``document_column``, ``topic_column``), chunks them, embeds the chunks
(the default embedding model, offline unless configured) and gives them topics — from ``topic_column``,
else discovered by clustering and named by the generator model when one is configured. Everything is
written in one transaction with one audit entry. ``search_documents(kb_id, query, limit)`` ranks chunks
by BM25 and embedding similarity fused; ``context_for`` returns the texts, ready for a groundedness
check's ``context``. The search index is rebuilt from the database on first use and cached.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa

from giskard_nb.core.sync import sync_twin
from giskard_nb.errors import GiskardValidationError, NotFoundError
from giskard_nb.hub import schema_more
from giskard_nb.hub.kb_vectors import load_vectors, save_vectors
from giskard_nb.hub.models.base import build
from giskard_nb.hub.models.knowledge_base import KBDocument, KBSearchResult, KBTopic, KnowledgeBase
from giskard_nb.hub.resources.base import Resource
from giskard_nb.hub.store import Store
from giskard_nb.kb.chunking import DEFAULT_MAX_CHARS, DEFAULT_OVERLAP
from giskard_nb.kb.embedding import default_embedding_model, embed_matrix, model_name
from giskard_nb.kb.index import Chunk, DocumentIndex
from giskard_nb.kb.topics import TopicDraft

__all__ = ["KnowledgeBasesResource"]


class _Part(Resource[Any]):
    """Topics and documents: stored like records, listed through ``hub.knowledge_bases`` (which uses
    the public methods below)."""

    listing: str = ""

    def insert(self, conn: sa.Connection, records: Sequence[Any]) -> None:
        """Store new records in the knowledge base's write transaction (one audit entry: the KB's)."""
        self._insert(conn, records, audit=False)

    def select(self, *where: Any, order_by: Sequence[Any], **page: Any) -> list[Any]:
        """The records matching ``where`` in that order (``limit``, ``offset``)."""
        return self._list(*where, order_by=order_by, **page)

    def change(self, id: str, changes: dict[str, Any]) -> Any:
        """Apply ``changes`` to one record (audited)."""
        return self._update(id, changes)

    def _get(self, conn: sa.Connection, id: str) -> Any:
        try:
            return super()._get(conn, id)
        except NotFoundError:
            raise NotFoundError(
                f"no knowledge base {self.entity_type[3:]} with id {id!r}: list them with "
                f"hub.knowledge_bases.{self.listing}(knowledge_base_id)"
            ) from None


class _Topics(_Part):
    entity_type = "kb_topic"
    model = KBTopic
    table = schema_more.kb_topics
    columns = ("knowledge_base_id", "position")
    listing = "list_topics"


class _Documents(_Part):
    entity_type = "kb_document"
    model = KBDocument
    table = schema_more.kb_documents
    columns = ("knowledge_base_id", "topic_id", "position")
    listing = "list_documents"


class KnowledgeBasesResource(Resource[KnowledgeBase]):
    """Create, read, update, delete, list and search knowledge bases."""

    entity_type = "knowledge_base"
    model = KnowledgeBase
    table = schema_more.knowledge_bases
    columns = ("project_id", "name")

    def __init__(self, store: Store):
        super().__init__(store)
        self._topics = _Topics(store)
        self._documents = _Documents(store)
        #: The embedding model used to search (``None``: the default one). Vectors made by another
        #: model are recomputed (and stored) on the next search.
        self.embedding_model: Any = None
        self._cache: dict[str, tuple[Any, DocumentIndex, list[str], list[str]]] = {}
        self._lock = threading.Lock()

    # -- creating ------------------------------------------------------------------------------------

    async def acreate(
        self,
        project_id: str,
        data: Any = None,
        *,
        name: str,
        description: str = "",
        document_column: str | None = None,
        topic_column: str | None = None,
        chunk_size: int = DEFAULT_MAX_CHARS,
        chunk_overlap: int = DEFAULT_OVERLAP,
        n_topics: int | None = None,
        max_topics: int = 12,
        name_topics: str = "auto",
        embedding_model: Any = None,
        generator: Any = None,
    ) -> KnowledgeBase:
        """Build and store a knowledge base (see the module docstring)."""
        self._store.resources.projects.retrieve(project_id)
        if data is None:
            raise GiskardValidationError(
                "create() needs data=: a list of texts or dicts, or the path of a .csv/.jsonl/.json "
                "file or of a folder of .txt/.md files"
            )
        model = embedding_model or self.embedding_model or default_embedding_model()
        index = await DocumentIndex.abuild(
            data,
            document_column=document_column,
            topic_column=topic_column,
            chunk_size=chunk_size,
            chunk_overlap=chunk_overlap,
            embedding_model=model,
            n_topics=n_topics,
            max_topics=max_topics,
            name_topics=name_topics,
            generator=generator,
        )
        named = {t.named_by for t in index.topics}
        kb = build(
            KnowledgeBase,
            {
                "project_id": project_id,
                "name": name,
                "description": description,
                "source": _describe(data),
                "document_column": document_column,
                "topic_column": topic_column,
                "n_source_documents": len({c.document for c in index.chunks}),
                "n_documents": len(index.chunks),
                "n_topics": len(index.topics),
                "skipped": len(index.skipped),
                "chunk_size": chunk_size,
                "chunk_overlap": chunk_overlap,
                "embedding_model": model_name(model),
                "topics_named_by": named.pop() if len(named) == 1 else "mixed",
                "naming_error": index.naming_error,
                "usage": index.usage,
            },
            "knowledge base",
        )
        with self._db.write() as conn:
            self._create(kb, conn=conn)
            self._store_index(conn, kb, index)
        return self._store.bind(kb)

    create = sync_twin(acreate)

    def _store_index(self, conn: sa.Connection, kb: KnowledgeBase, index: DocumentIndex) -> None:
        topics = [
            build(
                KBTopic,
                {
                    "knowledge_base_id": kb.id,
                    "project_id": kb.project_id,
                    "position": i,
                    "name": t.name[:200],
                    "keywords": t.keywords,
                    "document_count": len(t.members),
                    "named_by": t.named_by,
                },
                "topic",
            )
            for i, t in enumerate(index.topics)
        ]
        self._topics.insert(conn, topics)
        documents = [
            KBDocument(
                knowledge_base_id=kb.id,
                project_id=kb.project_id,
                position=i,
                topic_id=topics[c.topic].id if c.topic is not None else None,
                content=c.content,
                source_index=c.document,
                chunk_index=c.position,
                start=c.start,
                end=c.end,
                section=c.section,
                metadata=c.metadata,
            )
            for i, c in enumerate(index.chunks)
        ]
        self._documents.insert(conn, documents)
        if index.embeddings is not None:
            save_vectors(conn, kb.id, [d.id for d in documents], index)

    # -- reading -------------------------------------------------------------------------------------

    def update(
        self, knowledge_base_id: str, *, name: str | None = None, description: str | None = None
    ) -> KnowledgeBase:
        changes = {"name": name, "description": description}
        return self._update(knowledge_base_id, {k: v for k, v in changes.items() if v is not None})

    def list(self, *, project_id: str | None = None) -> list[KnowledgeBase]:
        """All knowledge bases, or those of a project, oldest first."""
        where = [self.table.c.project_id == project_id] if project_id is not None else []
        return self._list(*where)

    def list_topics(self, knowledge_base_id: str) -> list[KBTopic]:
        self.retrieve(knowledge_base_id)
        t = self._topics.table
        return self._topics.select(
            t.c.knowledge_base_id == knowledge_base_id, order_by=[t.c.position]
        )

    def update_topic(self, topic_id: str, *, name: str) -> KBTopic:
        """Rename a topic (recorded as named by the user)."""
        topic = self._topics.change(topic_id, {"name": name, "named_by": "user"})
        self._cache.pop(topic.knowledge_base_id, None)
        return topic

    def list_documents(
        self,
        knowledge_base_id: str,
        *,
        topic_id: str | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[KBDocument]:
        """The documents (chunks) in order, optionally of one topic."""
        self.retrieve(knowledge_base_id)
        t = self._documents.table
        where = [t.c.knowledge_base_id == knowledge_base_id]
        if topic_id is not None:
            where.append(t.c.topic_id == topic_id)
        return self._documents.select(*where, order_by=[t.c.position], limit=limit, offset=offset)

    def retrieve_document(self, document_id: str) -> KBDocument:
        return self._documents.retrieve(document_id)

    # -- searching -----------------------------------------------------------------------------------

    async def asearch_documents(
        self,
        knowledge_base_id: str,
        query: str,
        limit: int = 5,
        *,
        topic_ids: Sequence[str] | None = None,
    ) -> list[KBSearchResult]:
        """The ``limit`` documents most relevant to ``query`` (only in ``topic_ids`` if given)."""
        if limit < 1:
            raise GiskardValidationError(f"limit must be at least 1, got {limit}")
        index, doc_ids, topic_ids_by_pos = await self._index(knowledge_base_id)
        positions = None
        if topic_ids is not None:
            unknown = set(topic_ids) - set(topic_ids_by_pos)
            if unknown:
                raise NotFoundError(
                    f"no topic {sorted(unknown)[0]!r} in knowledge base {knowledge_base_id}: list "
                    "them with hub.knowledge_bases.list_topics(kb_id)"
                )
            positions = [topic_ids_by_pos.index(t) for t in topic_ids]
        hits = await index.asearch(query, limit=limit, topics=positions)
        return [
            KBSearchResult(
                document_id=doc_ids[h.index],
                knowledge_base_id=knowledge_base_id,
                topic_id=topic_ids_by_pos[h.chunk.topic] if h.chunk.topic is not None else None,
                hit=h,
            )
            for h in hits
        ]

    search_documents = sync_twin(asearch_documents)

    def context_for(self, knowledge_base_id: str, query: str, limit: int = 3) -> list[str]:
        """The texts of the best documents for ``query``: a groundedness check's ``context``."""
        return [r.content for r in self.search_documents(knowledge_base_id, query, limit)]

    async def _index(self, kb_id: str) -> tuple[DocumentIndex, list[str], list[str]]:
        kb = self.retrieve(kb_id)
        model = self.embedding_model or default_embedding_model()
        key = (kb.updated_at, model_name(model))
        cached = self._cache.get(kb_id)
        if cached is not None and cached[0] == key:
            return cached[1], cached[2], cached[3]
        topics = self.list_topics(kb_id)
        documents = self.list_documents(kb_id)
        position = {t.id: t.position for t in topics}
        chunks = [
            Chunk(
                content=d.content,
                document=d.source_index,
                position=d.chunk_index,
                start=d.start,
                end=d.end,
                section=d.section,
                topic=position.get(d.topic_id) if d.topic_id else None,
                metadata=d.metadata,
            )
            for d in documents
        ]
        drafts = [TopicDraft(t.name, [], t.keywords, t.named_by) for t in topics]
        vectors = load_vectors(self._db, kb_id, [d.id for d in documents], model_name(model))
        if vectors is None:
            vectors = await embed_matrix(model, [c.search_text for c in chunks])
        index = DocumentIndex(chunks, embeddings=vectors, topics=drafts, embedding_model=model)
        if kb.embedding_model != model_name(model):
            with self._db.write() as conn:
                save_vectors(conn, kb_id, [d.id for d in documents], index)
                kb = self._update(kb_id, {"embedding_model": model_name(model)}, conn=conn)
            key = (kb.updated_at, model_name(model))
        with self._lock:
            self._cache[kb_id] = (key, index, [d.id for d in documents], [t.id for t in topics])
        return index, [d.id for d in documents], [t.id for t in topics]

    # -- frames and charts ---------------------------------------------------------------------------

    def to_dataframe(self, *, project_id: str | None = None) -> Any:
        """One row per knowledge base."""
        from giskard_nb.frames.hub_records import knowledge_bases_frame

        return knowledge_bases_frame(self.list(project_id=project_id))

    def topics_dataframe(self, knowledge_base_id: str) -> Any:
        from giskard_nb.frames.hub_records import topics_frame

        return topics_frame(self.list_topics(knowledge_base_id))

    def documents_dataframe(self, knowledge_base_id: str) -> Any:
        from giskard_nb.frames.hub_records import documents_frame

        topics = {t.id: t.name for t in self.list_topics(knowledge_base_id)}
        return documents_frame(self.list_documents(knowledge_base_id), topics)

    def plot_topics(self, knowledge_base_id: str) -> Any:
        """A Plotly bar chart of the topics and their document counts (keywords on hover)."""
        from giskard_nb.charts.topics import plot_topics

        kb = self.retrieve(knowledge_base_id)
        return plot_topics(kb.name, self.list_topics(knowledge_base_id))

    def _delete_children(self, conn: sa.Connection, record: KnowledgeBase) -> None:
        self._cache.pop(record.id, None)


def _describe(data: Any) -> str:
    if isinstance(data, str | os.PathLike):
        return os.fspath(data)
    try:
        return f"{len(data)} item(s) given in Python"
    except TypeError:
        return type(data).__name__
