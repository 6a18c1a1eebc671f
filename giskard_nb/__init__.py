"""giskard-nb: test LLM agents from a notebook. This module is the facade: it re-exports the public names
of the layers below (scenarios and checks, LLM settings, input generators). May import: errors, target,
core, llm, checks and input_generators.

Layers, lowest first (a package may import its own layer and the layers below; tests/test_layers.py
enforces it, with an allow-list of lazy display conveniences such as ``result.to_dataframe()``):
errors, config, secrets, target, palette → core, stats, executors → tools → llm, agents → checks → mcp,
otel → kb → scan → dataset_generation, input_generators → schedule → hub → frames → charts → widgets →
report → testing, demo → cli.

Scenarios and checks (this module), a local Hub, evaluations and scans. ``import giskard_nb`` has no side
effects: no banner, no telemetry, no network, and none of litellm, pandas, plotly or ipywidgets is imported.
"""

from giskard_nb.checks import (
    MRR,
    NDCG,
    AllOf,
    AnyOf,
    AveragePrecision,
    Equals,
    FnCheck,
    GreaterEquals,
    GreaterThan,
    GreaterThanEquals,
    HitRateAtK,
    JsonValid,
    Latency,
    LesserThan,
    LesserThanEquals,
    LessThan,
    LessThanEquals,
    Metadata,
    MetadataRule,
    Not,
    NotEquals,
    PrecisionAtK,
    Readability,
    RecallAtK,
    RegexMatching,
    RegoPolicy,
    StringMatching,
    UnsafeOutput,
    from_fn,
)
from giskard_nb.checks.llm import (
    AnswerRelevance,
    BaseLLMCheck,
    Conformity,
    Contradiction,
    Correctness,
    Groundedness,
    LLMCheckResult,
    LLMJudge,
    Sentiment,
    Toxicity,
)
from giskard_nb.checks.semantic import SemanticSimilarity
from giskard_nb.core.agent_convention import agent_input
from giskard_nb.core.calibration import CalibrationReport, calibrate
from giskard_nb.core.check import Check
from giskard_nb.core.extraction import JSONPathStr, NoMatch, resolve
from giskard_nb.core.interaction import Interaction, Trace
from giskard_nb.core.labels import Label, LabelStore, label, labels
from giskard_nb.core.missing import MISSING
from giskard_nb.core.pass_rate import PassRate
from giskard_nb.core.result import CheckResult, CheckStatus, Metric
from giskard_nb.core.runner import ScenarioRunner
from giskard_nb.core.scenario import Scenario, Step
from giskard_nb.core.scenario_result import ScenarioResult, ScenarioStatus
from giskard_nb.core.spec import InputGenerator, Interact, InteractionSpec
from giskard_nb.core.spy import WithSpy
from giskard_nb.core.suite import Suite
from giskard_nb.core.suite_result import GroupedSuiteResult, GroupStats, SuiteResult
from giskard_nb.core.sync import run_sync
from giskard_nb.core.testcase import (
    TestCase,
    TestCaseError,
    TestCaseResult,
    TestCaseRunner,
    TestCaseStatus,
)
from giskard_nb.core.usage import Usage
from giskard_nb.errors import (
    AgentError,
    AgentInputError,
    ConfigError,
    DuplicateKindError,
    GiskardNBError,
    GiskardValidationError,
    HubError,
    HubStorageError,
    InputGenerationException,
    InteractionGenerationError,
    LLMError,
    NotFoundError,
    SerializationError,
    UnknownKindError,
    WorkerPoolExhausted,
)
from giskard_nb.input_generators import (
    BaseLLMGenerator,
    DatasetInputGenerator,
    LLMGenerator,
    Persona,
    UserSimulator,
)
from giskard_nb.llm import (
    BaseEmbeddingModel,
    BaseGenerator,
    Completion,
    EmbeddingModel,
    GenerationParams,
    Generator,
    TemplateReference,
    WithEmbeddingMixin,
    WithGeneratorMixin,
    get_default_embedding_model,
    get_default_generator,
    register_template_folder,
    set_default_embedding_model,
    set_default_generator,
)
from giskard_nb.target import Target

__version__ = "0.1.0"

