"""The collector helpers pause or freeze the garbage collector and always restore it."""

from __future__ import annotations

import gc

from giskard_nb.core.collector import frozen, paused


def test_the_collector_helpers_restore_what_they_change():
    assert gc.isenabled()
    with paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0
    with frozen():
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0
    gc.freeze()  # someone else's freeze is left alone
    try:
        with frozen():
            pass
        assert gc.get_freeze_count() > 0  # not given back by frozen()
    finally:
        gc.unfreeze()
