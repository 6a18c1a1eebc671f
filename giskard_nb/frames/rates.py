"""DataFrames of pass rates with their 95 % intervals: one row per case of a suite run (over its
repeats), and one row per group (check, tag value, or overall) from ``SuiteResult.pass_rates``.

``rates_frame`` columns: ``by``, ``group``, ``passed``, ``failed``, ``errored``, ``skipped``,
``pass_rate`` (NaN when nothing was judged), ``pass_rate_low``, ``pass_rate_high`` and
``interval_method`` (``"wilson"`` for one run of each case, ``"bootstrap"`` over cases for repeats).
The ``level="cases"`` columns are documented in ``giskard_nb.frames.results``; ``hub_cases_frame`` has
the same columns for the test cases of a Hub evaluation, with ``test_case_id`` and ``label`` (its last
user message) instead of ``suite``, ``case_index`` and ``scenario``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from giskard_nb.frames._common import frame

if TYPE_CHECKING:
    import pandas as pd

    from giskard_nb.core.repeats import GroupRate
    from giskard_nb.core.scenario_result import ScenarioResult
    from giskard_nb.hub.summary_cases import CaseStats

__all__ = ["cases_frame", "hub_cases_frame", "rates_frame"]

_COUNTS = ("passed", "failed", "errored", "skipped")
_CASE_COLUMNS = (
    "runs", *_COUNTS, "pass_fraction", "pass_rate_low", "pass_rate_high", "pass_all", "pass_any",
    "flaky",
)  # fmt: skip
_CASE_DTYPES = {
    **dict.fromkeys(("case_index", "runs", *_COUNTS), "int64"),
    **dict.fromkeys(("pass_fraction", "pass_rate_low", "pass_rate_high"), "float64"),
    **dict.fromkeys(("pass_all", "pass_any", "flaky"), "bool"),
}


def _nan(value: float | None) -> float:
    return float("nan") if value is None else value


def cases_frame(results: Sequence[ScenarioResult], suite: str | None = None) -> pd.DataFrame:
    """One row per case (see ``giskard_nb.core.repeats.case_summaries``)."""
    from giskard_nb.core.repeats import case_summaries

    names = ("suite", "case_index", "scenario", *_CASE_COLUMNS)
    c: dict[str, list] = {n: [] for n in names}
    for case in case_summaries(results):
        interval = case.interval()
        c["suite"].append(suite)
        c["case_index"].append(case.case_index)
        c["scenario"].append(case.scenario)
        c["runs"].append(case.runs)
        for name in _COUNTS:
            c[name].append(getattr(case.rate, name))
        c["pass_fraction"].append(_nan(case.pass_fraction))
        c["pass_rate_low"].append(_nan(interval and interval.low))
        c["pass_rate_high"].append(_nan(interval and interval.high))
        c["pass_all"].append(case.pass_all)
        c["pass_any"].append(case.pass_any)
        c["flaky"].append(case.flaky)
    return frame(c, dtypes=_CASE_DTYPES, text=("suite", "scenario"), order=list(names))


def hub_cases_frame(cases: Sequence[CaseStats]) -> pd.DataFrame:
    """One row per test case of a Hub evaluation (``EvaluationSummary.cases``)."""
    names = ("test_case_id", "label", *_CASE_COLUMNS)
    renamed = {"pass_rate_low": "low", "pass_rate_high": "high"}
    c: dict[str, list] = {n: [] for n in names}
    for case in cases:
        for name in names:
            c[name].append(getattr(case, renamed.get(name, name)))
    for name in ("pass_fraction", "pass_rate_low", "pass_rate_high"):
        c[name] = [_nan(v) for v in c[name]]
    return frame(c, dtypes=_CASE_DTYPES, text=("test_case_id", "label"), order=list(names))


def rates_frame(groups: Sequence[GroupRate], *, by: str) -> pd.DataFrame:
    """One row per group, with its pass rate and interval."""
    names = (
        "by", "group", *_COUNTS, "pass_rate", "pass_rate_low", "pass_rate_high",
        "interval_method",
    )  # fmt: skip
    c: dict[str, list] = {n: [] for n in names}
    for g in groups:
        c["by"].append(by)
        c["group"].append(g.name)
        for name in _COUNTS:
            c[name].append(getattr(g.rate, name))
        c["pass_rate"].append(_nan(g.rate.value))
        c["pass_rate_low"].append(_nan(g.interval and g.interval.low))
        c["pass_rate_high"].append(_nan(g.interval and g.interval.high))
        c["interval_method"].append(g.interval.method if g.interval else None)
    floats = dict.fromkeys(("pass_rate", "pass_rate_low", "pass_rate_high"), "float64")
    return frame(
        c,
        dtypes={**dict.fromkeys(_COUNTS, "int64"), **floats},
        text=("by", "group", "interval_method"),
        order=list(names),
    )
