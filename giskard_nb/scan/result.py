"""Attempt (one attack against the agent, with its verdict and review) and ScanReport (a whole scan).

Both are plain pydantic models that round-trip through JSON (``schema_version`` marks the format).
The grade is never stored: it is computed from the attempts, so a review changes it at once. Neither is
the coverage (``coverage``, ``incomplete``: see ``giskard_nb.scan.coverage``), computed from the
selected categories, the probes that lacked a judge model, and the attempts that errored.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from giskard_nb.core.usage import Usage
from giskard_nb.errors import NotFoundError
from giskard_nb.scan.attack import Attack
from giskard_nb.scan.budget import Estimate
from giskard_nb.scan.coverage import (
    CoverageStatus,
    ScanCoverage,
    counts_line,
    grade_line,
    honest_grade,
    report_coverage,
)
from giskard_nb.scan.grading import (
    EvidenceTier,
    Grade,
    ReviewStatus,
    Severity,
    counts_toward_grade,
    highest_severity,
    is_suspected,
)
from giskard_nb.scan.summary import (
    CategorySummary,
    ProbeSummary,
    category_summaries,
    probe_summaries,
)

__all__ = [
    "SCHEMA_VERSION",
    "Attempt",
    "AttemptFields",
    "CategorySummary",
    "ProbeSummary",
    "ScanReport",
    "ScanRunFields",
    "ScanStatus",
]

SCHEMA_VERSION = 1
ScanStatus = Literal["pending", "running", "completed", "stopped", "cancelled", "error"]


def _now() -> datetime:
    return datetime.now(UTC)


class _Identified(BaseModel):
    """The format version and id an engine ``Attempt`` starts its dumps with."""

    schema_version: int = SCHEMA_VERSION
    id: str = Field(default_factory=lambda: uuid.uuid4().hex)


class AttemptFields(BaseModel):
    """What an attempt is (the attack, the conversation, the verdict, the review, the cost): the fields
    shared by the engine's ``Attempt`` and the Hub's stored ``ScanAttempt``."""

    attack: Attack
    probe_name: str = ""
    messages: list[dict[str, Any]] = Field(default_factory=list)
    output: str = ""
    output_metadata: dict[str, Any] = Field(default_factory=dict)
    tool_calls: list[dict[str, Any]] = Field(default_factory=list)
    successful: bool = False
    severity: Severity = Severity.SAFE
    reason: str = ""
    detector: str | None = None
    detector_config: dict[str, Any] | None = None
    forbidden_patterns: list[str] = Field(default_factory=list)
    #: ``confirmed`` (deterministic evidence or a judge's verdict: sets the grade), ``suspected`` (a rule
    #: standing in for a judge: never in the grade unless acknowledged), ``None`` (no finding).
    evidence: EvidenceTier | None = None
    #: The excerpt of the reply that shows the finding.
    excerpt: str | None = None
    review_status: ReviewStatus = ReviewStatus.PENDING
    error: str | None = None
    error_phase: Literal["agent", "detector", "generator"] | None = None
    usage: Usage = Field(default_factory=Usage)
    agent_calls: int = 0
    duration_ms: float = 0.0

    @field_validator("severity", mode="before")
    @classmethod
    def _severity(cls, value: Any) -> Severity:
        return Severity.parse(value)

    @field_validator("review_status", mode="before")
    @classmethod
    def _review(cls, value: Any) -> ReviewStatus:
        return ReviewStatus.parse(value)

    @model_validator(mode="before")
    @classmethod
    def _legacy_evidence(cls, data: Any) -> Any:
        """Attempts recorded before the evidence tier: see ``detectors.base.legacy_evidence``."""
        from giskard_nb.scan.detectors.base import legacy_evidence

        return legacy_evidence(data)

    @property
    def suspected(self) -> bool:
        """A suspected finding nobody has decided yet (no judge verdict, no review)."""
        return is_suspected(self)

    @property
    def probe_id(self) -> str:
        return self.attack.probe_id

    @property
    def category(self) -> str:
        return self.attack.category


class Attempt(AttemptFields, _Identified):
    """One attack run against the agent: the conversation, the verdict, and the reviewer's say."""

    model_config = ConfigDict(defer_build=True, frozen=True)

    created_at: datetime = Field(default_factory=_now)

    @property
    def input_messages(self) -> list[dict[str, Any]]:
        """The conversation without the agent's final reply."""
        msgs = self.messages
        return msgs[:-1] if msgs and msgs[-1].get("role") == "assistant" else list(msgs)

    @property
    def counts(self) -> bool:
        """Whether this attempt is a finding that weighs on the grade."""
        return counts_toward_grade(self)

    @property
    def status(self) -> str:
        """``error``, ``vulnerable`` (a finding that counts), ``suspected`` (a suspected finding not
        decided yet), ``ignored`` (a cleared success) or ``safe``."""
        if self.error is not None:
            return "error"
        if self.successful and self.severity > Severity.SAFE:
            if self.review_status == ReviewStatus.IGNORED:
                return "ignored"
            return "suspected" if self.suspected else "vulnerable"
        return "safe"

    def review(
        self,
        *,
        review_status: ReviewStatus | str | None = None,
        severity: Severity | int | str | None = None,
        successful: bool | None = None,
    ) -> Attempt:
        """A copy with the reviewer's changes (unchanged fields are kept)."""
        update: dict[str, Any] = {}
        if review_status is not None:
            update["review_status"] = ReviewStatus.parse(review_status)
        if severity is not None:
            update["severity"] = Severity.parse(severity)
        if successful is not None:
            update["successful"] = bool(successful)
            if successful and self.evidence is None:  # a reviewer's finding: confirmed
                update["evidence"] = "confirmed"
        return self.model_copy(update=update)

    def __repr__(self) -> str:
        verdict = f"{self.status.upper()} {self.severity.label}" if not self.error else "ERROR"
        return f"<Attempt {self.probe_id} [{self.attack.variant}] {verdict}: {self.reason[:60]!r}>"

    __str__ = __repr__


