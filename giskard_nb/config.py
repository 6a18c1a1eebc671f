"""Where giskard-nb keeps its files, and the environment variables that move them.

``GISKARD_NB_HOME`` (default ``~/.giskard_nb``) holds the default Hub database and the LLM response cache.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["home_dir"]


def home_dir(create: bool = True) -> Path:
    """The giskard-nb home folder (``$GISKARD_NB_HOME`` or ``~/.giskard_nb``)."""
    path = Path(os.environ.get("GISKARD_NB_HOME") or Path.home() / ".giskard_nb").expanduser()
    if create:
        path.mkdir(parents=True, exist_ok=True)
    return path
