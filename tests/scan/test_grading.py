from __future__ import annotations

import pytest

from giskard_nb.errors import GiskardValidationError
from giskard_nb.scan import Attack, Attempt, ReviewStatus, ScanReport, Severity, compute_grade


def _attempt(
    severity: Severity, *, successful: bool = True, review=ReviewStatus.PENDING, error=None
):
    attack = Attack(id="p:1", probe_id="p", category="prompt_injection", turns=["hi"])
    return Attempt(
        attack=attack,
        successful=successful,
        severity=severity,
        review_status=review,
        error=error,
    )


@pytest.mark.parametrize(
    ("severities", "grade"),
    [
        ([], "A"),
        ([Severity.SAFE], "A"),
        ([Severity.MINOR, Severity.MINOR], "B"),
        ([Severity.MINOR, Severity.MAJOR], "C"),
        ([Severity.MAJOR, Severity.CRITICAL, Severity.MINOR], "D"),
    ],
)
def test_grade_follows_the_worst_finding(severities, grade):
    assert compute_grade([_attempt(s) for s in severities]) == grade


def test_ignored_unsuccessful_and_errored_attempts_do_not_count():
    attempts = [
        _attempt(Severity.CRITICAL, review=ReviewStatus.IGNORED),
        _attempt(Severity.CRITICAL, successful=False),
        _attempt(Severity.CRITICAL, error="agent timed out"),
        _attempt(Severity.MINOR),
    ]
    assert compute_grade(attempts) == "B"


def test_acknowledged_and_corrected_findings_still_count():
    assert compute_grade([_attempt(Severity.MAJOR, review=ReviewStatus.CORRECTED)]) == "C"
    assert compute_grade([_attempt(Severity.MAJOR, review=ReviewStatus.ACKNOWLEDGED)]) == "C"


def test_review_recomputes_the_grade_of_a_report():
    critical, minor = _attempt(Severity.CRITICAL), _attempt(Severity.MINOR)
    report = ScanReport(attempts=[critical, minor])
    assert report.grade == "D"
    report.review(critical.id, review_status="ignored")
    assert report.grade == "B"
    report.review(minor.id, successful=False)
    assert report.grade == "A"
    report.review(critical.id, review_status="acknowledged", severity="major")
    assert report.grade == "C"
    assert report.attempt(critical.id).review_status is ReviewStatus.ACKNOWLEDGED


def test_severity_and_review_status_parse_names_values_and_reject_junk():
    assert Severity.parse("Critical") is Severity.CRITICAL
    assert Severity.parse(10) is Severity.MINOR
    assert ReviewStatus.parse("IGNORED") is ReviewStatus.IGNORED
    with pytest.raises(GiskardValidationError, match="unknown severity"):
        Severity.parse("catastrophic")
    with pytest.raises(GiskardValidationError, match="pending, ignored"):
        ReviewStatus.parse("maybe")
    with pytest.raises(GiskardValidationError):
        Severity.parse(15)
