"""Who is running an evaluation or a scan: the owner's host and pid, and a heartbeat.

A run claims its record when it starts (``claim``): it stores this host's name, this process's id and
the time, and refreshes that time every ``HEARTBEAT_INTERVAL`` seconds while it runs (``heartbeat``).
A record still marked ``running`` is *alive* when its heartbeat is younger than ``STALE_AFTER``
seconds and, on this host, its process still exists; otherwise its process died (``kill -9``, a
crashed kernel, a lost machine) and the record reads as ``interrupted`` — resumable.

Claiming a record that is alive raises a ``HubError``: two runs of one evaluation never run at once
(another process, or another ``Hub`` on the same file). Records written before these columns existed
(no heartbeat) are judged by their last update. A run that claims with ``own_stopped=True`` and
calls ``release(id)`` when it ends lets this very process claim the record again as soon as
that run stopped, even if the run could not mark it stopped (a full disk): the process knows its own
run is over, so its ``resume`` need not wait for the heartbeat to go stale.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import threading
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from giskard_nb.errors import HubError
from giskard_nb.hub.models.base import utcnow

__all__ = [
    "HEARTBEAT_INTERVAL",
    "STALE_AFTER",
    "alive",
    "beat_forever",
    "claim",
    "heartbeat",
    "release",
]

#: Seconds between two heartbeats of a running evaluation or scan.
HEARTBEAT_INTERVAL = 10.0
#: A run whose heartbeat is older than this (seconds; six intervals) is taken for dead.
STALE_AFTER = 60.0


def alive(row: Mapping[str, Any], *, now: datetime | None = None) -> bool:
    """Whether the process running this ``running`` record still runs it (see the module docstring)."""
    now = now or utcnow()
    beat = row.get("heartbeat_at") or row.get("updated_at")
    if beat is None or (now - beat).total_seconds() > STALE_AFTER:
        return False
    pid = row.get("owner_pid")
    if pid is not None and row.get("owner_host") == socket.gethostname():
        return _pid_exists(int(pid))
    return True


_HERE: set[str] = set()  # records a run of this process claimed with own_stopped and still runs
_HERE_LOCK = threading.Lock()


def release(record_id: str) -> None:
    """Say that this process's run of ``record_id`` (claimed with ``own_stopped``) is over."""
    with _HERE_LOCK:
        _HERE.discard(record_id)


def _ours(row: Mapping[str, Any]) -> bool:
    return row.get("owner_pid") == os.getpid() and row.get("owner_host") == socket.gethostname()


def claim(
    conn: sa.Connection, table: sa.Table, record_id: str, *, what: str, own_stopped: bool = False
) -> None:
    """Mark the record as run by this process, inside the caller's write transaction; refuse (a
    ``HubError``) if another live run holds it. With ``own_stopped``, a record this process owns
    but no longer runs is not held, and the caller must ``release`` the record when its run ends."""
    row = (
        conn.execute(sa.select(table).where(table.c.id == record_id).with_for_update())
        .mappings()
        .first()
    )
    claimed = row is not None and row["status"] == "running" and row["heartbeat_at"] is not None
    with _HERE_LOCK:
        mine = own_stopped and _ours(row or {}) and record_id not in _HERE
        if claimed and alive(row) and not mine:
            _refuse(row, what)
        if own_stopped:
            _HERE.add(record_id)
    conn.execute(
        sa.update(table)
        .where(table.c.id == record_id)
        .values(owner_host=socket.gethostname(), owner_pid=os.getpid(), heartbeat_at=utcnow())
    )


def _refuse(row: Mapping[str, Any], what: str) -> None:
    ago = (utcnow() - row["heartbeat_at"]).total_seconds()
    raise HubError(
        f"{what} is already running (process {row['owner_pid']} on {row['owner_host']}, "
        f"last heartbeat {ago:.0f} s ago): wait for that run to finish (its results are "
        "kept), then resume for what is left. If that process is gone, the run shows as "
        f"'interrupted' within {STALE_AFTER:.0f} s and can be resumed."
    )


def heartbeat(conn: sa.Connection, table: sa.Table, record_id: str) -> None:
    conn.execute(sa.update(table).where(table.c.id == record_id).values(heartbeat_at=utcnow()))


async def beat_forever(write: Callable[[], Any]) -> None:
    """Call ``write`` every ``HEARTBEAT_INTERVAL`` seconds until cancelled (a failing write, such as
    a locked database, is skipped: the next beat tries again)."""
    while True:
        await asyncio.sleep(HEARTBEAT_INTERVAL)
        with contextlib.suppress(Exception):
            await asyncio.to_thread(write)


def _pid_exists(pid: int) -> bool:
    if pid == os.getpid():
        return True
    if os.name == "nt":  # no signal 0 on Windows: rely on the heartbeat alone
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, owned by another user
    except OSError:
        return True
    return True