class ScanRunFields(BaseModel):
    """What a scan run is beside its attempts and status (its name, timing, plan and options): the
    fields shared by the engine's ``ScanReport`` and the Hub's stored ``Scan``, which derive from it."""

    name: str = "scan"
    stop_reason: str | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    skipped_probes: dict[str, str] = Field(default_factory=dict)
    planned_attacks: int = 0
    options: dict[str, Any] = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list)

    def run_fields(self) -> dict[str, Any]:
        """These fields' values (to build the other kind of scan from this one)."""
        return {name: getattr(self, name) for name in ScanRunFields.model_fields}


class ScanReport(ScanRunFields, _Identified):
    """A scan: status, timing, every attempt, and the probes that were planned or skipped."""

    model_config = ConfigDict(defer_build=True)

    status: ScanStatus = "pending"
    attempts: list[Attempt] = Field(default_factory=list)
    probes: list[dict[str, Any]] = Field(default_factory=list)
    estimate: Estimate | None = None
    #: Model usage outside attempts (generated variants).
    extra_usage: Usage = Field(default_factory=Usage)
    #: The categories the scan was asked to assess (every category of a selected probe).
    categories: list[str] = Field(default_factory=list)
    #: Probes (id -> category) that need a judge model and ran, or were skipped, without one.
    unjudged: dict[str, str] = Field(default_factory=dict)

    @property
    def coverage_details(self) -> ScanCoverage:
        """Per-category coverage with its reasons, and what keeps the scan from being complete."""
        return report_coverage(self)

    @property
    def coverage(self) -> dict[str, CoverageStatus]:
        """category id -> ``assessed``, ``partial`` or ``not_assessed``."""
        return self.coverage_details.status

    @property
    def incomplete(self) -> bool:
        """True when a selected category is not fully assessed or an attempt errored."""
        return self.coverage_details.incomplete

    @property
    def grade(self) -> Grade | None:
        """A–D from the findings; ``None`` when nothing was judged and nothing found (never a bare A),
        or when the scan errored."""
        if self.status == "error":
            return None
        return honest_grade(self.attempts, self.coverage_details)

    @property
    def grade_line(self) -> str:
        """The grade with what it covers: "A", or "A on 6 of 11 categories — incomplete: …"."""
        return grade_line(self.grade, self.coverage_details)

    @property
    def counts_line(self) -> str:
        """ "0 findings in 136 attempts", or "0 findings in 102 judged attempts; 34 errored"."""
        return counts_line(
            len(self.findings), len(self.attempts), len(self.errors), len(self.suspected)
        )

    @property
    def highest_severity(self) -> Severity:
        return highest_severity(self.attempts)

    @property
    def findings(self) -> list[Attempt]:
        """The findings that set the grade (confirmed, or acknowledged by a reviewer)."""
        return [a for a in self.attempts if a.counts]

    @property
    def suspected(self) -> list[Attempt]:
        """Suspected findings not decided yet: rule-based, shown for review, never in the grade."""
        return [a for a in self.attempts if a.suspected]

    @property
    def errors(self) -> list[Attempt]:
        return [a for a in self.attempts if a.error is not None]

    @property
    def usage(self) -> Usage:
        total = self.extra_usage
        for a in self.attempts:
            total = total + a.usage
        return total

    @property
    def agent_calls(self) -> int:
        return sum(a.agent_calls for a in self.attempts)

    def attempt(self, attempt_id: str) -> Attempt:
        for a in self.attempts:
            if a.id == attempt_id:
                return a
        raise NotFoundError(f"no attempt {attempt_id!r} in scan {self.id!r}")

    def review(self, attempt_id: str, **changes: Any) -> Attempt:
        """Apply a review (``review_status=``, ``severity=``, ``successful=``); the grade follows."""
        for i, a in enumerate(self.attempts):
            if a.id == attempt_id:
                self.attempts[i] = a.review(**changes)
                return self.attempts[i]
        raise NotFoundError(f"no attempt {attempt_id!r} in scan {self.id!r}")

    def probe_summaries(self) -> list[ProbeSummary]:
        return probe_summaries(self)

    def category_summaries(self) -> list[CategorySummary]:
        return category_summaries(self)

    def to_dataframe(self):
        """One row per attempt (pandas)."""
        from giskard_nb.frames.scans import attempts_frame

        return attempts_frame(self.attempts)

    def plot_grid(self):
        """A Plotly figure: findings per category and severity (see ``giskard_nb.charts``)."""
        from giskard_nb.charts import plot_scan_grid

        return plot_scan_grid(self)

    def plot_grade_card(self):
        """A Plotly figure: the grade and its reason, with per-category counts."""
        from giskard_nb.charts import plot_grade_card

        return plot_grade_card(self)

    def probes_dataframe(self):
        """One row per probe (``attrs``: the grade, ``grade_line`` and ``incomplete``)."""
        from giskard_nb.frames.scans import summaries_frame

        return self._with_grade(summaries_frame(self.probe_summaries()))

    def categories_dataframe(self):
        """One row per category with its ``coverage`` (``assessed``/``partial``/``not_assessed``) and
        ``coverage_reason``; ``attrs`` hold the grade, ``grade_line`` and ``incomplete``."""
        from giskard_nb.frames.scans import summaries_frame

        return self._with_grade(summaries_frame(self.category_summaries()))

    def _with_grade(self, df):
        df.attrs.update(grade=self.grade, grade_line=self.grade_line, incomplete=self.incomplete)
        return df

    def to_test_cases(self, attempt_ids: list[str] | None = None):
        """Regression scenarios (core ``Scenario``) for the chosen attempts (default: the findings)."""
        from giskard_nb.scan.regression import attempts_to_scenarios

        chosen = self.findings if attempt_ids is None else [self.attempt(i) for i in attempt_ids]
        return attempts_to_scenarios(chosen)

    def to_sarif(self, path: str | Path, *, agent_name: str = "agent") -> Path:
        """Write the findings as a SARIF 2.1.0 log (one result per finding, OWASP ids as rules)."""
        from giskard_nb.scan.sarif import write_sarif

        return write_sarif(self, path, agent_name=agent_name)

    def report(self) -> str:
        from giskard_nb.scan.render import scan_text

        return scan_text(self)

    def __repr__(self) -> str:
        return (
            f"<ScanReport {self.name!r} {self.status} grade={self.grade_line}; {self.counts_line}>"
        )

    __str__ = __repr__

    def _repr_html_(self) -> str:
        from giskard_nb.core.render import safe_html
        from giskard_nb.scan.render import scan_html

        return safe_html(scan_html, self)
