"""Opening the Hub's database (SQLite file, SQLite in memory, PostgreSQL) and running transactions.

Writes are transactional (``with db.write() as conn``). On SQLite they take ``BEGIN IMMEDIATE`` (so two
processes never deadlock upgrading a read lock) and a process-wide lock (so threads and async tasks
of one process queue instead of failing with "database is locked"); the file is in WAL mode, so readers
never wait for writers. PostgreSQL needs neither: its own transactions isolate concurrent writers.

When another program holds the file's write lock, taking it is retried with backoff for up to
``lock_timeout`` seconds (default 120, or ``$GISKARD_NB_LOCK_TIMEOUT``); then a ``HubError`` names the
file and what to do.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from giskard_nb.config import home_dir
from giskard_nb.errors import ConfigError, HubError, HubStorageError
from giskard_nb.hub import schema
from giskard_nb.hub.migrate import (
    TABLE_LAYOUT,
    add_missing_columns,
    add_missing_indexes,
    fill_result_reasons,
    key_results_by_repeat,
    upgrade_records,
)
from giskard_nb.hub.models.base import SCHEMA_VERSION
from giskard_nb.hub.secrets import mask_url
from giskard_nb.hub.storage_errors import first_line, is_locked, storage_error

__all__ = ["Database", "resolve_url"]

_MEMORY = ("sqlite://", "sqlite:///:memory:", ":memory:")
_DEFAULT_LOCK_TIMEOUT = 120.0
_CHECKPOINT_PAGES = 8192  # pages of the write-ahead log before SQLite copies it into the file
_BUSY_MS = 1000  # SQLite's own wait per attempt; the retries below add backoff and the clear error


def resolve_url(url: str | os.PathLike[str] | None) -> str:
    """The SQLAlchemy URL for ``Hub(url)``: ``None`` → ``$GISKARD_NB_HUB_URL`` → ``<home>/hub.db``;
    ``":memory:"``; a file path; or a database URL (``postgresql://`` uses the psycopg driver)."""
    if url is None:
        url = os.environ.get("GISKARD_NB_HUB_URL") or None
    if url is None:
        return f"sqlite:///{home_dir() / 'hub.db'}"
    text = os.fspath(url).strip()
    if not text:
        raise ConfigError("the Hub URL is empty: give a path, ':memory:' or a database URL")
    if text in _MEMORY:
        return "sqlite://"
    if "://" in text:
        scheme, rest = text.split("://", 1)
        if scheme in ("postgresql", "postgres"):
            return f"postgresql+psycopg://{rest}"
        return text
    path = Path(text).expanduser().resolve()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise HubStorageError(
            f"cannot create the folder {str(path.parent)!r} of the Hub database ({exc.strerror}): "
            "choose a path you may write to",
            reason="read_only",
        ) from None
    return f"sqlite:///{path}"


class Database:
    """An engine, the tables, and transactions. One per ``Hub``."""

    def __init__(self, url: str):
        self.url = url
        self.engine = _create_engine(url)
        self.dialect = self.engine.dialect.name
        self.is_memory = url == "sqlite://"
        self._lock = threading.RLock() if self.dialect == "sqlite" else None
        #: Seconds to keep retrying for a write lock another program holds on the SQLite file.
        self.lock_timeout = _lock_timeout()
        try:
            self._prepare()
        except HubError:
            self.engine.dispose()
            raise
        except sa.exc.OperationalError as exc:
            self.engine.dispose()
            error = storage_error(exc, url, "opening it")
            if error.reason != "other":
                raise error from None
            raise HubError(
                f"cannot open the Hub database {mask_url(url)}: {first_line(exc)}. Check the URL, "
                "that the server is running and that you may connect to it."
            ) from None
        except (sa.exc.SQLAlchemyError, OSError) as exc:
            self.engine.dispose()
            raise storage_error(exc, url, "opening it") from None

    def _prepare(self) -> None:
        with self.write() as conn:
            schema.metadata.create_all(conn)
            _upgrade_layout(conn)
            row = conn.execute(
                sa.select(schema.meta.c.value).where(schema.meta.c.key == "schema_version")
            ).first()
            version = None if row is None else _version(row[0], self.url)
            if version is None:
                conn.execute(
                    schema.meta.insert().values(key="schema_version", value=str(SCHEMA_VERSION))
                )
            elif version > SCHEMA_VERSION:
                raise HubError(
                    f"the Hub database {mask_url(self.url)} was written by a newer giskard-nb (schema "
                    f"version {row[0]}; this version reads up to {SCHEMA_VERSION}): upgrade "
                    "giskard-nb (pip install -U giskard-nb)"
                )
            elif version < SCHEMA_VERSION:  # records of an older shape: rewritten once
                upgrade_records(conn, SCHEMA_VERSION)
                conn.execute(
                    sa.update(schema.meta)
                    .where(schema.meta.c.key == "schema_version")
                    .values(value=str(SCHEMA_VERSION))
                )

    @contextmanager
    def write(self) -> Iterator[sa.Connection]:
        """A write transaction: committed when the block ends, rolled back if it raises."""
        with self._lock or nullcontext():
            try:
                conn, transaction = self._begin_write()
                with conn, transaction:
                    yield conn
            except sa.exc.SQLAlchemyError as exc:
                raise storage_error(exc, self.url, "writing") from None

    def _begin_write(self) -> tuple[sa.Connection, sa.RootTransaction]:
        """A connection in a write transaction; on a locked SQLite file, retried with backoff."""
        start = time.monotonic()
        delay = 0.05
        while True:
            conn: sa.Connection | None = None
            try:
                conn = self.engine.connect()
                conn.execution_options(hub_write=True)
                return conn, conn.begin()
            except sa.exc.OperationalError as exc:
                if conn is not None:
                    conn.close()
                if self.dialect != "sqlite" or not is_locked(exc):
                    raise
                waited = time.monotonic() - start
                if waited >= self.lock_timeout:
                    raise HubError(
                        f"the Hub database {mask_url(self.url)} is locked: another program has held "
                        f"its write lock for more than {waited:.0f} s. Close or finish what is "
                        "writing to it (another notebook or script using this Hub, a database "
                        "browser), or wait longer with GISKARD_NB_LOCK_TIMEOUT=<seconds>."
                    ) from None
                time.sleep(min(delay, max(self.lock_timeout - waited, 0.0)))
                delay = min(delay * 2, 1.0)

    @contextmanager
    def read(self) -> Iterator[sa.Connection]:
        """A read-only connection (a consistent snapshot while the block runs)."""
        guard = self._lock if self.is_memory else None
        with guard or nullcontext():
            try:
                with self.engine.connect() as conn:
                    yield conn
            except sa.exc.SQLAlchemyError as exc:
                raise storage_error(exc, self.url, "reading") from None

    def close(self) -> None:
        self.engine.dispose()

    def drop_all(self) -> None:
        """Delete every Hub table and its data (used by tests and ``Hub.destroy``)."""
        with self.write() as conn:
            schema.metadata.drop_all(conn)


def _create_engine(url: str) -> sa.Engine:
    try:
        if url.startswith("sqlite"):
            return _sqlite_engine(url)
        return sa.create_engine(url, pool_pre_ping=True)
    except ModuleNotFoundError as exc:
        hint = " (pip install 'giskard-nb[postgres]')" if url.startswith("postgres") else ""
        raise ConfigError(
            f"the database driver for {mask_url(url)} is not installed: {exc.name}{hint}"
        ) from None
    except sa.exc.ArgumentError as exc:
        raise ConfigError(f"invalid Hub database URL {mask_url(url)}: {exc}") from None


def _sqlite_engine(url: str) -> sa.Engine:
    memory = url == "sqlite://"
    kwargs: dict[str, Any] = {
        "connect_args": {"check_same_thread": False, "timeout": _BUSY_MS / 1000}
    }
    if memory:
        kwargs["poolclass"] = sa.pool.StaticPool
    engine = sa.create_engine(url, **kwargs)

    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # we emit BEGIN ourselves (see _on_begin)
        cursor = dbapi_conn.cursor()
        if not memory:
            cursor.execute("PRAGMA journal_mode=WAL")
            # checkpoint the log every ~32 MB rather than 4 MB: an evaluation storing results in
            # batches would otherwise pay a checkpoint (and its fsync) every few transactions
            cursor.execute(f"PRAGMA wal_autocheckpoint={_CHECKPOINT_PAGES}")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={_BUSY_MS}")
        cursor.close()

    @sa.event.listens_for(engine, "begin")
    def _on_begin(conn: sa.Connection) -> None:
        write = conn.get_execution_options().get("hub_write")
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

    return engine


def _upgrade_layout(conn: sa.Connection) -> None:
    """Bring an older file's tables up to ``TABLE_LAYOUT`` (new nullable columns, empty; new indexes)
    and record it in ``hub_meta`` (never lowered: a newer layout is left as it is)."""
    key = schema.meta.c.key == "table_layout"
    stored = conn.execute(sa.select(schema.meta.c.value).where(key)).scalar()
    if stored is not None and int(stored) >= TABLE_LAYOUT:
        return
    add_missing_columns(conn, schema.metadata)
    add_missing_indexes(conn, schema.metadata)
    fill_result_reasons(conn)  # layout 5: the reason of results written before it
    key_results_by_repeat(conn)  # layout 8: results keyed by (evaluation, test case, repeat)
    if stored is None:
        conn.execute(schema.meta.insert().values(key="table_layout", value=str(TABLE_LAYOUT)))
    else:
        conn.execute(sa.update(schema.meta).where(key).values(value=str(TABLE_LAYOUT)))


def _version(value: object, url: str) -> int:
    try:
        return int(str(value))
    except ValueError:
        raise HubStorageError(
            f"the Hub database {mask_url(url)} is damaged: its schema_version is {str(value)[:40]!r}, "
            "not a version number. Restore the file from a backup, or move it away to start a new Hub",
            reason="corrupt",
        ) from None


def _lock_timeout() -> float:
    text = os.environ.get("GISKARD_NB_LOCK_TIMEOUT", "").strip()
    try:
        return max(float(text), 0.0) if text else _DEFAULT_LOCK_TIMEOUT
    except ValueError:
        raise ConfigError(
            f"GISKARD_NB_LOCK_TIMEOUT must be a number of seconds, got {text!r}"
        ) from None
