"""Settings read from the environment (giskard-checks' ``giskard.checks.settings`` import path).

``get_settings()`` reads the environment again on every call (a changed variable is seen at once) and
returns a frozen ``ChecksSettings``:

- ``default_model``: ``GISKARD_NB_MODEL``, else ``GISKARD_CHECKS_DEFAULT_MODEL``; None when neither is
  set (giskard-nb never picks a paid provider: LLM checks then report a ``ConfigError``);
- ``default_embedding_model``: ``GISKARD_NB_EMBEDDING_MODEL``, else
  ``GISKARD_CHECKS_DEFAULT_EMBEDDING_MODEL``; None means the offline embedding model;
- ``max_reported_failures``: ``GISKARD_CHECKS_MAX_REPORTED_FAILURES``, the number of failing scenarios a
  suite report lists (the rest are counted, "... and N more"); None (unlimited) when unset, not an
  integer, or negative;
- ``disable_rich_pretty``: ``GISKARD_CHECKS_DISABLE_RICH_PRETTY`` (true/1/yes/on). giskard-nb never
  installs ``rich.pretty`` on import, so it changes nothing; it is read so ported code can inspect it.

The defaults themselves are set with ``set_default_generator`` / ``set_default_embedding_model``,
re-exported here with their getters.
"""

from __future__ import annotations

import os

from pydantic import BaseModel, ConfigDict

from giskard_nb.core.render import max_reported_failures
from giskard_nb.llm.settings import (
    get_default_embedding_model,
    get_default_generator,
    set_default_embedding_model,
    set_default_generator,
)

__all__ = [
    "ChecksSettings",
    "get_default_embedding_model",
    "get_default_generator",
    "get_settings",
    "set_default_embedding_model",
    "set_default_generator",
]

_TRUE = ("1", "true", "yes", "on")


class ChecksSettings(BaseModel):
    """The environment settings read by ``get_settings()`` (module docstring)."""

    model_config = ConfigDict(frozen=True)

    default_model: str | None = None
    default_embedding_model: str | None = None
    max_reported_failures: int | None = None
    disable_rich_pretty: bool = False


def _env(*names: str) -> str | None:
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


def get_settings() -> ChecksSettings:
    """The settings as the environment holds them now (read on every call)."""
    return ChecksSettings(
        default_model=_env("GISKARD_NB_MODEL", "GISKARD_CHECKS_DEFAULT_MODEL"),
        default_embedding_model=_env(
            "GISKARD_NB_EMBEDDING_MODEL", "GISKARD_CHECKS_DEFAULT_EMBEDDING_MODEL"
        ),
        max_reported_failures=max_reported_failures(),
        disable_rich_pretty=(_env("GISKARD_CHECKS_DISABLE_RICH_PRETTY") or "").lower() in _TRUE,
    )
