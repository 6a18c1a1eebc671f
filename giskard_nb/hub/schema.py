"""The Hub's tables (SQLAlchemy Core), shared by SQLite and PostgreSQL.

Every record table has the same spine: ``id``, ``schema_version``, ``created_at``, ``updated_at``, a few
real columns used to filter and join, and ``data``: the rest of the record as JSON text. A new resource
adds its table with ``record_table(name, *columns)``.
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa

from giskard_nb.hub.result_columns import RESULT_COLUMNS

__all__ = [
    "UTCDateTime",
    "agents",
    "audit_log",
    "checks",
    "comments",
    "datasets",
    "evaluations",
    "meta",
    "metadata",
    "projects",
    "record_table",
    "result_index_columns",
    "result_labels",
    "results",
    "run_owner_columns",
    "test_cases",
]

metadata = sa.MetaData()


class UTCDateTime(sa.types.TypeDecorator):
    """A timestamp stored in UTC and always read back timezone-aware (also on SQLite)."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _fk(table: str, ondelete: str = "CASCADE") -> sa.ForeignKey:
    return sa.ForeignKey(f"{table}.id", ondelete=ondelete)


def record_table(name: str, *columns: sa.schema.SchemaItem) -> sa.Table:
    """A table of Hub records named ``hub_<name>`` with the common spine and ``columns``."""
    return sa.Table(
        f"hub_{name}",
        metadata,
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("schema_version", sa.Integer, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        *columns,
        sa.Column("data", sa.Text, nullable=False),
    )


def run_owner_columns() -> list[sa.Column]:
    """Who runs a record (an evaluation, a scan): host, pid and heartbeat (``hub.ledger``).
    Nullable, so that older databases gain them empty (``hub.migrate``)."""
    return [
        sa.Column("owner_host", sa.String(255), nullable=True),
        sa.Column("owner_pid", sa.Integer, nullable=True),
        sa.Column("heartbeat_at", UTCDateTime, nullable=True),
    ]


_INDEX_TYPES = {"text": sa.Text, "integer": sa.Integer, "float": sa.Float}


def result_index_columns() -> list[sa.Column]:
    """What the results' DataFrame and summaries read without parsing the ScenarioResult, extracted
    when a result is written (``giskard_nb.hub.result_rows``): the index columns that
    ``giskard_nb.hub.result_columns`` declares (the conversation, question, reply and its metadata,
    the error and the reason, the tags, the failure category's title and source, check counts,
    duration and usage). The reason is filled for older rows when the file is opened, and a row an
    older version writes without it is read through its model. Nullable (table layout 3), so that
    older databases gain them empty (``hub.migrate``)."""
    return [
        sa.Column(c.name, _INDEX_TYPES[c.kind], nullable=True) for c in RESULT_COLUMNS if c.index
    ]


meta = sa.Table(
    "hub_meta",
    metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)

projects = record_table("projects", sa.Column("name", sa.String(200), nullable=False))

agents = record_table(
    "agents",
    sa.Column("project_id", sa.String(36), _fk("hub_projects"), nullable=False, index=True),
    sa.Column("name", sa.String(200), nullable=False),
)

datasets = record_table(
    "datasets",
    sa.Column("project_id", sa.String(36), _fk("hub_projects"), nullable=False, index=True),
    sa.Column("name", sa.String(200), nullable=False),
)

test_cases = record_table(
    "test_cases",
    sa.Column("dataset_id", sa.String(36), _fk("hub_datasets"), nullable=False, index=True),
    sa.Column("project_id", sa.String(36), nullable=False),
    sa.Column("position", sa.Integer, nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
)

comments = record_table(
    "test_case_comments",
    sa.Column("test_case_id", sa.String(36), _fk("hub_test_cases"), nullable=False, index=True),
)

checks = record_table(
    "checks",
    sa.Column("project_id", sa.String(36), _fk("hub_projects"), nullable=False, index=True),
    sa.Column("identifier", sa.String(200), nullable=False),
    sa.UniqueConstraint("project_id", "identifier", name="uq_hub_checks_identifier"),
)

evaluations = record_table(
    "evaluations",
    sa.Column("project_id", sa.String(36), _fk("hub_projects"), nullable=False, index=True),
    sa.Column("dataset_id", sa.String(36), nullable=False, index=True),
    sa.Column("agent_id", sa.String(36), nullable=True),
    sa.Column("status", sa.String(16), nullable=False),
    *run_owner_columns(),
)

results = record_table(
    "evaluation_results",
    sa.Column("evaluation_id", sa.String(36), _fk("hub_evaluations"), nullable=False),
    sa.Column("test_case_id", sa.String(36), nullable=False),
    #: Which run of its test case this is (0..k-1 in an evaluation with ``repeats=k``; table layout
    #: 8). Nullable by the rule of new columns; every row has one (older rows get 0 when the file is
    #: opened, and a row written without one gets the default).
    sa.Column("repeat", sa.Integer, nullable=True, server_default=sa.text("0")),
    sa.Column("status", sa.String(8), nullable=False),
    sa.Column("failure_category", sa.String(100), nullable=True),
    sa.Column("scenario_result", sa.Text, nullable=False),
    *result_index_columns(),
    sa.UniqueConstraint("evaluation_id", "test_case_id", "repeat", name="uq_hub_results_repeat"),
    sa.Index(
        "ix_hub_results_order", "evaluation_id", "created_at", "id"
    ),  # listing order (layout 3)
)

#: Human labels on check verdicts (table layout 7): one person's verdict on one check of one result.
#: ``key`` (the conversation digest, ``core.labels.result_key``) lets a label apply to every result of the same
#: conversation: its re-scores and repeats.
result_labels = record_table(
    "result_labels",
    sa.Column("project_id", sa.String(36), nullable=False),
    sa.Column("evaluation_id", sa.String(36), _fk("hub_evaluations"), nullable=False, index=True),
    sa.Column(
        "result_id", sa.String(36), _fk("hub_evaluation_results"), nullable=False, index=True
    ),
    sa.Column("key", sa.String(32), nullable=False, index=True),
    sa.Column("check", sa.String(200), nullable=False),
    sa.Column("labeler", sa.String(200), nullable=False),
)

audit_log = sa.Table(
    "hub_audit_log",
    metadata,
    sa.Column("id", sa.String(36), primary_key=True),
    sa.Column("schema_version", sa.Integer, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False, index=True),
    sa.Column("actor", sa.String(200), nullable=False),
    sa.Column("action", sa.String(16), nullable=False),
    sa.Column("entity_type", sa.String(64), nullable=False),
    sa.Column("entity_id", sa.String(36), nullable=False, index=True),
    sa.Column("project_id", sa.String(36), nullable=True),
    sa.Column("triggered_by", sa.String(36), nullable=True),
    sa.Column("data", sa.Text, nullable=False),
)
