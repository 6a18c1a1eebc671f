"""Bringing an older Hub database up to this version's tables and records, when it is opened.

Tables: new tables are created by ``metadata.create_all``. New columns of existing tables are nullable
(a rule for every schema change), so an older database gains them with ``ALTER TABLE ... ADD COLUMN``,
empty; what older rows lack is read as "not recorded". ``hub_meta`` keeps the layout version
(``table_layout``) the file was last brought up to.

Records: a record carries the schema version it was written with. When a file's ``schema_version``
(in ``hub_meta``) is older than this version's, the records whose shape changed are rewritten in the
new shape (``RECORD_UPGRADES``, one function per table), in the opening transaction, and the file's
version is raised. From then on older versions of giskard-nb refuse the file with a clear message
(upgrade giskard-nb); rows they still write meanwhile are read in their old shape too.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

import sqlalchemy as sa

__all__ = [
    "RECORD_UPGRADES",
    "TABLE_LAYOUT",
    "add_missing_columns",
    "add_missing_indexes",
    "fill_result_reasons",
    "key_results_by_repeat",
    "upgrade_evaluation_results",
    "upgrade_records",
]

#: The version of the tables' layout (2: owner host, pid and heartbeat of evaluations and scans;
#: 3: the index columns of evaluation results and their listing index; 4: the evidence tier of scan
#: attempts, ``hub_scan_attempts.evidence``, NULL in older rows: their tier is read from their data;
#: 5: ``hub_evaluation_results.reason``, filled for older rows when the file is opened:
#: ``fill_result_reasons``; 6: ``hub_evaluation_results.tool_calls``, the trajectory, NULL in older
#: rows: they were written before tool calls were recorded, read as none; 7: ``hub_result_labels``,
#: human labels on check verdicts, a new table: empty in an older file; 8: the repeat index of
#: evaluation results, ``hub_evaluation_results.repeat``, 0 in older rows, and the results' unique key
#: (evaluation, test case) widened to (evaluation, test case, repeat): ``key_results_by_repeat``).
TABLE_LAYOUT = 8

_BATCH = 1000
logger = logging.getLogger(__name__)


def _stored_tables(conn: sa.Connection, metadata: sa.MetaData) -> Iterator[tuple[Any, sa.Table]]:
    """The tables of ``metadata`` the database already has, with an inspector of it."""
    inspector = sa.inspect(conn)
    existing = set(inspector.get_table_names())
    for table in metadata.sorted_tables:
        if table.name in existing:
            yield inspector, table


def add_missing_columns(conn: sa.Connection, metadata: sa.MetaData) -> list[str]:
    """Add to the database every nullable column ``metadata`` has and its tables lack; returns them
    as ``"table.column"``."""
    added = []
    for inspector, table in _stored_tables(conn, metadata):
        present = {c["name"] for c in inspector.get_columns(table.name)}
        for column in table.columns:
            if column.name in present:
                continue
            if not column.nullable:  # pragma: no cover - a rule for whoever changes the schema
                raise RuntimeError(f"new column {table.name}.{column.name} must be nullable")
            kind = column.type.compile(dialect=conn.dialect)
            conn.exec_driver_sql(f'ALTER TABLE {table.name} ADD COLUMN "{column.name}" {kind}')
            added.append(f"{table.name}.{column.name}")
    return added


def add_missing_indexes(conn: sa.Connection, metadata: sa.MetaData) -> list[str]:
    """Create every index ``metadata`` declares and the database's existing tables lack; returns
    their names."""
    added = []
    for inspector, table in _stored_tables(conn, metadata):
        present = {i["name"] for i in inspector.get_indexes(table.name)}
        for index in table.indexes:
            if index.name not in present:
                index.create(conn)
                added.append(str(index.name))
    return added


def _rewrite(
    conn: sa.Connection,
    where: Any,
    update: Any,
    convert: Callable[[Any], dict[str, Any]],
    what: str,
) -> int:
    """Rewrite the evaluation results matching ``where``, ``_BATCH`` rows at a time in id order: each
    row's ``convert(row)`` gives the parameters of ``update``. A row that cannot be read is left as it
    is (reading it later says why) and logged with ``what``. Returns how many were rewritten."""
    from giskard_nb.hub import schema

    t = schema.results
    done, last = 0, ""
    while True:
        query = sa.select(t).where(where, t.c.id > last).order_by(t.c.id).limit(_BATCH)
        rows = conn.execute(query).mappings().all()
        if not rows:
            return done
        last = rows[-1]["id"]
        updates = []
        for row in rows:
            try:
                updates.append(convert(row))
            except Exception as exc:  # a damaged row: kept, reading it reports the problem
                logger.warning("evaluation result %s: %s: %s", row["id"], what, exc)
        if updates:
            conn.execute(update, updates)
            done += len(updates)


def upgrade_evaluation_results(conn: sa.Connection, below: int) -> int:
    """Rewrite evaluation results written before schema version 2 (which copied status, checks,
    usage... beside their ScenarioResult) as version-2 rows with their index columns; returns how
    many. A row that cannot be read is left as it is (reading it later says why)."""
    from giskard_nb.hub import schema
    from giskard_nb.hub.result_rows import read_model, result_row

    t = schema.results
    return _rewrite(
        conn,
        t.c.schema_version < below,
        sa.update(t).where(t.c.id == sa.bindparam("old_id")),
        lambda row: {**result_row(read_model(row)), "old_id": row["id"]},
        "left unconverted",
    )


def fill_result_reasons(conn: sa.Connection) -> int:
    """Store the reason (and the error, filled for a check that errored) of every evaluation result
    that did not pass and has none: rows written before table layout 5. Returns how many. A row that
    cannot be read is left as it is (the results frame reads it through its model, which says why)."""
    from giskard_nb.hub import schema
    from giskard_nb.hub.result_rows import read_model

    def convert(row: Any) -> dict[str, Any]:
        result = read_model(row)
        return {"row_id": row["id"], "new_reason": result.reason, "new_error": result.error}

    t = schema.results
    return _rewrite(
        conn,
        sa.and_(t.c.reason.is_(None), t.c.status != "pass"),
        sa.update(t)
        .where(t.c.id == sa.bindparam("row_id"))
        .values(reason=sa.bindparam("new_reason"), error=sa.bindparam("new_error")),
        convert,
        "reason not stored",
    )


def key_results_by_repeat(conn: sa.Connection) -> bool:
    """Table layout 8: every evaluation result gets a repeat index (0 for those written before it) and
    the results' unique key becomes (evaluation, test case, repeat), so that an evaluation with
    ``repeats=k`` stores k results per test case. Returns whether the key had to be changed.

    PostgreSQL swaps the constraint. SQLite cannot change a table's constraints: the table is rebuilt
    in this transaction (created under a new name, rows copied, the old one dropped, the new one
    renamed, its indexes created), with the human labels, which refer to results, set aside
    meanwhile (they are few) and put back as they were."""
    from giskard_nb.hub import schema

    t = schema.results
    conn.execute(sa.update(t).where(t.c.repeat.is_(None)).values(repeat=0))
    unique = {u["name"] for u in sa.inspect(conn).get_unique_constraints(t.name)}
    if "uq_hub_results_repeat" in unique:
        return False
    key = next(c for c in t.constraints if c.name == "uq_hub_results_repeat")
    if conn.dialect.name != "sqlite":
        if "uq_hub_results_test_case" in unique:
            conn.exec_driver_sql(f"ALTER TABLE {t.name} DROP CONSTRAINT uq_hub_results_test_case")
        conn.exec_driver_sql(f'ALTER TABLE {t.name} ALTER COLUMN "repeat" SET DEFAULT 0')
        conn.execute(sa.schema.AddConstraint(key))
        return True
    labels = schema.result_labels
    kept = [dict(row) for row in conn.execute(sa.select(labels)).mappings()]
    labels.drop(conn)
    new = f"{t.name}_layout{TABLE_LAYOUT}"
    create = str(sa.schema.CreateTable(t).compile(dialect=conn.dialect))
    conn.exec_driver_sql(create.replace(f"TABLE {t.name} ", f"TABLE {new} ", 1))
    columns = ", ".join(f'"{c.name}"' for c in t.columns)
    conn.exec_driver_sql(f"INSERT INTO {new} ({columns}) SELECT {columns} FROM {t.name}")
    conn.exec_driver_sql(f"DROP TABLE {t.name}")
    conn.exec_driver_sql(f"ALTER TABLE {new} RENAME TO {t.name}")
    for index in t.indexes:
        index.create(conn)
    labels.create(conn)
    if kept:
        conn.execute(labels.insert(), kept)
    return True


#: Per table: how its records are brought up to this schema version (``fn(conn, below=version)``).
RECORD_UPGRADES: dict[str, Callable[[sa.Connection, int], int]] = {
    "hub_evaluation_results": upgrade_evaluation_results,
}


def upgrade_records(conn: sa.Connection, version: int) -> dict[str, int]:
    """Rewrite every record older than ``version`` whose table has an upgrade; returns the number
    rewritten per table."""
    return {table: upgrade(conn, version) for table, upgrade in RECORD_UPGRADES.items()}