#: Public names imported on first access (``from giskard_nb import Hub`` works) so that
#: ``import giskard_nb`` stays light. name -> module that defines it.
_LAZY: dict[str, str] = {
    # frontends: pandas / plotly / ipywidgets load on first use
    "EvaluationRunner": "giskard_nb.widgets",
    "HubBrowser": "giskard_nb.widgets",
    "Playground": "giskard_nb.widgets",
    "ResultsViewer": "giskard_nb.widgets",
    "ScenarioBuilder": "giskard_nb.widgets",
    "ScanRunner": "giskard_nb.widgets",
    "to_dataframe": "giskard_nb.frames",
    # what an agent returns (the one reply model, shared by the Hub and the scan)
    "AgentOutput": "giskard_nb.core.reply",
    # the local Hub: sqlalchemy loads on first use
    "FailureCategory": "giskard_nb.hub",
    "Hub": "giskard_nb.hub",
    # knowledge bases and schedules: numpy loads on first use
    "DocumentIndex": "giskard_nb.kb",
    "ManualClock": "giskard_nb.schedule",
    "Schedule": "giskard_nb.schedule",
    # vulnerability scans (giskard_nb.scan; hub.scans for the stored ones)
    "ReviewStatus": "giskard_nb.scan",
    "ScanReport": "giskard_nb.scan",
    "Severity": "giskard_nb.scan",
    "run_scan": "giskard_nb.scan",
    # the tool checks (giskard_nb.checks.tools; also importable from giskard_nb.checks)
    "ActionClaimsConsistent": "giskard_nb.checks.tools",
    "ConfirmationBeforeSideEffect": "giskard_nb.checks.tools",
    "ToolArgs": "giskard_nb.checks.tools",
    "ToolArgumentsJudge": "giskard_nb.checks.tools",
    "ToolBudget": "giskard_nb.checks.tools",
    "ToolCallF1": "giskard_nb.checks.tools",
    "ToolCalled": "giskard_nb.checks.tools",
    "ToolErrorHandled": "giskard_nb.checks.tools",
    "ToolGroundingJudge": "giskard_nb.checks.tools",
    "ToolNotCalled": "giskard_nb.checks.tools",
    "ToolSchemaValid": "giskard_nb.checks.tools",
    "ToolSelectionJudge": "giskard_nb.checks.tools",
    "ToolSequence": "giskard_nb.checks.tools",
    "TrajectoryJudge": "giskard_nb.checks.tools",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'giskard_nb' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


def scenario(name: str | None = None, **kwargs) -> Scenario:
    """``Scenario(name, ...)``, under the lowercase name some of the seed's examples use."""
    return Scenario(name, **kwargs)


__all__ = [
    "ActionClaimsConsistent",
    "AgentError",
    "AgentInputError",
    "AgentOutput",
    "AllOf",
    "AnswerRelevance",
    "AnyOf",
    "AveragePrecision",
    "BaseEmbeddingModel",
    "BaseGenerator",
    "BaseLLMCheck",
    "BaseLLMGenerator",
    "CalibrationReport",
    "Check",
    "CheckResult",
    "CheckStatus",
    "Completion",
    "ConfigError",
    "ConfirmationBeforeSideEffect",
    "Conformity",
    "Contradiction",
    "Correctness",
    "DatasetInputGenerator",
    "DocumentIndex",
    "DuplicateKindError",
    "EmbeddingModel",
    "Equals",
    "EvaluationRunner",
    "FailureCategory",
    "FnCheck",
    "GenerationParams",
    "Generator",
    "GiskardNBError",
    "GiskardValidationError",
    "GreaterEquals",
    "GreaterThan",
    "GreaterThanEquals",
    "Groundedness",
    "GroupStats",
    "GroupedSuiteResult",
    "HitRateAtK",
    "Hub",
    "HubBrowser",
    "HubError",
    "HubStorageError",
    "InputGenerationException",
    "InputGenerator",
    "Interact",
    "Interaction",
    "InteractionGenerationError",
    "InteractionSpec",
    "JSONPathStr",
    "JsonValid",
    "LLMCheckResult",
    "LLMError",
    "LLMGenerator",
    "LLMJudge",
    "Label",
    "LabelStore",
    "Latency",
    "LessThan",
    "LessThanEquals",
    "LesserThan",
    "LesserThanEquals",
    "MISSING",
    "MRR",
    "ManualClock",
    "Metadata",
    "MetadataRule",
    "Metric",
    "NDCG",
    "NoMatch",
    "Not",
    "NotEquals",
    "NotFoundError",
    "PassRate",
    "Persona",
    "Playground",
    "PrecisionAtK",
    "Readability",
    "RecallAtK",
    "RegexMatching",
    "RegoPolicy",
    "ResultsViewer",
    "ReviewStatus",
    "ScanReport",
    "ScanRunner",
    "Scenario",
    "ScenarioBuilder",
    "ScenarioResult",
    "ScenarioRunner",
    "ScenarioStatus",
    "Schedule",
    "SemanticSimilarity",
    "Sentiment",
    "SerializationError",
    "Severity",
    "Step",
    "StringMatching",
    "Suite",
    "SuiteResult",
    "Target",
    "TemplateReference",
    "TestCase",
    "TestCaseError",
    "TestCaseResult",
    "TestCaseRunner",
    "TestCaseStatus",
    "ToolArgs",
    "ToolArgumentsJudge",
    "ToolBudget",
    "ToolCallF1",
    "ToolCalled",
    "ToolErrorHandled",
    "ToolGroundingJudge",
    "ToolNotCalled",
    "ToolSchemaValid",
    "ToolSelectionJudge",
    "ToolSequence",
    "Toxicity",
    "Trace",
    "TrajectoryJudge",
    "UnknownKindError",
    "UnsafeOutput",
    "Usage",
    "UserSimulator",
    "WithEmbeddingMixin",
    "WithGeneratorMixin",
    "WithSpy",
    "WorkerPoolExhausted",
    "__version__",
    "agent_input",
    "calibrate",
    "from_fn",
    "get_default_embedding_model",
    "get_default_generator",
    "label",
    "labels",
    "register_template_folder",
    "resolve",
    "run_scan",
    "run_sync",
    "scenario",
    "set_default_embedding_model",
    "set_default_generator",
    "to_dataframe",
]
