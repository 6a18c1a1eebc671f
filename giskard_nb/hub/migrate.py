"""Bringing an older Hub database up to this version's tables, when it is opened.

New tables are created by ``metadata.create_all``. New columns of existing tables are nullable (a
rule for every schema change), so an older database gains them with ``ALTER TABLE ... ADD COLUMN``,
empty; what older rows lack is read as "not recorded". Older versions of giskard-nb keep opening the
upgraded file: they select their own columns and never see the new ones. ``hub_meta`` keeps the
layout version (``table_layout``) the file was last brought up to.
"""

from __future__ import annotations

import sqlalchemy as sa

__all__ = ["TABLE_LAYOUT", "add_missing_columns"]

#: The version of the tables' layout (2: owner host, pid and heartbeat of evaluations and scans).
TABLE_LAYOUT = 2


def add_missing_columns(conn: sa.Connection, metadata: sa.MetaData) -> list[str]:
    """Add to the database every nullable column ``metadata`` has and its tables lack; returns them
    as ``"table.column"``."""
    inspector = sa.inspect(conn)
    existing_tables = set(inspector.get_table_names())
    added = []
    for table in metadata.sorted_tables:
        if table.name not in existing_tables:
            continue
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
