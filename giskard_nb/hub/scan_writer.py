"""``AttemptWriter``: where a Hub scan run puts the engine's attempts as they finish.

The engine calls ``add`` for each finished attempt (``run_scan(on_attempt=writer.add)``); the writer
stores it at once when nothing was written in the last ``BATCH_INTERVAL`` seconds, else with the
attempts finishing until then, in one transaction with the scan's running tallies
(``ScanStore.store_attempts``); then it calls the user's ``on_attempt`` with each stored
``ScanAttempt``, in order (an attempt of an attack the scan already holds is skipped with a warning,
not stored nor reported twice). An interrupted or failing run stores what is queued before it stops.

``on_attempt`` may be a function or a coroutine function. An exception it raises never loses an
attempt (it is stored before the call) and never stops the scan: the first one is reported with a
``RuntimeWarning`` and the end of the run warns how many calls failed. A write that fails (the
database) stops the scan: ``add`` raises it at the engine's next attempt, ``close`` at the end.
"""

from __future__ import annotations

import asyncio
import inspect
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from giskard_nb.hub.models.scan import Scan, ScanAttempt

if TYPE_CHECKING:
    from giskard_nb.hub.scan_store import ScanStore
    from giskard_nb.hub.scan_tallies import ScanTallies
    from giskard_nb.scan.result import Attempt

__all__ = ["BATCH_INTERVAL", "AttemptWriter", "OnAttempt"]

#: ``on_attempt(stored)``: called with each ``ScanAttempt`` once it is stored (may be async).
OnAttempt = Callable[[ScanAttempt], Any]
#: Seconds between two writes of a run: the attempts finishing meanwhile share a transaction.
BATCH_INTERVAL = 0.025


class AttemptWriter:
    """Stores one run's attempts in batches and reports them (see the module docstring)."""

    def __init__(
        self,
        store: ScanStore,
        scan: Scan,
        probe_ids: dict[str, str],
        tallies: ScanTallies,
        on_attempt: OnAttempt | None,
    ):
        self.store, self.scan, self.probe_ids = store, scan, probe_ids
        self._tallies, self.on_attempt = tallies, on_attempt
        self._pending: list[ScanAttempt] = []
        self._task: asyncio.Task[None] | None = None
        self._next_write = 0.0
        #: The write failure that stops the run (None while every write succeeds).
        self.error: BaseException | None = None
        #: How many ``on_attempt`` calls raised.
        self.callback_failures = 0

    @property
    def tallies(self) -> ScanTallies | None:
        """The running tallies, or None when a failed write left them unsure (count the rows)."""
        return None if self._tallies.stamp is None else self._tallies

    def add(self, attempt: Attempt) -> None:
        """Queue a finished attempt (the engine's ``on_attempt``); raises an earlier write failure."""
        if self.error is not None:
            raise self.error
        self._pending.append(
            ScanAttempt.from_attempt(
                attempt,
                scan_id=self.scan.id,
                scan_probe_id=self.probe_ids[attempt.probe_id],
                project_id=self.scan.project_id,
            )
        )
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._pump())

    async def close(self) -> None:
        """Wait until every queued attempt is stored and reported; raise a write failure."""
        while self._task is not None:
            await asyncio.shield(self._task)
        if self._pending:  # pragma: no cover - the pump empties the queue before it stops
            self._write(self._pending)
            self._pending = []
        if self.callback_failures > 1:
            warnings.warn(
                f"on_attempt raised for {self.callback_failures} attempts of scan "
                f"{self.scan.name!r}; every attempt is stored",
                RuntimeWarning,
                stacklevel=2,
            )
        if self.error is not None:
            raise self.error

    def drain(self) -> None:
        """Store what is queued now, without reporting it (the run is failing or interrupted)."""
        if self._task is not None:
            self._task.cancel()  # it is between two batches: what it took is stored
            self._task = None
        batch, self._pending = self._pending, []
        if batch and self.error is None:
            self._write(batch)

    async def _pump(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self._pending and self.error is None:
                wait = self._next_write - loop.time()
                if wait > 0:  # let the attempts finishing meanwhile join this batch
                    await asyncio.sleep(wait)
                batch, self._pending = self._pending, []
                self._next_write = loop.time() + BATCH_INTERVAL
                stored = self._write(batch)
                for record in stored:
                    await self._report(record)
        finally:
            if self._task is asyncio.current_task():
                self._task = None

    def _write(self, batch: list[ScanAttempt]) -> list[ScanAttempt]:
        """Store ``batch`` in one transaction; if that fails, each attempt alone (the first failure
        is kept to stop the run). Returns what was stored."""
        try:
            return self.store.store_attempts(self.scan.id, batch, self._tallies)
        except Exception:
            stored = []
            for record in batch:
                try:
                    stored += self.store.store_attempts(self.scan.id, [record], self._tallies)
                except Exception as exc:
                    self.error = self.error or exc
            return stored

    async def _report(self, record: ScanAttempt) -> None:
        if self.on_attempt is None:
            return
        try:
            out = self.on_attempt(record)
            if inspect.isawaitable(out):
                await out
        except Exception as exc:
            self.callback_failures += 1
            if self.callback_failures == 1:
                warnings.warn(
                    f"on_attempt raised {type(exc).__name__}: {exc} (attempt {record.id} of scan "
                    f"{self.scan.name!r}); the attempt is stored and the scan goes on",
                    RuntimeWarning,
                    stacklevel=2,
                )
