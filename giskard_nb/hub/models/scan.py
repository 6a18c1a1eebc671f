"""Scans stored in the Hub: the scan, its probes, and its attempts (the engine's ``Attempt`` plus Hub
bookkeeping). A stored scan's views (grade card, DataFrames, summaries) are those of the engine's
``ScanReport``, rebuilt from the stored attempts."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, model_validator

from giskard_nb.core.usage import Usage
from giskard_nb.hub.models.base import HubModel, HubRecord
from giskard_nb.scan.coverage import CoverageStatus, counts_line, format_grade_line
from giskard_nb.scan.grading import Grade, Severity
from giskard_nb.scan.result import Attempt, AttemptFields, ScanRunFields

if TYPE_CHECKING:
    import pandas as pd

    from giskard_nb.hub.models.dataset import Dataset
    from giskard_nb.scan.result import ScanReport

__all__ = ["AvailableProbe", "Scan", "ScanAttempt", "ScanProbe", "ScanStatus", "readable_error"]

ScanStatus = Literal["running", "finished", "stopped", "interrupted", "error"]
#: What a database driver's error adds after its message: the statement, its parameters, a link.
_SQL_DUMP = re.compile(r"\s*(\[SQL:|\[parameters:|\(Background on this error).*", re.S)


def readable_error(text: str, *, limit: int = 600) -> str:
    """An error message without the SQL statement and parameters a database error carries (scans
    stored before their errors were made readable), at most ``limit`` characters."""
    text = _SQL_DUMP.sub("", text or "").strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


class AvailableProbe(HubModel):
    """A probe of the catalogue: what ``hub.scans.list_available_probes()`` returns."""

    id: str
    name: str
    description: str
    category: str
    tags: list[str] = Field(default_factory=list)
    severity: Severity
    requires: list[str] = Field(default_factory=list)


class Scan(ScanRunFields, HubRecord):
    """A vulnerability scan of an agent: status, timing, grade (A–D) and counts (``successes``: the
    findings that set the grade; ``suspected``: rule-based findings awaiting a judge or a review).

        ``grade``, ``counts`` and the coverage (``coverage``: category id -> ``assessed`` | ``partial`` |
        ``not_assessed``; ``incomplete``; ``coverage_note``) are recomputed whenever an attempt is added or
        reviewed; ``grade`` is ``None`` when nothing was judged, and for a scan that errored (its ``error``
    says what failed and what to do). A scan stored before coverage was recorded
        reads back with ``coverage``/``incomplete`` ``None`` until its next write (``scan.report()``
        infers it). ``options`` are the scan options without secrets (a system prompt or secrets given to
        the scan are not stored).

    Its name, timing, plan and options are the engine's ``ScanRunFields`` (those of a
    ``ScanReport``, which ``report()`` builds from them).
    """

    project_id: str
    name: str  # required here
    agent_id: str | None = None
    agent_name: str = ""
    local: bool = False
    knowledge_base_id: str | None = None
    status: ScanStatus = "running"
    grade: Grade | None = None
    error: str | None = None
    estimate: dict[str, Any] | None = None
    counts: dict[str, int] = Field(default_factory=dict)
    coverage: dict[str, CoverageStatus] | None = None
    incomplete: bool | None = None
    #: "" when complete, else "incomplete: 5 need a judge model (set_default_generator), …".
    coverage_note: str = ""
    #: Model usage of the whole scan (attempts and generated variants), and of the variants alone.
    usage: Usage = Field(default_factory=Usage)
    generation_usage: Usage = Field(default_factory=Usage)

    @model_validator(mode="before")
    @classmethod
    def _errored(cls, data: Any) -> Any:
        """A scan that errored has no grade, and its error never shows SQL (older rows included)."""
        if isinstance(data, dict) and data.get("status") == "error":
            data = {**data, "grade": None}
            if data.get("error"):
                data["error"] = readable_error(data["error"])
        return data

    # -- views (need the Hub this record was read from) ----------------------------------------------

    def refresh(self) -> Scan:
        return self._require_hub().scans.retrieve(self.id)

    def probes(self) -> list[ScanProbe]:
        return self._require_hub().scans.probes.list(self.id)

    def attempts(self, **filters: Any) -> list[ScanAttempt]:
        return self._require_hub().scans.attempts.list(scan_id=self.id, **filters)

    def report(self) -> ScanReport:
        """The engine's ``ScanReport`` of this scan (summaries, grade card, tables, regression scenarios)."""
        return self._require_hub().scans.report(self.id)

    def to_dataframe(self) -> pd.DataFrame:
        """One row per attempt."""
        return self.report().to_dataframe()

    def plot_grid(self) -> Any:
        """A Plotly figure: findings per category and severity."""
        return self.report().plot_grid()

    def plot_grade_card(self) -> Any:
        """A Plotly figure: the grade card."""
        return self.report().plot_grade_card()

    def probes_dataframe(self) -> pd.DataFrame:
        return self.report().probes_dataframe()

    def categories_dataframe(self) -> pd.DataFrame:
        return self.report().categories_dataframe()

    def to_dataset(self, name: str | None = None, attempt_ids: list[str] | None = None) -> Dataset:
        """A new dataset of regression test cases from the chosen attempts (default: every successful,
        non-ignored one): each fails while the weakness remains and passes once the agent is fixed."""
        return self._require_hub().scans.to_dataset(self.id, name=name, attempt_ids=attempt_ids)

    @property
    def grade_line(self) -> str:
        """The grade with what it covers: "A", "A on 6 of 11 categories — incomplete: …", or
        "— not assessed — …" (a scan stored before coverage was recorded: "A (coverage not recorded)")."""
        if self.coverage is None:
            return f"{self.grade or '—'} (coverage not recorded: see scan.report())"
        covered = sum(1 for s in self.coverage.values() if s != "not_assessed")
        return format_grade_line(
            self.grade, covered=covered, total=len(self.coverage), note=self.coverage_note
        )

    @property
    def counts_line(self) -> str:
        c = self.counts
        return counts_line(
            c.get("successes", 0), c.get("attempts", 0), c.get("errors", 0), c.get("suspected", 0)
        )

    def __repr__(self) -> str:
        return f"<Scan {self.name!r} {self.status} grade={self.grade_line}; {self.counts_line} id={self.id}>"

    def _repr_html_(self) -> str:
        from giskard_nb.core.render import safe_html
        from giskard_nb.scan.render import scan_html

        if self._hub is None:
            return f"<pre>{__import__('html').escape(repr(self))}</pre>"
        return safe_html(lambda s: scan_html(s.report()), self)


