"""Keeping Python's cyclic garbage collector out of the way of bulk work.

Building or storing 10^4–10^5 small objects (results, rows, frames) triggers many collections, and each
full one scans every object of the session: with a large heap, the collector can take a third of a
run. Two scoped remedies:

- ``paused()`` disables the collector for a bounded piece of work (reading rows into a frame); what
  it would have collected is collected as usual afterwards.
- ``frozen()`` moves the objects alive when it starts out of the collector's sight (``gc.freeze``)
  for a long piece of work (an evaluation run): collections still run, but scan only what the work
  allocates. On exit they are given back (``gc.unfreeze``). When objects are frozen already (a
  pre-fork server's own ``gc.freeze()``, or another run), it does nothing, so it never gives back
  what it did not freeze; concurrent runs are harmless (the worst case is an early give-back).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["frozen", "paused"]


@contextmanager
def paused() -> Iterator[None]:
    """No cyclic garbage collection inside the block (it resumes, if it was on, when it ends)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextmanager
def frozen() -> Iterator[None]:
    """The objects alive now are not scanned by collections inside the block (see the module
    docstring); new objects are collected as usual."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
