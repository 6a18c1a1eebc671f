"""Tables of the knowledge bases, project scenarios, scheduled evaluations, tasks and playground chats.

They join ``schema.metadata`` when this module is imported (the Hub imports it before opening its
database), with the same record spine as every Hub table. Knowledge base chunks keep their embedding
vectors in ``hub_kb_vectors`` (float32 bytes and the model that made them): derived data, not audited.
"""

from __future__ import annotations

import sqlalchemy as sa

from giskard_nb.hub.schema import UTCDateTime, metadata, record_table

__all__ = [
    "kb_documents",
    "kb_topics",
    "kb_vectors",
    "knowledge_bases",
    "playground_chats",
    "project_scenarios",
    "scheduled_evaluations",
    "tasks",
]


def _fk(table: str) -> sa.ForeignKey:
    return sa.ForeignKey(f"{table}.id", ondelete="CASCADE")


def _project() -> sa.Column:
    return sa.Column("project_id", sa.String(36), _fk("hub_projects"), nullable=False, index=True)


knowledge_bases = record_table("knowledge_bases", _project(), sa.Column("name", sa.String(200)))

kb_topics = record_table(
    "kb_topics",
    sa.Column(
        "knowledge_base_id", sa.String(36), _fk("hub_knowledge_bases"), nullable=False, index=True
    ),
    sa.Column("position", sa.Integer, nullable=False),
)

kb_documents = record_table(
    "kb_documents",
    sa.Column(
        "knowledge_base_id", sa.String(36), _fk("hub_knowledge_bases"), nullable=False, index=True
    ),
    sa.Column("topic_id", sa.String(36), nullable=True, index=True),
    sa.Column("position", sa.Integer, nullable=False),
)

kb_vectors = sa.Table(
    "hub_kb_vectors",
    metadata,
    sa.Column("document_id", sa.String(36), _fk("hub_kb_documents"), primary_key=True),
    sa.Column(
        "knowledge_base_id", sa.String(36), _fk("hub_knowledge_bases"), nullable=False, index=True
    ),
    sa.Column("model", sa.String(200), nullable=False),
    sa.Column("dimensions", sa.Integer, nullable=False),
    sa.Column("vector", sa.LargeBinary, nullable=False),
)

project_scenarios = record_table(
    "project_scenarios", _project(), sa.Column("name", sa.String(200), nullable=False)
)

scheduled_evaluations = record_table(
    "scheduled_evaluations",
    _project(),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("paused", sa.Boolean, nullable=False),
    sa.Column("last_execution_at", UTCDateTime, nullable=True),
)

tasks = record_table(
    "tasks",
    _project(),
    sa.Column("status", sa.String(16), nullable=False, index=True),
    sa.Column("priority", sa.String(8), nullable=False),
)

playground_chats = record_table(
    "playground_chats", _project(), sa.Column("agent_id", sa.String(36), nullable=True)
)
