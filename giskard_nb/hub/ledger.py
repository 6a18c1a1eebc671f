"""The run ledger: how an evaluation or a scan run holds its record and stores its rows as they finish.

A ``RunLedger`` is one run of one record (an evaluation, a scan). It

- **claims** the record when the run starts (``async with ledger:``): this host and process hold a
  lease on it (``giskard_nb.hub.ownership``: refused while another live run holds it), and the run
  type's ``claimed`` step runs in the same transaction (an evaluation is marked ``running``);
- beats the record's **heartbeat** every ``HEARTBEAT_INTERVAL`` seconds while it runs, so a run whose
  process died reads as ``interrupted`` (stale) once the heartbeat is ``STALE_AFTER`` seconds old, and
  can be resumed; it **releases** the lease when the run ends, so this process may resume it at once;
- **appends** the run's rows (results, attempts) in batches: ``await ledger.add(row)`` queues one; a
  batch is written as soon as ``BATCH_ROWS`` wait, else ``BATCH_SECONDS`` after the previous write
  started (at once when the ledger was idle that long), so the rows finishing meanwhile share one
  transaction. Rows are encoded on the event loop (``encode``) and written on a worker thread
  (``write``, where the database works without the GIL), one write at a time;
- **reports** each stored row to ``on_row`` (a function or a coroutine function), in the order they
  were stored: a callback that raises never loses a row (it is stored first) nor stops the run (the
  first failure is a ``RuntimeWarning``, later ones are logged and counted at the end);
- **stops** cleanly: ``close()`` (the run finished) waits until every queued row is stored and
  reported; ``stop()`` (the run failed or was interrupted) lets the write under way finish, then
  stores what is queued and reports it. A crash thus loses only the rows queued for less than
  ``BATCH_SECONDS``; every row reported stored is in the database, and a resume runs only the rest.

A write that fails (the database refuses) stops the run: ``add`` raises it at the next row, ``close``
at the end. Each run type subclasses the ledger with its row format: the table of its records, what
``claimed`` does, and how a batch is encoded and written in one transaction with the run's counters
(``giskard_nb.hub.evaluation.EvaluationRows``, ``giskard_nb.hub.scan_run.ScanAttemptRows``).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

import sqlalchemy as sa

from giskard_nb.core.workers import run_in_worker
from giskard_nb.errors import WorkerPoolExhausted
from giskard_nb.hub.ownership import (
    HEARTBEAT_INTERVAL,
    STALE_AFTER,
    beat_forever,
    claim,
    heartbeat,
    release,
)

if TYPE_CHECKING:
    from giskard_nb.hub.db import Database

__all__ = [
    "BATCH_ROWS",
    "BATCH_SECONDS",
    "HEARTBEAT_INTERVAL",
    "STALE_AFTER",
    "OnRow",
    "RunLedger",
]

#: Rows that start a write as soon as they wait.
BATCH_ROWS = 1000
#: The least time between two writes of a run (seconds): the rows finishing meanwhile share one
#: transaction; also the longest a finished row waits before its write starts.
BATCH_SECONDS = 0.1

#: Called with each stored row (sync, or async: awaited).
OnRow = Callable[[Any], Any]
T = TypeVar("T")

logger = logging.getLogger(__name__)


class RunLedger(Generic[T]):
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

    def write(self, batch: list[T], encoded: Any) -> list[T]:
        """Store ``batch`` (one transaction) with the run's counters; return the rows stored. Runs
        on a worker thread; an exception stops the run (``fail`` keeps one without raising)."""
        raise NotImplementedError

    def fail(self, exc: BaseException) -> None:
        """Keep a write failure (the first one) to stop the run with."""
        self.error = self.error or exc

    # -- the lease -----------------------------------------------------------------------------------

    def claim(self) -> None:
        """Hold the record for this run (a ``HubError`` if another live run holds it)."""
        with self.db.write() as conn:
            claim(conn, self.table, self.record_id, what=self.what, own_stopped=True)
            self.claimed(conn)

    def heartbeat(self) -> None:
        """Refresh the record's heartbeat (the run is alive)."""
        with self.db.write() as conn:
            heartbeat(conn, self.table, self.record_id)

    async def __aenter__(self) -> RunLedger[T]:
        self.claim()
        self._beat = asyncio.get_running_loop().create_task(beat_forever(self.heartbeat))
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        if self._beat is not None:
            self._beat.cancel()
        release(self.record_id)  # this process may resume it at once, whatever was stored

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
