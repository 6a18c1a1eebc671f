"""The base of every Hub resource (``hub.projects``, ``hub.agents``...): storage, CRUD and audit.

A resource names its model, its table and the model fields kept as real columns; everything else is
stored as JSON in ``data``. Subclasses add ``create``/``update``/``list`` with typed, keyword-only
parameters and call the helpers here, which run in one transaction and write the audit entry with it.

A resource is built with the Hub's store (``giskard_nb.hub.store``): the database, the actor, the
secrets file, the audit writer and the other resources' public methods. ``insert_records`` stores
records of one resource inside another's write transaction (an upload, a generated dataset).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

import sqlalchemy as sa
from pydantic_core import from_json

from giskard_nb.errors import GiskardValidationError, HubError, NotFoundError
from giskard_nb.hub.audit import diff_fields
from giskard_nb.hub.models.base import (
    SCHEMA_VERSION,
    VALID_UNICODE,
    HubRecord,
    build,
    utcnow,
)
from giskard_nb.hub.storage_errors import bad_row
from giskard_nb.hub.store import Store

if TYPE_CHECKING:
    from giskard_nb.hub.db import Database

__all__ = ["Resource", "insert_records"]

R = TypeVar("R", bound=HubRecord)
_SPINE = ("id", "schema_version", "created_at", "updated_at")
_REVEAL = {"reveal_secrets": True}


class Resource(Generic[R]):
    """CRUD over one table of records. Subclasses set the class attributes below."""

    entity_type: ClassVar[str]
    model: ClassVar[type[HubRecord]]
    table: ClassVar[sa.Table]
    #: Model fields stored as table columns (filters, joins); the rest goes to ``data``.
    columns: ClassVar[tuple[str, ...]] = ()
    #: Model fields stored as their own JSON text column (large payloads read only when needed).
    json_columns: ClassVar[tuple[str, ...]] = ()
    #: Fields shown in a create/delete audit entry (``None``: all of them).
    audit_fields: ClassVar[tuple[str, ...] | None] = None
    #: Fields whose every value is a secret (besides secret-named keys anywhere): moved to the
    #: secrets file when written, a ``${secret:<id>}`` reference stored instead.
    secret_fields: ClassVar[tuple[str, ...]] = ()
    #: What the store's public view of the resources lists (``store.resources``).
    is_hub_resource: ClassVar[bool] = True

    def __init__(self, store: Store):
        if not isinstance(store, Store):
            raise TypeError(
                f"{type(self).__name__} takes the Hub's store (giskard_nb.hub.store.Store), got "
                f"{type(store).__name__}"
            )
        self._store = store

    @property
    def _db(self) -> Database:
        return self._store.db

    # -- public ----------------------------------------------------------------------------------------

    def retrieve(self, id: str) -> R:
        """The record with this id (``NotFoundError`` if there is none)."""
        with self._db.read() as conn:
            return self._get(conn, id)

    def delete(self, id: str) -> None:
        """Delete the record (and what belongs to it)."""
        with self._db.write() as conn:
            record = self._get(conn, id)
            self._delete_children(conn, record)
            conn.execute(sa.delete(self.table).where(self.table.c.id == id))
            self._audit(conn, "delete", record, self._audit_view(record))
        self._store.secrets.forget(record.model_dump(mode="json", context=_REVEAL))

    def ids_matching(self, part: str, *, limit: int = 10) -> list[str]:
        """At most ``limit`` ids of this resource that start or end with ``part`` (at least four
        characters, case-insensitive): what a short id a user typed may refer to."""
        part = part.strip().lower()
        if len(part) < 4:
            raise GiskardValidationError(f"{part!r}: give at least 4 characters of an id")
        pattern = part.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        column = self.table.c.id
        query = (
            sa.select(column)
            .where(
                sa.or_(
                    column.like(f"{pattern}%", escape="\\"), column.like(f"%{pattern}", escape="\\")
                )
            )
            .order_by(column)
            .limit(limit)
        )
        with self._db.read() as conn:
            return list(conn.execute(query).scalars())

    def __repr__(self) -> str:
        return f"<{type(self).__name__} (hub.{self.entity_type}s)>"

    # -- helpers for subclasses ----------------------------------------------------------------------

    def _get(self, conn: sa.Connection, id: str) -> R:
        row = conn.execute(sa.select(self.table).where(self.table.c.id == id)).mappings().first()
        if row is None:
            raise NotFoundError(
                f"no {self.entity_type.replace('_', ' ')} with id {id!r} in this Hub: list them with "
                f"hub.{self.entity_type}s.list()"
            )
        return self._from_row(row)

    def _list(
        self,
        *where: Any,
        order_by: Sequence[Any] | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[R]:
        query = sa.select(self.table).where(*where)
        order = order_by if order_by is not None else (self.table.c.created_at, self.table.c.id)
        query = query.order_by(*order).offset(offset)
        if limit is not None:
            query = query.limit(limit)
        with self._db.read() as conn:
            rows = conn.execute(query).mappings().all()
        return [self._from_row(row) for row in rows]

    def _create(self, record: R, *, conn: sa.Connection | None = None) -> R:
        if conn is None:
            with self._db.write() as own:
                return self._create(record, conn=own)
        record = self._sealed(record)
        self._insert(conn, [record], audit=True)
        return self._store.bind(record)

    def _insert(self, conn: sa.Connection, records: Sequence[R], *, audit: bool) -> None:
        """Store new records in one statement (secrets moved to the secrets file); with ``audit``,
        a ``create`` entry each."""
        if records:
            conn.execute(self.table.insert(), [self._row(record) for record in records])
        if audit:
            for record in records:
                self._audit(conn, "create", record, self._audit_view(record))

    def _update(self, id: str, changes: dict[str, Any], *, conn: sa.Connection | None = None) -> R:
        """Apply ``changes`` (field → new value; validated) and record the diff."""
        if conn is None:
            with self._db.write() as own:
                return self._update(id, changes, conn=own)
        current = self._get(conn, id)
        before = current.model_dump(mode="json", context=_REVEAL)
        data = {**current.model_dump(context=_REVEAL), **changes, "updated_at": utcnow()}
        updated = build(self.model, data, self.entity_type.replace("_", " "))
        updated = self._sealed(updated, previous=current)
        after = updated.model_dump(mode="json", context=_REVEAL)
        diff = diff_fields(before, after, updated.model_dump(mode="json"))
        if not diff:
            return current
        conn.execute(
            sa.update(self.table).where(self.table.c.id == id).values(**self._row(updated))
        )
        self._audit(conn, "update", updated, diff)
        return self._store.bind(updated)

    def _delete_children(self, conn: sa.Connection, record: R) -> None:
        """Delete what the database's cascades do not cover (none by default)."""

    def _project_id(self, record: R) -> str | None:
        return getattr(record, "project_id", None)

    def _audit(
        self,
        conn: sa.Connection,
        action: str,
        record: R,
        changes: dict[str, Any],
        triggered_by: str | None = None,
    ) -> None:
        self._store.audit(
            conn,
            action=action,
            entity_type=self.entity_type,
            entity_id=record.id,
            project_id=self._project_id(record),
            changes=changes,
            triggered_by=triggered_by,
        )

    def _audit_view(self, record: R) -> dict[str, Any]:
        if self.audit_fields is None:
            return record.model_dump(mode="json")  # secrets masked
        dump = record.model_dump(mode="json", include=set(self.audit_fields))
        return {k: dump.get(k) for k in self.audit_fields}

    # -- rows <-> models -----------------------------------------------------------------------------

    def _sealed(self, record: R, *, previous: R | None = None) -> R:
        """The record with its secrets moved to the secrets file (references in their place)."""
        dump = record.model_dump(mode="json", context=_REVEAL)
        sealed = self._seal(
            dump, previous.model_dump(mode="json", context=_REVEAL) if previous else None
        )
        if sealed == dump:
            return record
        return build(self.model, sealed, self.entity_type.replace("_", " "))

    def _seal(self, dump: dict[str, Any], previous: dict[str, Any] | None = None) -> dict[str, Any]:
        store = self._store.secrets
        prev = previous or {}
        return {
            k: store.seal(v, prev.get(k), secret=k in self.secret_fields) for k, v in dump.items()
        }

    def _dump(self, record: R) -> dict[str, Any]:
        """The record as JSON-ready data, as stored: secrets are references to the secrets file."""
        return self._seal(record.model_dump(mode="json", context=_REVEAL))

    def _row(self, record: R) -> dict[str, Any]:
        dump = self._dump(record)
        row = {k: getattr(record, k) for k in (*_SPINE, *self.columns)}
        for key in self.json_columns:
            row[key] = json.dumps(dump.pop(key), separators=(",", ":"), default=str)
        data = {k: v for k, v in dump.items() if k not in _SPINE and k not in self.columns}
        row["data"] = json.dumps(data, separators=(",", ":"), default=str)
        return row

    def _from_row(self, row: Any) -> R:
        version = row["schema_version"]
        if version > SCHEMA_VERSION:
            raise HubError(
                f"{self.entity_type} {row['id']} was written by a newer giskard-nb (schema version "
                f"{version}; this one reads up to {SCHEMA_VERSION}): upgrade giskard-nb"
            )
        try:
            parsed = _Parsed()
            data = parsed.loads(row["data"])
            data.update({k: row[k] for k in (*_SPINE, *self.columns)})
            data.update({k: parsed.loads(row[k]) for k in self.json_columns})
            context = {VALID_UNICODE: True} if parsed.valid_unicode else None
            record = build(self.model, data, f"stored {self.entity_type}", context=context)
        except (ValueError, TypeError, AttributeError) as exc:  # bad JSON, a changed column
            raise bad_row(self.table.name, row["id"], str(exc)) from None
        return self._store.bind(record)


class _Parsed:
    """Reads a row's JSON columns with pydantic's reader (about 3x ``json.loads`` on a test case),
    which refuses a lone surrogate: while it reads them all, the text read is valid Unicode (a text
    column from the driver is), and ``valid_unicode`` stays true. Text it refuses is read by
    ``json.loads`` as before (the model then replaces the surrogate; JSON neither reads raises
    ``ValueError``)."""

    __slots__ = ("valid_unicode",)

    def __init__(self) -> None:
        self.valid_unicode = True

    def loads(self, text: str) -> Any:
        try:
            return from_json(text)
        except ValueError:
            self.valid_unicode = False
            return json.loads(text)


def insert_records(
    kind: type[Resource[R]],
    store: Store,
    conn: sa.Connection,
    records: Sequence[R],
    *,
    audit: bool = True,
) -> None:
    """Store new records of the resource class ``kind`` inside the caller's write transaction
    (``with store.db.write() as conn``), as ``kind`` stores them: in one statement, secrets moved to
    the secrets file, and with ``audit`` a ``create`` entry each (without: the caller writes one
    entry for the batch, as an upload does)."""
    kind(store)._insert(conn, records, audit=audit)
