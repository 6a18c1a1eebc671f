"""``Hub``: the local Hub — projects, agents, datasets, checks, evaluations and the audit log in one
database (SQLite by default, PostgreSQL for a team)."""

from __future__ import annotations

import getpass
import os
from typing import Any

from giskard_nb.hub.audit import AuditLog
from giskard_nb.hub.db import Database, resolve_url
from giskard_nb.hub.resources import (
    AgentsResource,
    ChecksResource,
    DatasetsResource,
    EvaluationsResource,
    ProjectsResource,
    TestCasesResource,
)
from giskard_nb.hub.resources.knowledge_bases import KnowledgeBasesResource
from giskard_nb.hub.resources.playground_chats import PlaygroundChatsResource
from giskard_nb.hub.resources.scans import ScansResource
from giskard_nb.hub.resources.scenarios import ScenariosResource
from giskard_nb.hub.resources.scheduled_evaluations import ScheduledEvaluationsResource
from giskard_nb.hub.resources.tasks import TasksResource
from giskard_nb.hub.secret_store import SecretStore
from giskard_nb.hub.secrets import mask_url
from giskard_nb.hub.store import Store

__all__ = ["Hub"]


class Hub:
    """The local Hub.

    ``Hub()`` opens ``~/.giskard_nb/hub.db`` (``$GISKARD_NB_HOME/hub.db``; or ``$GISKARD_NB_HUB_URL``),
    ``Hub(":memory:")`` a throwaway database, ``Hub("path/to/hub.db")`` a file, and
    ``Hub("postgresql://user:password@host/db")`` a shared PostgreSQL database (``pip install
    'giskard-nb[postgres]'``). ``actor`` is the name the audit log records (default
    ``$GISKARD_NB_ACTOR``, else the OS user).

    Resources: ``projects`` (+ ``.scenarios``), ``agents``, ``datasets``, ``test_cases`` (+
    ``.comments``), ``checks``, ``evaluations`` (+ ``.results``), ``knowledge_bases``,
    ``scheduled_evaluations``, ``tasks``, ``playground_chats``, ``scans`` (+ ``.probes``,
    ``.attempts``) and ``audit``.

    Secrets (agent headers, URL credentials, keys in check params) are kept in the Hub's secrets file,
    not in the database (see ``giskard_nb.hub.secret_store``).

    Every resource gets the Hub's store (``giskard_nb.hub.store``), not the Hub itself.
    """

    def __init__(self, url: str | os.PathLike[str] | None = None, *, actor: str | None = None):
        self.url = resolve_url(url)
        db = Database(self.url)
        self._store = store = Store(
            db,
            actor=actor or os.environ.get("GISKARD_NB_ACTOR") or _os_user(),
            secrets=SecretStore.for_database(self.url, is_memory=db.is_memory),
            owner=self,
        )
        self.projects = ProjectsResource(store)
        self.agents = AgentsResource(store)
        self.datasets = DatasetsResource(store)
        self.test_cases = TestCasesResource(store)
        self.checks = ChecksResource(store)
        self.evaluations = EvaluationsResource(store)
        self.projects.scenarios = ScenariosResource(store)
        self.knowledge_bases = KnowledgeBasesResource(store)
        self.scheduled_evaluations = ScheduledEvaluationsResource(store)
        self.tasks = TasksResource(store)
        self.playground_chats = PlaygroundChatsResource(store)
        self.scans = ScansResource(store)
        self.audit = AuditLog(store)

    @property
    def actor(self) -> str:
        """The name the audit log records for this Hub's changes (settable)."""
        return self._store.actor

    @actor.setter
    def actor(self, name: str) -> None:
        self._store.actor = name

    @property
    def backend(self) -> str:
        """``"sqlite"`` or ``"postgresql"``."""
        return self._store.db.dialect

    # The evaluation and scan runs (until they get their own stores) and tests read these two.
    @property
    def _db(self) -> Database:
        return self._store.db

    @property
    def _secrets(self) -> SecretStore:
        return self._store.secrets

    def close(self) -> None:
        """Release the database connections (the Hub can be reopened with the same URL)."""
        self._store.close()

    def __enter__(self) -> Hub:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        where = "in memory" if self._store.db.is_memory else mask_url(self.url)
        return f"<Hub {where} actor={self.actor!r}>"


def _os_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no user name (some containers)
        return "unknown"
