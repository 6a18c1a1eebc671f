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

import hashlib
import json
import logging
import os
import sqlite3
import time
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
    created REAL NOT NULL,
    hits INTEGER NOT NULL DEFAULT 0
)
"""


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


def _connect() -> sqlite3.Connection | None:
    path = cache_path()
    conn = sqlite3.connect(path, timeout=30, isolation_level=None)
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version == SCHEMA_VERSION:
        return conn
    if version != 0:
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
    conn.execute(_DDL)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    return conn


def get(key: str) -> dict[str, Any] | None:
    """The stored value for ``key`` (None on a miss or when the cache is unusable)."""
    try:
        conn = _connect()
        if conn is None:
            return None
        try:
            row = conn.execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
            if row is None:
                return None
            conn.execute("UPDATE responses SET hits = hits + 1 WHERE key = ?", (key,))
        finally:
            conn.close()
        return json.loads(row[0])
    except (sqlite3.Error, OSError, ValueError) as exc:
        log.warning("LLM cache read failed (%s): calling the model instead", exc)
        return None


def put(key: str, *, kind: str, model: str, value: dict[str, Any]) -> None:
    """Store ``value`` under ``key`` (best effort)."""
    try:
        conn = _connect()
        if conn is None:
            return
        try:
            conn.execute(
                "INSERT OR REPLACE INTO responses (key, kind, model, value, created) VALUES (?, ?, ?, ?, ?)",
                (key, kind, model, json.dumps(value, ensure_ascii=False), time.time()),
            )
        finally:
            conn.close()
    except (sqlite3.Error, OSError, TypeError, ValueError) as exc:
        log.warning("LLM cache write failed (%s): the reply is not cached", exc)


def clear_cache() -> int:
    """Delete every cached reply; return how many there were."""
    try:
        conn = _connect()
        if conn is None:
            return 0
        try:
            return conn.execute("DELETE FROM responses").rowcount
        finally:
            conn.close()
    except sqlite3.Error as exc:
        log.warning("LLM cache clear failed (%s)", exc)
        return 0


def cache_info() -> dict[str, Any]:
    """Where the cache lives and what it holds: ``{"path", "entries", "hits", "by_kind"}``."""
    info: dict[str, Any] = {"path": str(cache_path()), "entries": 0, "hits": 0, "by_kind": {}}
    try:
        conn = _connect()
        if conn is None:
            return info
        try:
            for kind, count, hits in conn.execute(
                "SELECT kind, COUNT(*), COALESCE(SUM(hits), 0) FROM responses GROUP BY kind"
            ):
                info["by_kind"][kind] = count
                info["entries"] += count
                info["hits"] += hits
        finally:
            conn.close()
    except sqlite3.Error as exc:
        log.warning("LLM cache unreadable (%s)", exc)
    return info
