"""Resilience for model calls: retries with backoff and jitter, per-model concurrency and RPM limits.

``RateLimiter`` is shared by every call to the same model (and settings) on the same event loop: a semaphore
caps calls in flight (``max_concurrency``), optional pacing spaces request starts ``60 / rpm`` seconds apart,
and a 429 pauses the whole model for the Retry-After the provider asked for, so the other calls in flight
do not hammer it meanwhile.

``call_with_retries`` retries what is worth retrying (rate limits, timeouts, connection and 5xx errors):
exponential backoff ``base_delay * 2**attempt`` capped at ``max_delay``, with jitter (50-100 %); a
Retry-After header is honoured exactly (plus up to 10 % jitter). A Retry-After longer than ``max_delay``
is not waited for: the error is raised at once, saying so.
"""

from __future__ import annotations

import asyncio
import logging
import random
import threading
import weakref
from collections.abc import Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TypeVar

from giskard_nb.llm.errors import LLMError, LLMRateLimitError

__all__ = ["RateLimiter", "RetryPolicy", "call_with_retries", "limiter_for"]

log = logging.getLogger("giskard_nb.llm")
T = TypeVar("T")


class RetryPolicy:
    """How many times to retry a retryable error, and how long to wait between attempts."""

    __slots__ = ("base_delay", "max_delay", "max_retries")

    def __init__(self, max_retries: int = 4, base_delay: float = 1.0, max_delay: float = 30.0):
        self.max_retries, self.base_delay, self.max_delay = max_retries, base_delay, max_delay

    def backoff(self, attempt: int) -> float:
        """Seconds to wait before retry number ``attempt + 1`` (with jitter)."""
        return min(self.max_delay, self.base_delay * 2**attempt) * random.uniform(0.5, 1.0)


class RateLimiter:
    """Concurrency cap, optional requests-per-minute pacing and 429 cooldown for one model on one loop."""

    def __init__(self, max_concurrency: int, rpm: float | None = None):
        self.max_concurrency = max_concurrency
        self.rpm = rpm
        self._semaphore = asyncio.Semaphore(max_concurrency)
        self._interval = 60.0 / rpm if rpm else 0.0
        self._next_start = 0.0
        self._paused_until = 0.0

    @asynccontextmanager
    async def slot(self):
        """Hold one of the ``max_concurrency`` slots for the duration of one request."""
        async with self._semaphore:
            await self._wait_turn()
            yield

    async def _wait_turn(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            now = loop.time()
            start = max(now, self._paused_until)
            if self._interval:
                start = max(start, self._next_start)
                self._next_start = start + self._interval  # reserve before sleeping
            if start <= now:
                return
            paused_until = self._paused_until
            await asyncio.sleep(start - now)
            if self._paused_until <= paused_until:  # else a 429 extended the pause meanwhile
                return

    def pause(self, seconds: float) -> None:
        """Hold every new request to this model for ``seconds`` (after a rate limit)."""
        until = asyncio.get_running_loop().time() + seconds
        self._paused_until = max(self._paused_until, until)


_limiters_lock = threading.Lock()
_limiters: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple, RateLimiter]] = (
    weakref.WeakKeyDictionary()
)


def limiter_for(key: tuple, max_concurrency: int, rpm: float | None) -> RateLimiter:
    """The limiter shared by calls with the same ``key`` and limits on the running loop."""
    loop = asyncio.get_running_loop()
    full_key = (*key, max_concurrency, rpm)
    with _limiters_lock:  # loops of several threads (run_sync workers) may ask at once
        per_loop = _limiters.setdefault(loop, {})
        limiter = per_loop.get(full_key)
        if limiter is None:
            limiter = per_loop[full_key] = RateLimiter(max_concurrency, rpm)
    return limiter


async def call_with_retries(
    call: Callable[[], Awaitable[T]],
    *,
    policy: RetryPolicy,
    limiter: RateLimiter,
    what: str,
) -> T:
    """Run ``call`` (which raises this package's LLM errors) under the limiter, retrying per ``policy``."""
    attempt = 0
    while True:
        try:
            async with limiter.slot():
                return await call()
        except LLMError as exc:
            if not getattr(exc, "retryable", False) or attempt >= policy.max_retries:
                if attempt:
                    exc.args = (f"{exc} (gave up after {attempt + 1} attempts)",)
                raise
            retry_after = exc.retry_after if isinstance(exc, LLMRateLimitError) else None
            if retry_after is not None:
                if retry_after > policy.max_delay:
                    exc.args = (
                        f"{exc} (the provider asked to wait {retry_after:g} s, more than "
                        f"retry_max_delay={policy.max_delay:g} s: not retrying)",
                    )
                    raise
                delay = retry_after * random.uniform(1.0, 1.1)
            else:
                delay = policy.backoff(attempt)
            if isinstance(exc, LLMRateLimitError):
                limiter.pause(delay)
            attempt += 1
            log.warning(
                "%s: %s; retry %d/%d in %.2f s",
                what,
                type(exc).__name__,
                attempt,
                policy.max_retries,
                delay,
            )
            await asyncio.sleep(delay)
