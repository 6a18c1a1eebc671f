"""Turning database driver errors into ``HubStorageError``: what failed and what to do, no SQL.

SQLAlchemy's errors carry the statement and its parameters (test cases, replies, secrets' ids); they
never reach the user. ``storage_error(exc, url, action)`` reads the driver's message to tell a full
disk, a read-only file, a damaged file, a lock and a lost server apart.
"""

from __future__ import annotations

import sqlalchemy as sa

from giskard_nb.errors import HubStorageError
from giskard_nb.hub.secrets import mask_url

__all__ = ["bad_row", "first_line", "is_locked", "storage_error"]

_LOCKED = ("database is locked", "database is busy")
_KINDS = (
    (
        "disk_full",
        ("database or disk is full", "no space left", "disk full", "diskfull"),
        "the disk holding it is full: free some space, then run again (a run that stopped here "
        "can be resumed: hub.evaluations.resume(id))",
    ),
    (
        "read_only",
        ("readonly database", "read-only", "read only", "unable to open database file",
         "permission denied", "readonly directory"),
        "it (or its folder) cannot be written: check the file's and the folder's permissions, or "
        "open the Hub at another path",
    ),
    (
        "corrupt",
        ("file is not a database", "malformed", "file is encrypted", "not a database",
         "database disk image"),
        "the file is damaged or is not a Hub database: restore it from a backup, or move it away "
        "to start a new Hub there",
    ),
    (
        "locked",
        _LOCKED,
        "another program holds its lock: close what else is writing to it, or wait longer with "
        "GISKARD_NB_LOCK_TIMEOUT=<seconds>",
    ),
    (
        "connection",
        ("connection refused", "server closed the connection", "could not connect",
         "terminating connection", "connection is closed", "timeout expired"),
        "the database server cannot be reached: check that it is running and the URL, then retry",
    ),
)  # fmt: skip


def storage_error(exc: BaseException, url: str, action: str) -> HubStorageError:
    """A ``HubStorageError`` for ``exc`` (a SQLAlchemy/driver/OS error) met while ``action``."""
    text = _driver_message(exc)
    lowered = text.lower()
    where = f"the Hub database {mask_url(url)}"
    if isinstance(exc, sa.exc.IntegrityError):
        return HubStorageError(
            f"{where} refused a write while {action}: a record conflicts with one already stored "
            f"({_short(text)}); nothing was written by that step",
            reason="conflict",
        )
    for reason, needles, advice in _KINDS:
        if any(n in lowered for n in needles):
            return HubStorageError(f"{where} failed while {action}: {advice}", reason=reason)
    return HubStorageError(
        f"{where} failed while {action} ({_short(text)}): check the database, then retry",
        reason="other",
    )


def bad_row(table: str, row_id: object, problem: str) -> HubStorageError:
    """The error for a stored row that cannot be read back (named, so it can be fixed or deleted)."""
    return HubStorageError(
        f"the stored row {row_id!r} of {table} cannot be read ({_short(problem)}): it was changed "
        "outside giskard-nb or damaged; delete it (hub.<resource>.delete(id)) or restore a backup",
        reason="bad_row",
    )


def is_locked(exc: BaseException) -> bool:
    """Whether ``exc`` says another connection holds the database's lock (retried, not reported)."""
    lowered = _driver_message(exc).lower()
    return any(needle in lowered for needle in _LOCKED)


def first_line(exc: BaseException) -> str:
    """The first line of the driver's own message (no statement, no parameters)."""
    text = _driver_message(exc)
    return text.splitlines()[0] if text else type(exc).__name__


def _driver_message(exc: BaseException) -> str:
    """The driver's own message, without SQLAlchemy's statement, parameters and links."""
    orig = getattr(exc, "orig", None)
    text = str(orig if orig is not None else exc)
    return text.split("\n[SQL:", 1)[0].split("\n(Background", 1)[0].strip()


def _short(text: str) -> str:
    line = text.splitlines()[0] if text else "unknown error"
    return line[:200]