class ScanProbe(HubRecord):
    """One probe of a scan, with its tallies (attempts, successes, errors, suspected findings not
    decided yet, highest severity)."""

    scan_id: str
    project_id: str
    probe_id: str
    position: int = 0
    name: str = ""
    description: str = ""
    category: str = ""
    tags: list[str] = Field(default_factory=list)
    severity: Severity = Severity.MAJOR
    skipped: str | None = None
    #: The probe needs a judge model and ran (or was skipped) without one: its category is not
    #: assessed by it. ``None``: stored before coverage was recorded.
    unjudged: bool | None = None
    attempts: int = 0
    successes: int = 0
    errors: int = 0
    suspected: int = 0
    highest_severity: Severity = Severity.SAFE

    def list_attempts(self) -> list[ScanAttempt]:
        return self._require_hub().scans.attempts.list(self.id)

    def __repr__(self) -> str:
        state = (
            f"skipped: {self.skipped}"
            if self.skipped
            else (
                f"{self.successes}/{self.attempts} successful, worst {self.highest_severity.label}"
            )
        )
        if self.unjudged:
            state += " (needs a judge model: screened, not assessed)"
        return f"<ScanProbe {self.probe_id} {state} id={self.id}>"


class ScanAttempt(HubRecord):
    """One attack against the agent, as stored: the engine's ``Attempt`` (``attempt``) with the ids of
    its scan, scan probe and project. Its id and creation time are the attempt's.

    Every field of the attempt reads through (``stored.output``, ``stored.severity``,
    ``stored.review_status``, ``stored.probe_id``, ``stored.category``, ``stored.status``...);
    ``hub.scans.attempts.update`` changes the review.
    """

    scan_id: str
    scan_probe_id: str
    project_id: str
    attempt: Attempt

    @property
    def attack_id(self) -> str:
        """The id of the attack (unique in its scan: what ``resume`` skips)."""
        return self.attempt.attack.id

    def to_attempt(self) -> Attempt:
        """The engine's ``Attempt`` (same id) — for reports and regression checks."""
        return self.attempt

    @classmethod
    def from_attempt(
        cls, attempt: Attempt, *, scan_id: str, scan_probe_id: str, project_id: str
    ) -> ScanAttempt:
        """The stored form of an engine ``Attempt`` of a scan."""
        return cls(
            id=attempt.id,
            created_at=attempt.created_at,
            updated_at=attempt.created_at,
            scan_id=scan_id,
            scan_probe_id=scan_probe_id,
            project_id=project_id,
            attempt=attempt,
        )

    def __repr__(self) -> str:
        return repr(self.attempt).replace("<Attempt", "<ScanAttempt", 1)


def _read_through(name: str) -> property:
    def read(self: ScanAttempt) -> Any:
        return getattr(self.attempt, name)

    return property(read, doc=f"The attempt's ``{name}`` (``scan_attempt.attempt.{name}``).")


#: The attempt's fields and views, readable on the stored record as they were before it wrapped it.
_ATTEMPT_VIEWS = (
    *AttemptFields.model_fields,
    "probe_id",
    "category",
    "counts",
    "status",
    "input_messages",
)
for _name in _ATTEMPT_VIEWS:
    setattr(ScanAttempt, _name, _read_through(_name))
del _name
