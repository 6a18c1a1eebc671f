"""``track_usage()``: sum the tokens and cost of every model call made inside a block.

LLM checks already report their own usage as metrics (summed by ``SuiteResult.usage``). ``track_usage``
also sees calls no check reports, such as a ``UserSimulator`` writing the user's turns::

    with track_usage() as tracker:
        result = suite.run_sync()
    tracker.usage.cost_usd

It follows the code into tasks and into ``run_sync``'s worker thread (it is a context variable), and
trackers nest: an inner block's calls are counted by the outer one too.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from giskard_nb.core.usage import Usage

__all__ = ["UsageTracker", "record_usage", "track_usage"]


class UsageTracker:
    """Accumulates the ``Usage`` of the calls made while it is active (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._usage = Usage()
        self.cached_calls = 0

    @property
    def usage(self) -> Usage:
        return self._usage

    def add(self, usage: Usage, *, cached: bool = False) -> None:
        with self._lock:
            self._usage = self._usage + usage
            self.cached_calls += int(cached)

    def __repr__(self) -> str:
        u = self._usage
        return (
            f"<UsageTracker calls={u.llm_calls} cached={self.cached_calls} "
            f"tokens={u.total_tokens} cost_usd={u.cost_usd:.6f}>"
        )


_trackers: ContextVar[tuple[UsageTracker, ...]] = ContextVar("giskard_nb_usage", default=())


@contextmanager
def track_usage() -> Iterator[UsageTracker]:
    """Count every model call (completions and embeddings) made inside the ``with`` block."""
    tracker = UsageTracker()
    token = _trackers.set((*_trackers.get(), tracker))
    try:
        yield tracker
    finally:
        _trackers.reset(token)


def record_usage(usage: Usage, *, cached: bool = False) -> None:
    """Report one call's usage to the active trackers (called by the generator and embedding models)."""
    for tracker in _trackers.get():
        tracker.add(usage, cached=cached)
