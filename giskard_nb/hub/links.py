"""``Resources``: the typed links between a Hub's resources (``store.resources``).

A resource uses another through its store: ``self._store.resources.projects.retrieve(id)``. Each
attribute of ``Resources`` is annotated with the resource's class, so a reader (and a type checker)
follows ``resources.projects`` to ``ProjectsResource``; the nested resources are annotated on their
parent (``ProjectsResource.scenarios``, ``EvaluationsResource.results``, ``ScansResource.probes``...).

At run time each link is the resource seen through its public methods only (``PublicView``): a
``_private`` name raises ``AttributeError``, as does a name that is not a resource
(``store.resources.close``: a resource does not close its Hub). Links are read from the Hub each
time, so a replaced resource or method is the one reached. ``tests/hub/test_store_seam.py`` also
refuses, statically, a ``_private`` name reached on a resource link anywhere in the hub package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from giskard_nb.hub.audit import AuditLog
    from giskard_nb.hub.hub import Hub
    from giskard_nb.hub.resources.agents import AgentsResource
    from giskard_nb.hub.resources.checks import ChecksResource
    from giskard_nb.hub.resources.datasets import DatasetsResource
    from giskard_nb.hub.resources.evaluations import EvaluationsResource
    from giskard_nb.hub.resources.knowledge_bases import KnowledgeBasesResource
    from giskard_nb.hub.resources.playground_chats import PlaygroundChatsResource
    from giskard_nb.hub.resources.projects import ProjectsResource
    from giskard_nb.hub.resources.scans import ScansResource
    from giskard_nb.hub.resources.scheduled_evaluations import ScheduledEvaluationsResource
    from giskard_nb.hub.resources.tasks import TasksResource
    from giskard_nb.hub.resources.test_cases import TestCasesResource

__all__ = ["PublicView", "Resources"]

_HUB = "hub"


class Resources:
    """A Hub's resources, one typed link each (see the module docstring). ``owner`` is the Hub."""

    __slots__ = ("_owner",)

    def __init__(self, owner: Hub):
        self._owner = owner

    def _link(self, name: str) -> Any:
        return PublicView(getattr(self._owner, name), f"{_HUB}.{name}")

    @property
    def projects(self) -> ProjectsResource:
        """``hub.projects`` (+ ``.scenarios``)."""
        return cast("ProjectsResource", self._link("projects"))

    @property
    def agents(self) -> AgentsResource:
        """``hub.agents``."""
        return cast("AgentsResource", self._link("agents"))

    @property
    def datasets(self) -> DatasetsResource:
        """``hub.datasets``."""
        return cast("DatasetsResource", self._link("datasets"))

    @property
    def test_cases(self) -> TestCasesResource:
        """``hub.test_cases`` (+ ``.comments``)."""
        return cast("TestCasesResource", self._link("test_cases"))

    @property
    def checks(self) -> ChecksResource:
        """``hub.checks``."""
        return cast("ChecksResource", self._link("checks"))

    @property
    def evaluations(self) -> EvaluationsResource:
        """``hub.evaluations`` (+ ``.results``)."""
        return cast("EvaluationsResource", self._link("evaluations"))

    @property
    def knowledge_bases(self) -> KnowledgeBasesResource:
        """``hub.knowledge_bases``."""
        return cast("KnowledgeBasesResource", self._link("knowledge_bases"))

    @property
    def scheduled_evaluations(self) -> ScheduledEvaluationsResource:
        """``hub.scheduled_evaluations``."""
        return cast("ScheduledEvaluationsResource", self._link("scheduled_evaluations"))

    @property
    def tasks(self) -> TasksResource:
        """``hub.tasks``."""
        return cast("TasksResource", self._link("tasks"))

    @property
    def playground_chats(self) -> PlaygroundChatsResource:
        """``hub.playground_chats``."""
        return cast("PlaygroundChatsResource", self._link("playground_chats"))

    @property
    def scans(self) -> ScansResource:
        """``hub.scans`` (+ ``.probes``, ``.attempts``)."""
        return cast("ScansResource", self._link("scans"))

    @property
    def audit(self) -> AuditLog:
        """``hub.audit``."""
        return cast("AuditLog", self._link("audit"))

    def __getattr__(self, name: str) -> Any:  # only for names that are not links
        if name.startswith("_"):
            raise AttributeError(_private(f"{_HUB}.{name}"))
        raise AttributeError(
            f"{_HUB}.{name} is not a resource: store.resources gives the Hub's resources only"
        )

    def __dir__(self) -> list[str]:
        return sorted(LINKS)

    def __repr__(self) -> str:
        return f"<resources of {self._owner!r}>"


#: The names of the links (``Resources``' properties).
LINKS = frozenset(name for name, value in vars(Resources).items() if isinstance(value, property))


class PublicView:
    """An object (a resource) seen through its public attributes only.

    ``view.name`` is ``getattr(target, name)``, read each time (so a replaced method is seen), with a
    resource (or the audit log) wrapped in its own view; a ``_private`` name raises
    ``AttributeError``.
    """

    __slots__ = ("_path", "_target")

    def __init__(self, target: Any, path: str):
        self._target = target
        self._path = path

    def __getattr__(self, name: str) -> Any:
        where = f"{self._path}.{name}"
        if name.startswith("_"):
            raise AttributeError(_private(where))
        value = getattr(self._target, name)
        if _is_resource(value):
            return PublicView(value, where)
        return value

    def __dir__(self) -> list[str]:
        return sorted(n for n in dir(self._target) if not n.startswith("_"))

    def __repr__(self) -> str:
        return f"<public view of {self._path}: {self._target!r}>"


def _private(where: str) -> str:
    return (
        f"{where} is private: a Hub resource reaches another resource only through its "
        "public methods (see giskard_nb.hub.links)"
    )


def _is_resource(value: Any) -> bool:
    # a class marker rather than isinstance: the resources import this module, not the reverse
    return getattr(type(value), "is_hub_resource", False) is True
