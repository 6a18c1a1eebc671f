"""The run ledger: how an evaluation or a scan run holds its record and stores its rows as they finish.

A ``RunLedger`` is one run of one record (an evaluation, a scan). It

- **claims** the record when the run starts (``async with ledger:``): it stores this host's name, this
  process's id and the time (refused, a ``HubError``, while another live run holds it: two runs of one
  record never run at once), and the run type's ``claimed`` step runs in the same transaction;
- beats the record's **heartbeat** every ``HEARTBEAT_INTERVAL`` seconds while it runs. A record still
  ``running`` is *alive* (``alive``) while its heartbeat is younger than ``STALE_AFTER`` seconds and,
  on this host, its process exists; otherwise its process died (``kill -9``, a crashed kernel, a lost
  machine) and it reads as ``interrupted`` (stale): resumable. Records written before these columns
  existed are judged by their last update. The run **releases** the record when it ends, so this
  process may resume it at once, even if the run could not mark it stopped (a full disk);
- **appends** the run's rows (results, attempts) in batches: ``await ledger.add(row)`` queues one; a
  batch is written as soon as ``BATCH_ROWS`` wait, else ``BATCH_SECONDS`` after the previous write
  started (at once when idle that long), so the rows finishing meanwhile share one transaction; rows
  are encoded on the event loop (``encode``) and written on a worker thread (``write``), one write at
  a time;
- **reports** each stored row to ``on_row`` (sync or async), in the order stored: a callback that
  raises never loses a row nor stops the run (the first failure is a ``RuntimeWarning``, later ones
  are logged and counted at the end);
- **stops**: ``close()`` (the run finished) waits until every queued row is stored and reported;
  ``stop()`` (it failed or was interrupted) lets the write under way finish, then stores and reports
  what is queued. A crash loses only the rows of its last ``BATCH_SECONDS``; a resume runs the rest.

A write that fails stops the run: ``add`` raises it at the next row, ``close`` at the end. Each run type
subclasses the ledger with its row format: its records' table, ``claimed``, and how a batch is encoded
and written with the run's counters (``giskard_nb.hub.evaluation.EvaluationRows``,
``giskard_nb.hub.scan_run.ScanAttemptRows``).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import os
import socket
import threading
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

import sqlalchemy as sa

from giskard_nb.core.workers import run_in_worker
from giskard_nb.errors import HubError, WorkerPoolExhausted
from giskard_nb.hub.models.base import utcnow

if TYPE_CHECKING:
    from giskard_nb.hub.db import Database

__all__ = [
    "BATCH_ROWS",
    "BATCH_SECONDS",
    "HEARTBEAT_INTERVAL",
    "STALE_AFTER",
    "OnRow",
    "RunLedger",
    "alive",
]

#: Rows that start a write as soon as they wait.
BATCH_ROWS = 1000
#: The least time between two writes of a run (seconds): the rows finishing meanwhile share one
#: transaction; also the longest a finished row waits before its write starts.
BATCH_SECONDS = 0.1
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


_HERE: set[str] = set()  # records a run of this process claimed and still runs
_HERE_LOCK = threading.Lock()


def _refuse(row: Mapping[str, Any], what: str) -> None:
    ago = (utcnow() - row["heartbeat_at"]).total_seconds()
    raise HubError(
        f"{what} is already running (process {row['owner_pid']} on {row['owner_host']}, "
        f"last heartbeat {ago:.0f} s ago): wait for that run to finish (its results are "
        "kept), then resume for what is left. If that process is gone, the run shows as "
        f"'interrupted' within {STALE_AFTER:.0f} s and can be resumed."
    )


def _pid_exists(pid: int) -> bool:
    if pid == os.getpid() or os.name == "nt":  # no signal 0 on Windows: the heartbeat alone
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: it exists, owned by another user
        return True
    return True


#: Called with each stored row (sync, or async: awaited).
OnRow = Callable[[Any], Any]
T = TypeVar("T")

logger = logging.getLogger(__name__)


class RunLedger(ABC, Generic[T]):
    """One run's lease on its record and the batched store of its rows (see the module docstring).

    Subclasses set ``table`` (the run records' table), ``callback`` and ``noun`` (the name users pass
    ``on_row`` as, and what a row is, for messages) and implement ``write``; ``encode`` and
    ``claimed`` are optional."""

    table: ClassVar[sa.Table]
    callback: ClassVar[str] = "on_row"
    noun: ClassVar[str] = "row"

    def __init__(self, db: Database, record_id: str, *, what: str, on_row: OnRow | None = None):
        self.db, self.record_id, self.what, self.on_row = db, record_id, what, on_row
        #: The write failure that stops the run (None while every write succeeds).
        self.error: BaseException | None = None
        #: How many ``on_row`` calls raised.
        self.callback_failures = 0
        self._pending: list[T] = []  # finished, not stored yet
        self._stored: list[T] = []  # stored, not reported yet
        self._lock = asyncio.Lock()  # one write (and its reports) at a time
        self._pump_task: asyncio.Task[None] | None = None
        self._inflight: asyncio.Future[None] | None = None
        self._next_write = 0.0
        self._beat: asyncio.Task[None] | None = None

    # -- what a run type supplies --------------------------------------------------------------------

    def claimed(self, conn: sa.Connection) -> None:
        """Called in the claim's transaction (mark the record running, ...)."""

    def encode(self, batch: list[T]) -> Any:
        """The batch's rows, encoded on the event loop (``None``: ``write`` encodes them)."""
        return None

    @abstractmethod
    def write(self, batch: list[T], encoded: Any) -> list[T]:
        """Store ``batch`` (one transaction) with the run's counters; return the rows stored. Runs
        on a worker thread; an exception stops the run (``fail`` keeps one without raising)."""

    def fail(self, exc: BaseException) -> None:
        """Keep a write failure (the first one) to stop the run with."""
        self.error = self.error or exc

    # -- the lease -----------------------------------------------------------------------------------

    def claim(self) -> None:
        """Hold the record for this run (a ``HubError`` if another live run holds it; a record
        this process owns but no longer runs is not held)."""
        table, record_id = self.table, self.record_id
        with self.db.write() as conn:
            query = sa.select(table).where(table.c.id == record_id).with_for_update()
            row = conn.execute(query).mappings().first() or {}
            claimed = row.get("status") == "running" and row.get("heartbeat_at") is not None
            here = socket.gethostname()
            with _HERE_LOCK:
                mine = row.get("owner_pid") == os.getpid() and row.get("owner_host") == here
                if claimed and alive(row) and not (mine and record_id not in _HERE):
                    _refuse(row, self.what)
                _HERE.add(record_id)
            owner = {"owner_host": here, "owner_pid": os.getpid(), "heartbeat_at": utcnow()}
            conn.execute(sa.update(table).where(table.c.id == record_id).values(**owner))
            self.claimed(conn)

    def heartbeat(self) -> None:
        """Refresh the record's heartbeat (the run is alive)."""
        t = self.table
        with self.db.write() as conn:
            conn.execute(sa.update(t).where(t.c.id == self.record_id).values(heartbeat_at=utcnow()))

    async def _beat_forever(self) -> None:
        """Beat every ``HEARTBEAT_INTERVAL`` seconds until cancelled (a failing beat, such as on a
        locked database, is skipped: the next one tries again)."""
        while True:
            await asyncio.sleep(HEARTBEAT_INTERVAL)
            with contextlib.suppress(Exception):
                await asyncio.to_thread(self.heartbeat)

    async def __aenter__(self) -> RunLedger[T]:
        self.claim()
        self._beat = asyncio.get_running_loop().create_task(self._beat_forever())
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        if self._beat is not None:
            self._beat.cancel()
        with _HERE_LOCK:  # released: this process may resume it at once, whatever was stored
            _HERE.discard(self.record_id)

    # -- rows ----------------------------------------------------------------------------------------

    async def add(self, row: T) -> None:
        """Queue a finished row; raise an earlier write failure. With ``BATCH_ROWS`` queued, the
        caller waits for their write (the other workers go on meanwhile)."""
        if self.error is not None:
            raise self.error
        self._pending.append(row)
        if len(self._pending) >= BATCH_ROWS:
            await self._write_batch()
        elif self._pump_task is None:
            self._pump_task = asyncio.get_running_loop().create_task(self._pump())

    async def close(self) -> None:
        """Wait until every queued row is stored and reported; raise a write failure."""
        while self._pump_task is not None:
            await asyncio.shield(self._pump_task)
        await self._write_batch()  # rows queued by the last worker, if any
        if self.callback_failures > 1:
            warnings.warn(
                f"{self.callback} raised for {self.callback_failures} {self.noun}s of "
                f"{self.what}; every one is stored",
                RuntimeWarning,
                stacklevel=2,
            )
        if self.error is not None:
            raise self.error

    async def stop(self) -> None:
        """The run failed or was interrupted: let the write under way finish, store what is queued
        on this thread, and report it (a second interrupt meanwhile stops the reports, never the
        store)."""
        if self._pump_task is not None:
            self._pump_task.cancel()
            self._pump_task = None
        if self._inflight is not None:
            with contextlib.suppress(BaseException):  # its failure is kept in self.error
                await self._inflight
            self._inflight = None
        batch, self._pending = self._pending, []
        if batch:
            self._store(batch, None)
        with contextlib.suppress(BaseException):
            await self._report()

    async def _pump(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self._pending and self.error is None:
                wait = self._next_write - loop.time()
                if wait > 0:  # let the rows finishing meanwhile join this batch
                    await asyncio.sleep(wait)
                await self._write_batch()
        finally:
            if self._pump_task is asyncio.current_task():
                self._pump_task = None

    async def _write_batch(self) -> None:
        async with self._lock:
            batch, self._pending = self._pending, []
            if batch and self.error is None:
                self._next_write = asyncio.get_running_loop().time() + BATCH_SECONDS
                encoded = self.encode(batch)  # here: encoding needs the GIL anyway
                self._inflight = asyncio.ensure_future(run_in_worker(self._store, batch, encoded))
                try:
                    await asyncio.shield(self._inflight)  # an interrupt lets the write finish
                except WorkerPoolExhausted:  # no thread to spare (hung agents): store it here
                    self._store(batch, encoded)
                self._inflight = None
            await self._report()

    def _store(self, batch: list[T], encoded: Any) -> None:
        if self.error is not None:
            return
        try:
            stored = self.write(batch, encoded)
        except BaseException as exc:  # surfaced by add() and close()
            self.fail(exc)
            return
        if self.on_row is not None:
            self._stored.extend(stored)

    async def _report(self) -> None:
        stored, self._stored = self._stored, []
        for row in stored:
            try:
                out = self.on_row(row)  # type: ignore[misc]  # rows are kept only with on_row
                if inspect.isawaitable(out):
                    await out
            except Exception as exc:  # the row is stored: say so and carry on
                self._callback_failed(exc, row)

    def _callback_failed(self, exc: Exception, row: T) -> None:
        self.callback_failures += 1
        if self.callback_failures == 1:
            warnings.warn(
                f"{self.callback} raised {type(exc).__name__}: {exc} ({self.noun} "
                f"{getattr(row, 'id', '?')} of {self.what}); the {self.noun} is stored and the run "
                f"goes on; later failures of this callback are logged (logger {logger.name!r})",
                RuntimeWarning,
                stacklevel=3,
            )
        else:
            logger.warning("%s raised %s: %s", self.callback, type(exc).__name__, exc)
