"""The local Hub: projects, agents, datasets and test cases, checks, evaluations, scans, knowledge
bases, schedules, tasks and an audit log, stored in an embedded SQLite database (or PostgreSQL): a
storage envelope around the engines below it. Start with ``Hub()``. May import: errors, config, stats,
secrets, core, executors, llm, checks, otel, kb, scan, dataset_generation, input_generators and
schedule; frames and charts sit above it, imported lazily by its ``to_dataframe()`` and ``plot_*()``
conveniences.

The store seam: ``Hub`` builds one ``Store`` (``hub/store.py``: the database, the actor, the secrets
file, the audit writer, and the other resources through their public methods only) and hands it to
every resource; a resource never holds the whole Hub nor calls another resource's private method
(``tests/hub/test_store_seam.py`` checks it)."""

from giskard_nb.hub.agents import ConnectionReport, LocalAgent, RemoteAgent
from giskard_nb.hub.check_specs import BUILTIN_CHECKS, build_check, check_to_spec
from giskard_nb.hub.comparison import CaseChange, EvaluationComparison
from giskard_nb.hub.failure_categories import (
    DEFAULT_FAILURE_CATEGORIES,
    FailureClassifier,
    classify_by_rules,
)
from giskard_nb.hub.hub import Hub
from giskard_nb.hub.models import (
    Agent,
    AgentOutput,
    AuditEntry,
    ChatMessage,
    CheckOutcome,
    CheckSpec,
    Comment,
    Dataset,
    Evaluation,
    EvaluationResult,
    FailureCategory,
    HubCheck,
    HubTestCase,
    Project,
)
from giskard_nb.hub.models.scan import AvailableProbe, Scan, ScanAttempt, ScanProbe
from giskard_nb.hub.resources import ResultList
from giskard_nb.hub.scenario_cases import scenario_to_test_case, test_case_to_scenario
from giskard_nb.hub.summary import EvaluationSummary

__all__ = [
    "BUILTIN_CHECKS",
    "DEFAULT_FAILURE_CATEGORIES",
    "Agent",
    "AgentOutput",
    "AuditEntry",
    "AvailableProbe",
    "CaseChange",
    "ChatMessage",
    "CheckOutcome",
    "CheckSpec",
    "Comment",
    "ConnectionReport",
    "Dataset",
    "Evaluation",
    "EvaluationComparison",
    "EvaluationResult",
    "EvaluationSummary",
    "FailureCategory",
    "FailureClassifier",
    "Hub",
    "HubCheck",
    "HubTestCase",
    "LocalAgent",
    "Project",
    "RemoteAgent",
    "ResultList",
    "Scan",
    "ScanAttempt",
    "ScanProbe",
    "build_check",
    "check_to_spec",
    "classify_by_rules",
    "scenario_to_test_case",
    "test_case_to_scenario",
]
