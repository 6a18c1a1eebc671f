"""Typed models of the Hub's records (pydantic, frozen snapshots). May import: errors, secrets, core,
kb, scan, input_generators and schedule."""

from giskard_nb.hub.models.agent import ROLES, Agent, AgentOutput, ChatMessage
from giskard_nb.hub.models.audit import AuditEntry
from giskard_nb.hub.models.base import SCHEMA_VERSION, HubModel, HubRecord
from giskard_nb.hub.models.check import HubCheck
from giskard_nb.hub.models.dataset import CheckSpec, Comment, Dataset, HubTestCase
from giskard_nb.hub.models.evaluation import (
    CheckOutcome,
    Evaluation,
    EvaluationResult,
    EvaluationStatus,
    ResultStatus,
)
from giskard_nb.hub.models.project import FailureCategory, Project

__all__ = [
    "ROLES",
    "SCHEMA_VERSION",
    "Agent",
    "AgentOutput",
    "AuditEntry",
    "ChatMessage",
    "CheckOutcome",
    "CheckSpec",
    "Comment",
    "Dataset",
    "Evaluation",
    "EvaluationResult",
    "EvaluationStatus",
    "FailureCategory",
    "HubCheck",
    "HubModel",
    "HubRecord",
    "HubTestCase",
    "Project",
    "ResultStatus",
]
