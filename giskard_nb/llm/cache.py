"""The on-disk response cache: identical deterministic model calls are answered from SQLite, for free.

File: ``giskard_nb.config.home_dir() / "llm_cache.sqlite"`` (``$GISKARD_NB_HOME``, default ``~/.giskard_nb``).
Key: a SHA-256 of the model, the API base, the messages, the parameters that change the reply and the
requested output schema, so any change to a prompt or a setting is a miss. API keys are never part of a
key or a stored value. What is stored: the reply text and its original token usage.

When it is used: completions at temperature 0 (what LLM checks send by default) unless the Generator says
``cache=False``; ``cache=True`` caches whatever the temperature. Embeddings from a litellm model are cached
per text. ``GISKARD_NB_LLM_CACHE=0`` switches the cache off everywhere. A cache that cannot be opened or
written (read-only disk, locked file) is skipped with a warning: it never fails a call.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = [
    "SCHEMA_VERSION",
    "cache_enabled",
    "cache_info",
    "cache_key",
    "cache_path",
    "clear_cache",
]

log = logging.getLogger("giskard_nb.llm")

#: Bumped when the stored format changes; files of another version are left alone (and not used).
SCHEMA_VERSION = 1
_DDL = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    model TEXT NOT NULL,
    value TEXT NOT NULL,
    created REAL NOT NULL
)
"""
_MAX_OPEN = 4
_lock = threading.RLock()
_connections: dict[str, sqlite3.Connection] = {}
_hits = {"count": 0}


def cache_enabled() -> bool:
    """False when ``GISKARD_NB_LLM_CACHE`` is ``0``/``false``/``off``/``no``."""
    return os.environ.get("GISKARD_NB_LLM_CACHE", "1").strip().lower() not in (
        "0",
        "false",
        "off",
        "no",
    )


def cache_path() -> Path:
    from giskard_nb.config import home_dir

    return home_dir() / "llm_cache.sqlite"


def cache_key(kind: str, payload: dict[str, Any]) -> str:
    """A stable SHA-256 of ``payload`` (canonical JSON; unserializable leaves use ``repr``)."""
    text = json.dumps([kind, payload], sort_keys=True, ensure_ascii=False, default=repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@contextmanager
def _database() -> Iterator[sqlite3.Connection | None]:
    """The open connection to the current cache file (None when unusable), held under a lock.

    One connection per file, shared by threads and kept open (opening costs more than a lookup);
    a file deleted meanwhile is recreated.
    """
    path = str(cache_path())
    with _lock:
        conn = _connections.get(path)
        if conn is not None and not os.path.exists(path):
            _connections.pop(path).close()
            conn = None
        if conn is None:
            conn = _open(path)
            if conn is None:
                yield None
                return
            _connections[path] = conn
            while len(_connections) > _MAX_OPEN:
                _connections.pop(next(iter(_connections))).close()
        yield conn


def _open(path: str) -> sqlite3.Connection | None:
    conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version not in (0, SCHEMA_VERSION):
        conn.close()
        log.warning(
            "the LLM cache %s has format version %s (this giskard-nb writes %s): not using it; "
            "delete the file or point GISKARD_NB_HOME elsewhere",
            path,
            version,
            SCHEMA_VERSION,
        )
        return None
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")  # a cache: durability of the last write is not vital
    if version == 0:
        conn.execute(_DDL)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    return conn


@atexit.register
def _close_all() -> None:
    with _lock:
        while _connections:
            _connections.popitem()[1].close()


def get(key: str) -> dict[str, Any] | None:
    """The stored value for ``key`` (None on a miss or when the cache is unusable)."""
    try:
        with _database() as conn:
            if conn is None:
                return None
            row = conn.execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        _hits["count"] += 1
        return json.loads(row[0])
    except (sqlite3.Error, OSError, ValueError) as exc:
        log.warning("LLM cache read failed (%s): calling the model instead", exc)
        return None


def put(key: str, *, kind: str, model: str, value: dict[str, Any]) -> None:
    """Store ``value`` under ``key`` (best effort)."""
    try:
        text = json.dumps(value, ensure_ascii=False)
        with _database() as conn:
            if conn is None:
                return
            conn.execute(
                "INSERT OR REPLACE INTO responses (key, kind, model, value, created) "
                "VALUES (?, ?, ?, ?, ?)",
                (key, kind, model, text, time.time()),
            )
    except (sqlite3.Error, OSError, TypeError, ValueError) as exc:
        log.warning("LLM cache write failed (%s): the reply is not cached", exc)


def clear_cache() -> int:
    """Delete every cached reply; return how many there were."""
    try:
        with _database() as conn:
            if conn is None:
                return 0
            return conn.execute("DELETE FROM responses").rowcount
    except sqlite3.Error as exc:
        log.warning("LLM cache clear failed (%s)", exc)
        return 0


def cache_info() -> dict[str, Any]:
    """Where the cache lives and what it holds: ``{"path", "entries", "by_kind", "hits"}``.

    ``hits`` counts the replies this process took from the cache.
    """
    info: dict[str, Any] = {
        "path": str(cache_path()),
        "entries": 0,
        "by_kind": {},
        "hits": _hits["count"],
    }
    try:
        with _database() as conn:
            if conn is None:
                return info
            rows = conn.execute("SELECT kind, COUNT(*) FROM responses GROUP BY kind").fetchall()
        for kind, count in rows:
            info["by_kind"][kind] = count
            info["entries"] += count
    except sqlite3.Error as exc:
        log.warning("LLM cache unreadable (%s)", exc)
    return info
