"""For one merge only: resources still built with the whole ``Hub`` (the evaluation and scan resources,
being reworked elsewhere) keep it as ``self._hub``, which their code reads, and use the Hub's store.

``Resource.__init__`` calls ``adopt_hub`` when it is given something other than a ``Store``. Once
every resource is built with the store, this module goes (``tests/hub/test_store_seam.py`` lists it
among the files still holding the Hub).
"""

from __future__ import annotations

from typing import Any

from giskard_nb.hub.store import Store

__all__ = ["adopt_hub"]


def adopt_hub(resource: Any, hub: Any) -> Store:
    """The store of ``hub`` (a ``Hub``), after setting ``resource._hub = hub``."""
    try:
        store = hub._store
    except AttributeError:
        store = None
    if not isinstance(store, Store):
        raise TypeError(
            f"{type(resource).__name__} takes the Hub's store (giskard_nb.hub.store.Store), got "
            f"{type(hub).__name__}"
        )
    resource._hub = hub
    return store
