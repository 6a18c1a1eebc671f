"""The Hub's resource collections (``hub.projects``, ``hub.agents`` and the others). May import:
errors, secrets, core, executors, otel, kb, scan and schedule."""

from giskard_nb.hub.resources.agents import AgentsResource
from giskard_nb.hub.resources.base import Resource
from giskard_nb.hub.resources.checks import ChecksResource
from giskard_nb.hub.resources.datasets import DatasetsResource
from giskard_nb.hub.resources.evaluations import EvaluationsResource
from giskard_nb.hub.resources.projects import ProjectsResource
from giskard_nb.hub.resources.results import ResultList, ResultsResource
from giskard_nb.hub.resources.test_cases import CommentsResource, TestCasesResource

__all__ = [
    "AgentsResource",
    "ChecksResource",
    "CommentsResource",
    "DatasetsResource",
    "EvaluationsResource",
    "ProjectsResource",
    "Resource",
    "ResultList",
    "ResultsResource",
    "TestCasesResource",
]
