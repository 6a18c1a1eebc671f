"""The stored embedding vectors of knowledge base documents (``hub_kb_vectors``).

A vector is kept as little-endian float32 bytes with its dimension and the name of the model that
made it; vectors of another model are ignored on load, so a change of embedding model triggers a
re-embedding instead of comparing incompatible vectors.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sqlalchemy as sa

from giskard_nb.hub import schema_more
from giskard_nb.kb.index import DocumentIndex

__all__ = ["load_vectors", "save_vectors"]


def save_vectors(conn: sa.Connection, kb_id: str, ids: list[str], index: DocumentIndex) -> None:
    """Replace the knowledge base's vectors with ``index.embeddings`` (rows aligned with ``ids``)."""
    if index.embeddings is None:
        return
    table = schema_more.kb_vectors
    conn.execute(sa.delete(table).where(table.c.knowledge_base_id == kb_id))
    name = index.embedding_model_name or "unknown"
    rows = [
        {
            "document_id": doc_id,
            "knowledge_base_id": kb_id,
            "model": name,
            "dimensions": int(vector.shape[0]),
            "vector": vector.astype("<f4").tobytes(),
        }
        for doc_id, vector in zip(ids, index.embeddings, strict=True)
    ]
    if rows:
        conn.execute(table.insert(), rows)


def load_vectors(db: Any, kb_id: str, ids: list[str], model: str) -> np.ndarray | None:
    """The vectors of ``ids`` made by ``model``, in order; ``None`` when any is missing."""
    table = schema_more.kb_vectors
    query = sa.select(table.c.document_id, table.c.model, table.c.dimensions, table.c.vector)
    with db.read() as conn:
        rows = conn.execute(query.where(table.c.knowledge_base_id == kb_id)).all()
    found = {r.document_id: r for r in rows if r.model == model}
    if not ids or len(found) != len(ids) or any(i not in found for i in ids):
        return None
    return np.stack(
        [np.frombuffer(found[i].vector, dtype="<f4", count=found[i].dimensions) for i in ids]
    )
