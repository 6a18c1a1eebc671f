"""The worker pool: synchronous user code (targets, agents) on threads, concurrent and abandonable.

``await run_in_worker(fn, *args)`` calls ``fn`` on a worker thread, in a copy of the caller's context
(ContextVars carry over), and waits for it without blocking the event loop. Suites, Hub evaluations and
scans all use this one pool (``default_pool()``).

The pool is elastic: a call never queues for a thread (one is started when none is idle), so the run's
own ``max_concurrency`` is the only bound: a run at concurrency 32 gets 32 threads, whatever the number
of cores. Idle threads exit after ``idle_seconds``.

A deadline is a deadline: when the task awaiting a call is cancelled (its timeout expired, the kernel was
interrupted), the call is *abandoned* at once. Python cannot kill a thread, so the function keeps running
in the background until it returns; its result (or exception) is then discarded and the thread goes back
to the pool. An abandoned call does not hold a pool slot (the next call gets another thread), and every
worker is a daemon thread, so an abandoned call never keeps the interpreter from exiting. Abandoned calls
still running are counted (``abandoned_count()``): a ``RuntimeWarning`` is issued when that count reaches
``warn_abandoned`` (and each doubling after it), and at ``max_abandoned`` the pool refuses to start more
threads (``WorkerPoolExhausted``) until some of them return.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import itertools
import os
import queue
import threading
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from giskard_nb.errors import WorkerPoolExhausted

__all__ = ["WorkerPool", "WorkerPoolExhausted", "abandoned_count", "default_pool", "run_in_worker"]

T = TypeVar("T")

IDLE_SECONDS = 10.0
WARN_ABANDONED = 16
MAX_ABANDONED = 256

_QUEUED, _RUNNING, _DONE, _CANCELLED = range(4)


class _Call:
    __slots__ = ("abandoned", "args", "ctx", "fn", "future", "loop", "state")

    def __init__(self, fn: Callable[..., Any], args: tuple, loop: Any, future: Any):
        self.fn, self.args, self.loop, self.future = fn, args, loop, future
        self.ctx = contextvars.copy_context()
        self.state = _QUEUED
        self.abandoned = False


class WorkerPool:
    """Daemon threads that run sync callables for coroutines; see the module docstring."""

    def __init__(
        self,
        *,
        name: str = "giskard-nb-worker",
        idle_seconds: float = IDLE_SECONDS,
        warn_abandoned: int = WARN_ABANDONED,
        max_abandoned: int = MAX_ABANDONED,
    ):
        self.name = name
        self.idle_seconds = idle_seconds
        self.warn_abandoned = warn_abandoned
        self.max_abandoned = max_abandoned
        self._lock = threading.Lock()
        self._idle: list[queue.SimpleQueue] = []  # inboxes of idle workers, most recent last
        self._threads = 0
        self._abandoned = 0
        self._next_warning = warn_abandoned
        self._ids = itertools.count(1)

    # -- what callers see ----------------------------------------------------------------------------

    async def run(self, fn: Callable[..., T], /, *args: Any) -> T:
        """Call ``fn(*args)`` on a worker thread; cancelling the awaiting task abandons the call."""
        loop = asyncio.get_running_loop()
        call = _Call(fn, args, loop, loop.create_future())
        self._submit(call)
        try:
            return await call.future
        except asyncio.CancelledError:
            self._abandon(call)
            raise

    @property
    def threads(self) -> int:
        """Worker threads alive (busy, idle or running an abandoned call)."""
        return self._threads

    @property
    def abandoned(self) -> int:
        """Abandoned calls whose function has not returned yet."""
        return self._abandoned

    # -- machinery -----------------------------------------------------------------------------------

    def _submit(self, call: _Call) -> None:
        thread = None
        with self._lock:
            inbox = self._idle.pop() if self._idle else None
            if inbox is None:
                if self._abandoned >= self.max_abandoned:
                    raise WorkerPoolExhausted(
                        f"{self._abandoned} calls abandoned after a timeout or an interrupt are still "
                        "running in background threads (Python cannot stop a thread), so giskard-nb "
                        "starts no more threads until some return: fix the agent or target that hangs "
                        "(give it its own timeout), or restart the kernel"
                    )
                inbox = queue.SimpleQueue()
                self._threads += 1
                thread = threading.Thread(
                    target=self._work,
                    args=(inbox,),
                    name=f"{self.name}-{next(self._ids)}",
                    daemon=True,
                )
        inbox.put(call)
        if thread is not None:
            try:
                thread.start()
            except BaseException:
                with self._lock:
                    self._threads -= 1
                raise

    def _abandon(self, call: _Call) -> None:
        warning = None
        with self._lock:
            if call.state == _QUEUED:
                call.state = _CANCELLED
            elif call.state == _RUNNING:
                call.abandoned = True
                self._abandoned += 1
                if self._abandoned >= self._next_warning:
                    self._next_warning *= 2
                    warning = self._abandoned
        if warning is not None:
            warnings.warn(
                f"{warning} calls abandoned after a timeout or an interrupt are still running in "
                f"background threads (Python cannot stop a thread; their results will be discarded). "
                f"An agent or target hangs: give it its own timeout. At {self.max_abandoned} no new "
                "calls are started.",
                RuntimeWarning,
                stacklevel=3,
            )

    def _work(self, inbox: queue.SimpleQueue) -> None:
        while True:
            try:
                call = inbox.get(timeout=self.idle_seconds)
            except queue.Empty:
                with self._lock:
                    if inbox in self._idle:  # nobody picked this worker meanwhile: retire it
                        self._idle.remove(inbox)
                        self._threads -= 1
                        return
                continue  # a call is on its way to this inbox
            self._execute(call)
            with self._lock:
                self._idle.append(inbox)

    def _execute(self, call: _Call) -> None:
        with self._lock:
            if call.state == _CANCELLED:
                return
            call.state = _RUNNING
        try:
            value, failed = call.ctx.run(call.fn, *call.args), False
        except StopIteration as exc:  # cannot travel through a Future
            value = RuntimeError(f"{_name(call.fn)} raised StopIteration")
            value.__cause__, failed = exc, True
        except BaseException as exc:
            value, failed = exc, True
        with self._lock:
            call.state = _DONE
            abandoned = call.abandoned
            if abandoned:
                self._abandoned -= 1
        if abandoned:
            return  # nobody waits for it any more: discard the result
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits for it either
            call.loop.call_soon_threadsafe(_settle, call.future, value, failed)


def _settle(future: Any, value: Any, failed: bool) -> None:
    if future.done():
        return
    if failed:
        future.set_exception(value)
    else:
        future.set_result(value)


def _name(fn: Any) -> str:
    return getattr(fn, "__qualname__", None) or type(fn).__name__


_default: WorkerPool | None = None
_default_lock = threading.Lock()


def default_pool() -> WorkerPool:
    """The process-wide pool used by suites, Hub evaluations and scans."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = WorkerPool()
    return _default


def _forget_after_fork() -> None:  # a forked child has none of the parent's threads
    global _default, _default_lock
    _default, _default_lock = None, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)


async def run_in_worker(fn: Callable[..., T], /, *args: Any) -> T:
    """``await fn(*args)`` on the default pool's worker thread (see the module docstring)."""
    return await default_pool().run(fn, *args)


def abandoned_count() -> int:
    """Abandoned calls of the default pool still running in background threads."""
    return default_pool().abandoned
