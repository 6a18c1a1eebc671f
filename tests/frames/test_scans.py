"""The scan frames of ``giskard_nb.frames.scans``, behind ``ScanReport.to_dataframe()`` and its siblings."""

from __future__ import annotations

import pandas as pd

from giskard_nb.frames.scans import ATTEMPT_COLUMNS, attempts_frame, summaries_frame
from giskard_nb.scan.attack import Attack
from giskard_nb.scan.grading import Severity
from giskard_nb.scan.result import Attempt, ProbeSummary, ScanReport


def _attempt(**fields):
    attack = Attack(
        id="a1", probe_id="output.html_injection", category="improper_output_handling", turns=["x"]
    )
    return Attempt(attack=attack, probe_name="HTML injection", **fields)


def test_one_row_per_attempt_with_the_documented_columns():
    found = _attempt(
        messages=[
            {"role": "user", "content": "first"},
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": "<img src=x onerror=alert(1)>"},
            {"role": "assistant", "content": "<img src=x onerror=alert(1)>"},
        ],
        output="<img src=x onerror=alert(1)>",
        successful=True,
        severity="major",
        reason="the markup came back unescaped",
    )
    failed = _attempt(error="agent raised ValueError", error_phase="agent")
    df = attempts_frame([found, failed])
    assert list(df.columns) == ATTEMPT_COLUMNS
    assert list(df["status"]) == ["vulnerable", "error"]
    assert list(df["input"]) == ["<img src=x onerror=alert(1)>", ""]  # the last user turn
    assert list(df["turns"]) == [2, 0]
    assert df["severity"].cat.ordered and list(df["severity"].cat.categories) == [
        s.label for s in Severity
    ]
    assert (df["severity"] > "safe").tolist() == [True, False]  # ordered: major > safe
    assert list(df["counts"]) == [True, False]


def test_an_empty_scan_has_the_columns_and_no_rows():
    df = attempts_frame([])
    assert list(df.columns) == ATTEMPT_COLUMNS and len(df) == 0


def test_summaries_show_the_severity_label():
    df = summaries_frame(
        [ProbeSummary(probe_id="p", name="P", category="bias", highest_severity=Severity.CRITICAL)]
    )
    assert df.loc[0, "highest_severity"] == "critical"


def test_the_report_methods_delegate_to_the_frames_module():
    report = ScanReport(attempts=[_attempt(successful=True, severity="minor")])
    pd.testing.assert_frame_equal(report.to_dataframe(), attempts_frame(report.attempts))
    probes = report.probes_dataframe()
    assert list(probes["probe_id"]) == ["output.html_injection"]
    assert probes.attrs["grade"] == report.grade
    categories = report.categories_dataframe()
    assert "improper_output_handling" in set(categories["category"])
