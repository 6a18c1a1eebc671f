"""Vulnerability scans: OWASP-graded adversarial probing of an agent, offline-capable. May import:
errors, palette, secrets, core, executors, tools, llm and checks; frames and charts only lazily, for
the report's ``to_dataframe()`` and ``plot_*()``.

::

    from giskard_nb.scan import run_scan, estimate_scan
    print(estimate_scan(categories=["prompt_injection"]))      # preflight: calls, tokens, cost
    report = await run_scan(my_agent, categories=["prompt_injection", "system_prompt_leakage"])
    report.grade, report.to_dataframe(), report.category_summaries()

The engine: a catalogue of categories (OWASP LLM Top 10, 2025 numbering, and beyond) and probes
(``list_categories``, ``list_probes``), a probe library written for giskard-nb, loaders for public attack
datasets (``giskard_nb.scan.loaders``), rule-based and LLM-judged detectors, severity and review, the
A–D grade, a preflight estimate and budget cap, and a concurrent runner that reports every attempt as
it completes. Without a model configured everything runs offline on the rule detectors; the categories
that need a judge model are then reported ``not_assessed`` and the scan ``incomplete`` (coverage).
"""

from giskard_nb.scan.agent import AgentReply, call_agent, normalize_reply
from giskard_nb.scan.attack import Attack, AttackProfile
from giskard_nb.scan.budget import Budget, Estimate
from giskard_nb.scan.catalogue import CATEGORIES, Catalogue, Category, default_catalogue
from giskard_nb.scan.coverage import CategoryCoverage, CoverageStatus, ScanCoverage
from giskard_nb.scan.detectors import Detection, DetectionContext, Detector, detect_refusal
from giskard_nb.scan.grading import Grade, ReviewStatus, Severity, compute_grade
from giskard_nb.scan.plan import ScanOptions, ScanPlan, estimate_scan, plan_scan
from giskard_nb.scan.probe import AttackTemplate, Probe
from giskard_nb.scan.result import Attempt, CategorySummary, ProbeSummary, ScanReport
from giskard_nb.scan.runner import run_scan, run_scan_sync
from giskard_nb.scan.sarif import scan_to_sarif


def list_categories() -> list[Category]:
    """The vulnerability categories, with their OWASP LLM Top 10 (2025) ids where one exists."""
    return default_catalogue().categories()


def list_probes(category: str | None = None) -> list[Probe]:
    """The built-in probes (of one category, or all)."""
    if category is not None:
        default_catalogue().category(category)
    return default_catalogue().probes(category)


__all__ = [
    "CATEGORIES",
    "AgentReply",
    "Attack",
    "AttackProfile",
    "AttackTemplate",
    "Attempt",
    "Budget",
    "Catalogue",
    "Category",
    "CategoryCoverage",
    "CategorySummary",
    "CoverageStatus",
    "Detection",
    "DetectionContext",
    "Detector",
    "Estimate",
    "Grade",
    "Probe",
    "ProbeSummary",
    "ReviewStatus",
    "ScanOptions",
    "ScanPlan",
    "ScanCoverage",
    "ScanReport",
    "Severity",
    "call_agent",
    "compute_grade",
    "default_catalogue",
    "detect_refusal",
    "estimate_scan",
    "list_categories",
    "list_probes",
    "normalize_reply",
    "plan_scan",
    "run_scan",
    "run_scan_sync",
    "scan_to_sarif",
]
