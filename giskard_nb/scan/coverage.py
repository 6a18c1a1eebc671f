"""Coverage: which categories a scan actually assessed, and whether its grade is ``incomplete``.

A grade is only as good as what was judged. Per selected category:

================  =====================================================================================
``assessed``      every attempt reached a verdict, by detectors able to judge the category
``partial``       some attempts errored, some of its probes needed a judge model that was not there, or
                  some attempts raised a suspected finding that no judge or reviewer decided
``not_assessed``  nothing was judged: no attempt ran, every attempt errored, or every probe needs a
                  judge model and none was configured (rule detectors only screen: see ``Probe.needs_judge``)
================  =====================================================================================

A suspected finding (``Attempt.evidence == "suspected"``: a rule standing in for a judge) is not a
verdict: its attempt is not counted as assessed until a judge model or a reviewer decides it.

A scan is ``incomplete`` when a selected category is not fully assessed, an attempt errored, or the
scan stopped before its planned attacks ran. The letter is still computed from the findings (a finding
is proof wherever it was found, and only confirmed findings are: see ``giskard_nb.scan.grading``), but
every view says what it covers: "A on 6 of 11 categories —
incomplete: 5 need a judge model (set_default_generator), 34 attempts errored". When nothing was judged
and nothing found there is no grade at all (``None``, shown "—").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from giskard_nb.scan.grading import Gradable, Grade, Severity, grade_of, highest_severity

if TYPE_CHECKING:
    from giskard_nb.scan.result import ScanReport

__all__ = [
    "JUDGE_REMEDY",
    "CategoryCounts",
    "CategoryCoverage",
    "CoverageStatus",
    "ScanCoverage",
    "compute_coverage",
    "counts_line",
    "coverage_from_counts",
    "format_grade_line",
    "grade_from",
    "grade_line",
    "honest_grade",
    "legacy_unjudged",
    "report_coverage",
]

CoverageStatus = Literal["assessed", "partial", "not_assessed"]
Cause = Literal["judge", "errors", "empty", "suspected"]
JUDGE_REMEDY = "set_default_generator('openai/gpt-4o-mini') or set GISKARD_NB_MODEL"


class CategoryCoverage(BaseModel):
    """How far one category was assessed, and why not further (``causes``: judge, errors, empty)."""

    model_config = ConfigDict(frozen=True)

    category: str
    status: CoverageStatus
    attempts: int = 0
    assessed_attempts: int = 0
    errors: int = 0
    #: Probes of the category that need a judge model and ran (or were skipped) without one.
    unjudged_probes: list[str] = Field(default_factory=list)
    #: Attempts with a suspected finding that no judge or reviewer decided.
    suspected: int = 0
    causes: list[Cause] = Field(default_factory=list)

    @property
    def reason(self) -> str:
        parts = []
        if "empty" in self.causes:
            parts.append("no attempt ran")
        if "judge" in self.causes:
            n = len(self.unjudged_probes)
            parts.append(f"{n} probe{'s' * (n != 1)} need{'s' * (n == 1)} a judge model")
        if "errors" in self.causes:
            parts.append(f"{self.errors} of {self.attempts} attempts errored")
        if "suspected" in self.causes:
            n = self.suspected
            parts.append(
                f"{n} suspected finding{'s' * (n != 1)} to confirm (a judge model or a review)"
            )
        return "; ".join(parts)


class ScanCoverage(BaseModel):
    """Coverage of every selected category, and what keeps the scan from being complete."""

    model_config = ConfigDict(frozen=True)

    categories: dict[str, CategoryCoverage] = Field(default_factory=dict)
    attempts: int = 0
    errors: int = 0
    #: Planned attacks that never ran (the scan stopped, was cancelled or failed).
    missing_attacks: int = 0

    @property
    def status(self) -> dict[str, CoverageStatus]:
        """category id -> ``assessed`` | ``partial`` | ``not_assessed``."""
        return {c: cov.status for c, cov in self.categories.items()}

    @property
    def incomplete(self) -> bool:
        return (
            any(c.status != "assessed" for c in self.categories.values())
            or self.errors > 0
            or self.missing_attacks > 0
        )

    @property
    def covered(self) -> int:
        """Categories the grade speaks for (assessed or partial)."""
        return sum(1 for c in self.categories.values() if c.status != "not_assessed")

    def not_assessed(self, cause: Cause | None = None) -> list[str]:
        return [
            c
            for c, cov in self.categories.items()
            if cov.status == "not_assessed" and (cause is None or cov.causes[:1] == [cause])
        ]

    @property
    def note(self) -> str:
        """``""`` when complete, else "incomplete: 5 need a judge model (set_default_generator), …"."""
        if not self.incomplete:
            return ""
        parts = []
        judge = len(self.not_assessed("judge"))
        if judge:
            parts.append(f"{judge} need{'s' * (judge == 1)} a judge model (set_default_generator)")
        errored = len(self.not_assessed("errors"))
        if errored:
            parts.append(f"{errored} not assessed (every attempt errored)")
        empty = len(self.not_assessed("empty"))
        if empty:
            parts.append(f"{empty} had no attempt")
        partial = sum(1 for c in self.categories.values() if c.status == "partial")
        if partial:
            parts.append(f"{partial} partially assessed")
        suspected = sum(c.suspected for c in self.categories.values())
        if suspected:
            parts.append(f"{suspected} suspected finding{'s' * (suspected != 1)} to confirm")
        if self.errors:
            parts.append(f"{self.errors} attempt{'s' * (self.errors != 1)} errored")
        if self.missing_attacks:
            parts.append(f"{self.missing_attacks} planned attacks did not run")
        return "incomplete: " + ", ".join(parts)


def compute_coverage(
    *,
    categories: Iterable[str],
    unjudged: Mapping[str, str],
    attempts: Iterable[tuple[str, str, bool] | tuple[str, str, bool, bool]],
    missing_attacks: int = 0,
) -> ScanCoverage:
    """Coverage from the selected ``categories``, the ``unjudged`` probes (id -> category) and the
    ``attempts`` as ``(probe_id, category, errored)`` or ``(probe_id, category, errored, suspected)``
    (``suspected``: it raised a suspected finding nobody decided)."""
    tally: dict[str, CategoryCounts] = {}
    for probe_id, category, errored, *rest in attempts:
        row = tally.setdefault(category, CategoryCounts())
        row.add(probe_id not in unjudged, bool(errored), bool(rest and rest[0]))
    return coverage_from_counts(
        categories=categories, unjudged=unjudged, counts=tally, missing_attacks=missing_attacks
    )


class CategoryCounts:
    """The attempts of one category as coverage counts them: all, errored, by a probe able to judge
    the category (``judgeable``), judgeable ones that reached a verdict (``judged``: a suspected
    finding nobody decided is no verdict), and those with such a finding (``suspected``)."""

    __slots__ = ("attempts", "errors", "judgeable", "judged", "suspected")

    def __init__(
        self,
        attempts: int = 0,
        errors: int = 0,
        judgeable: int = 0,
        judged: int = 0,
        suspected: int = 0,
    ):
        self.attempts, self.errors = attempts, errors
        self.judgeable, self.judged, self.suspected = judgeable, judged, suspected

    def add(self, judgeable: bool, errored: bool, suspected: bool, n: int = 1) -> None:
        """Count ``n`` attempts alike."""
        self.attempts += n
        self.errors += n * errored
        self.judgeable += n * judgeable
        self.judged += n * (judgeable and not errored and not suspected)
        self.suspected += n * (suspected and not errored)

    def __repr__(self) -> str:
        return (
            f"CategoryCounts(attempts={self.attempts}, errors={self.errors}, "
            f"judgeable={self.judgeable}, judged={self.judged}, suspected={self.suspected})"
        )


def coverage_from_counts(
    *,
    categories: Iterable[str],
    unjudged: Mapping[str, str],
    counts: Mapping[str, CategoryCounts],
    missing_attacks: int = 0,
) -> ScanCoverage:
    """``compute_coverage`` from counts kept per category (a running tally: no attempt re-read).
    Categories with attempts but not selected follow the selected ones, in ``counts`` order."""
    order = list(dict.fromkeys(categories))
    order += [c for c in counts if c not in order]
    out = {}
    for category in order:
        c = counts.get(category) or CategoryCounts()
        probes = sorted(p for p, cat in unjudged.items() if cat == category)
        out[category] = _one(category, c, probes)
    return ScanCoverage(
        categories=out,
        attempts=sum(c.attempts for c in counts.values()),
        errors=sum(c.errors for c in counts.values()),
        missing_attacks=max(0, missing_attacks),
    )


def _one(category: str, c: CategoryCounts, probes: list[str]) -> CategoryCoverage:
    total, errs, judgeable, judged = c.attempts, c.errors, c.judgeable, c.judged
    causes: list[Cause]
    if total == 0:
        causes = ["judge"] if probes else ["empty"]
    elif judged == 0 and judgeable and c.suspected:  # every verdict is a suspicion to confirm
        causes = ["suspected", *(k for k, on in (("judge", probes), ("errors", errs)) if on)]
    elif judged == 0 and judgeable:  # the probes able to judge it ran, and every attempt errored
        causes = ["errors", "judge"] if probes else ["errors"]
    elif judged == 0:  # only probes that need a judge model ran
        causes = ["judge", "errors"] if errs else ["judge"]
    else:
        causes = [k for k, on in (("judge", bool(probes)), ("errors", errs > 0)) if on]
    if c.suspected and "suspected" not in causes:
        causes.append("suspected")
    status: CoverageStatus = (
        "not_assessed" if judged == 0 else ("partial" if causes else "assessed")
    )
    return CategoryCoverage(
        category=category, status=status, attempts=total, assessed_attempts=judged, errors=errs,
        unjudged_probes=probes, suspected=c.suspected, causes=causes,
    )  # fmt: skip


def honest_grade(attempts: Iterable[Gradable], coverage: ScanCoverage) -> Grade | None:
    """The A–D letter, or ``None`` when nothing was judged and nothing was found."""
    return grade_from(highest_severity(attempts), coverage)


def grade_from(worst: Severity, coverage: ScanCoverage) -> Grade | None:
    """``honest_grade`` from a running tally: ``worst`` is the highest severity among the findings
    (SAFE when there is none)."""
    if coverage.covered == 0 and worst == Severity.SAFE:
        return None
    return grade_of(worst)


def grade_line(grade: Grade | None, coverage: ScanCoverage) -> str:
    """ "A", "A on 6 of 11 categories — incomplete: …", or "— not assessed — incomplete: …"."""
    return format_grade_line(
        grade, covered=coverage.covered, total=len(coverage.categories), note=coverage.note
    )


def format_grade_line(grade: str | None, *, covered: int, total: int, note: str) -> str:
    """``grade_line`` from stored parts (a Hub scan keeps the counts and the note, not the attempts)."""
    if grade is None:
        return f"— not assessed — {note or 'incomplete: nothing was judged'}"
    if not note:
        return grade
    return f"{grade} on {covered} of {total} categories — {note}"


def counts_line(findings: int, attempts: int, errors: int, suspected: int = 0) -> str:
    """ "0 findings in 136 attempts", "0 findings in 102 judged attempts; 34 errored", and
    "; 3 suspected (to confirm)" when rule-based suspected findings await a judge or a review."""
    s = "s" * (findings != 1)
    if not errors:
        line = f"{findings} finding{s} in {attempts} attempts"
    else:
        line = f"{findings} finding{s} in {attempts - errors} judged attempts; {errors} errored"
    return line + (f"; {suspected} suspected (to confirm)" if suspected else "")


def report_coverage(report: ScanReport) -> ScanCoverage:
    """The coverage of an engine ``ScanReport`` (reports written before coverage was recorded have
    their unjudged probes inferred from the catalogue and the attempts' model usage)."""
    categories, unjudged = list(report.categories), dict(report.unjudged)
    if not categories:
        categories, unjudged = _legacy_selection(report)
    missing = 0
    if report.status in ("stopped", "cancelled", "error") and report.planned_attacks:
        missing = report.planned_attacks - len(report.attempts)
    return compute_coverage(
        categories=categories,
        unjudged=unjudged,
        attempts=(
            (a.probe_id, a.category, a.error is not None, a.suspected) for a in report.attempts
        ),
        missing_attacks=missing,
    )


def legacy_unjudged(probe_id: str, *, skipped: str | None, judged: bool) -> str | None:
    """For a scan recorded before coverage was: the category of ``probe_id`` if it is a catalogue
    probe that needs a judge model and none judged it (skipped for want of one, or no model call)."""
    from giskard_nb.scan.catalogue import default_catalogue

    probe = next((p for p in default_catalogue().probes() if p.id == probe_id), None)
    if probe is None or not probe.judge:
        return None
    if skipped is not None:
        return probe.category if "judge" in skipped else None
    return probe.category if probe.needs_judge and not judged else None


def _legacy_selection(report: ScanReport) -> tuple[list[str], dict[str, str]]:
    judged = {a.probe_id for a in report.attempts if a.usage.llm_calls > 0}
    categories = [p.get("category", "") for p in report.probes]
    unjudged = {}
    for p in report.probes:
        category = legacy_unjudged(p["id"], skipped=None, judged=p["id"] in judged)
        if category:
            unjudged[p["id"]] = category
    for pid, why in report.skipped_probes.items():
        category = legacy_unjudged(pid, skipped=why, judged=False)
        if category:
            categories.append(category)
            unjudged[pid] = category
    categories += [a.category for a in report.attempts]
    return [c for c in dict.fromkeys(categories) if c], unjudged
