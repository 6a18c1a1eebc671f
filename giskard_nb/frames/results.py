"""DataFrames of scenario and suite results, at six levels of detail.

``level="scenarios"`` (one row per scenario, the default for a suite)
    ``suite``, ``scenario_index``, ``scenario``, ``status``, ``duration_ms``, ``n_steps``,
    ``n_checks``, ``n_passed``, ``n_failed``, ``n_errored``, ``n_skipped`` (check counts),
    ``n_interactions``, ``first_failure`` ("check FAIL: reason"), ``reason`` (why it did not pass,
    one line: ``ScenarioResult.reason``; empty when it passed), ``error`` and ``error_phase`` (a step
    that raised: target, input_generation, timeout…), ``tags`` (JSON list), ``last_input``,
    ``last_output`` (text; non-strings as JSON), ``runs_executed``, ``multiple_runs``, ``case_index``
    and ``repeat`` (nullable ints: set in a run with ``repeats=k``) and the usage columns
    ``prompt_tokens``, ``completion_tokens``, ``total_tokens``, ``llm_calls`` (int), ``cost_usd``
    (float, USD).
``level="cases"`` (one row per case: a scenario over its repeats; ``giskard_nb.frames.rates``)
    ``suite``, ``case_index``, ``scenario``, ``runs``, ``passed``, ``failed``, ``errored``, ``skipped``,
    ``pass_fraction`` (NaN when nothing was judged), ``pass_rate_low``, ``pass_rate_high`` (Wilson's
    95 % interval over the case's runs), ``pass_all`` (pass^k), ``pass_any`` (pass@k), ``flaky``.
``level="steps"`` (one row per step)
    ``suite``, ``scenario_index``, ``scenario``, ``step`` (1-based), ``status``, ``duration_ms``,
    ``n_checks``, ``error``, ``error_phase``, ``interaction_index`` (nullable int: the last interaction
    the step's checks saw), ``input``, ``output``.
``level="checks"`` (long format: one row per check result, the default for a single scenario)
    ``suite``, ``scenario_index``, ``scenario``, ``scenario_status``, ``step``, ``check_position``
    (1-based within the step), ``check``, ``check_kind``, ``status``, ``message``, ``duration_ms``
    (NaN when not measured), ``tags`` (JSON list), ``step_error``, the usage columns, ``metrics``
    (JSON object name → value) and ``details`` (JSON object, the check's own details).
``level="interactions"`` (one row per interaction of the final trace)
    ``suite``, ``scenario_index``, ``scenario``, ``scenario_status``, ``turn`` (1-based), ``inputs``,
    ``outputs`` (text), ``metadata`` (JSON object), ``latency_s`` (float seconds the target call took;
    NaN when not measured: static outputs, an interaction built by hand).
``level="tool_calls"`` (one row per tool call of the final trace)
    ``suite``, ``scenario_index``, ``scenario``, ``scenario_status``, then the call's columns
    (``giskard_nb.frames.tool_calls``): ``turn``, ``index``, ``name``, ``arguments`` (JSON),
    ``status`` (ok / error / unknown), ``result``, ``error``, ``duration_s``, ``server`` and
    ``tool_checks`` (JSON: the case's tool-check outcomes).

Every ``status``/``scenario_status`` column is a Categorical with categories pass, fail, error, skip
(but a tool call's ``status``: ok, error, unknown).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from giskard_nb.core.usage import USAGE_METRICS
from giskard_nb.frames._common import frame, json_cell, status_values, text_cell

if TYPE_CHECKING:
    import pandas as pd

    from giskard_nb.core.scenario_result import ScenarioResult

__all__ = ["LEVELS", "results_frame"]

LEVELS = ("scenarios", "cases", "steps", "checks", "interactions", "tool_calls")
_INT_USAGE = ("prompt_tokens", "completion_tokens", "total_tokens", "llm_calls")
_RUNNER_DETAILS = frozenset({"check_name", "check_kind", "duration_ms"})
_USAGE_DTYPES = {**dict.fromkeys(_INT_USAGE, "int64"), "cost_usd": "float64"}


def results_frame(
    results: Sequence[ScenarioResult], *, level: str, suite: str | None = None
) -> pd.DataFrame:
    """The frame of ``results`` at ``level`` (see the module docstring for the columns)."""
    from giskard_nb.frames.rates import cases_frame

    builders = {
        "scenarios": _scenarios,
        "cases": cases_frame,
        "steps": _steps,
        "checks": _checks,
        "interactions": _interactions,
        "tool_calls": _tool_calls,
    }
    if level not in builders:
        from giskard_nb.errors import GiskardValidationError

        raise GiskardValidationError(
            f"unknown level {level!r}: choose one of {', '.join(repr(x) for x in LEVELS)}"
        )
    return builders[level](results, suite)


def _usage(metrics_of: Any) -> dict[str, float]:
    totals = dict.fromkeys(USAGE_METRICS, 0.0)
    for results in metrics_of:
        for m in results.metrics:
            if m.name in totals:
                totals[m.name] += m.value
    return totals


def _cols(*names: str) -> dict[str, list]:
    return {n: [] for n in names}


def _scenarios(results: Sequence[ScenarioResult], suite: str | None) -> pd.DataFrame:
    c = _cols(
        "suite", "scenario_index", "scenario", "status", "duration_ms", "n_steps", "n_checks",
        "n_passed", "n_failed", "n_errored", "n_skipped", "n_interactions", "first_failure",
        "reason", "error", "error_phase", "tags", "last_input", "last_output", "runs_executed",
        "multiple_runs", "case_index", "repeat", *USAGE_METRICS,
    )  # fmt: skip
    for i, r in enumerate(results):
        checks = r.check_results
        counts = {"pass": 0, "fail": 0, "error": 0, "skip": 0}
        for cr in checks:
            counts[cr.status.value] += 1
        step_error = next((s.error for s in r.steps if s.error), None)
        last = r.final_trace.last
        c["suite"].append(suite)
        c["scenario_index"].append(i)
        c["scenario"].append(r.scenario_name)
        c["status"].append(r.status)
        c["duration_ms"].append(r.duration_ms)
        c["n_steps"].append(len(r.steps))
        c["n_checks"].append(len(checks))
        c["n_passed"].append(counts["pass"])
        c["n_failed"].append(counts["fail"])
        c["n_errored"].append(counts["error"])
        c["n_skipped"].append(counts["skip"])
        c["n_interactions"].append(len(r.final_trace.interactions))
        c["first_failure"].append(next(iter(r.format_failures()), None))
        c["reason"].append(r.reason)
        c["error"].append(step_error.summary() if step_error else None)
        c["error_phase"].append(step_error.phase if step_error else None)
        c["tags"].append(json_cell(list(r.tags)))
        c["last_input"].append(text_cell(last.inputs) if last else None)
        c["last_output"].append(text_cell(last.outputs) if last else None)
        c["runs_executed"].append(r.runs_executed)
        c["multiple_runs"].append(r.multiple_runs)
        c["case_index"].append(r.case_index)
        c["repeat"].append(r.repeat)
        for name, value in _usage(checks).items():
            c[name].append(value)
    c["status"] = status_values(c["status"])
    ints = ("scenario_index", "n_steps", "n_checks", "n_passed", "n_failed", "n_errored")
    dtypes = {**dict.fromkeys(ints, "int64"), "duration_ms": "float64", **_USAGE_DTYPES}
    dtypes.update(n_skipped="int64", n_interactions="int64", runs_executed="int64")
    dtypes.update(multiple_runs="int64", case_index="Int64", repeat="Int64")
    text = ("suite", "scenario", "first_failure", "error", "error_phase", "tags")
    return frame(c, dtypes=dtypes, text=(*text, "last_input", "last_output"), order=list(c))


def _steps(results: Sequence[ScenarioResult], suite: str | None) -> pd.DataFrame:
    c = _cols(
        "suite", "scenario_index", "scenario", "step", "status", "duration_ms", "n_checks",
        "error", "error_phase", "interaction_index", "input", "output",
    )  # fmt: skip
    for i, r in enumerate(results):
        interactions = r.final_trace.interactions
        for n, step in enumerate(r.steps, 1):
            idx = step.last_interaction_index
            it = interactions[idx] if idx is not None and idx < len(interactions) else None
            c["suite"].append(suite)
            c["scenario_index"].append(i)
            c["scenario"].append(r.scenario_name)
            c["step"].append(n)
            c["status"].append(step.status)
            c["duration_ms"].append(step.duration_ms)
            c["n_checks"].append(len(step.results))
            c["error"].append(step.error.summary() if step.error else None)
            c["error_phase"].append(step.error.phase if step.error else None)
            c["interaction_index"].append(idx)
            c["input"].append(text_cell(it.inputs) if it else None)
            c["output"].append(text_cell(it.outputs) if it else None)
    c["status"] = status_values(c["status"])
    dtypes = {
        "scenario_index": "int64",
        "step": "int64",
        "duration_ms": "float64",
        "n_checks": "int64",
        "interaction_index": "Int64",
    }
    text = ("suite", "scenario", "error", "error_phase", "input", "output")
    return frame(c, dtypes=dtypes, text=text, order=list(c))


def _checks(results: Sequence[ScenarioResult], suite: str | None) -> pd.DataFrame:
    names = (
        "suite", "scenario_index", "scenario", "scenario_status", "step", "check_position",
        "check", "check_kind", "status", "message", "duration_ms", "tags", "step_error",
        *USAGE_METRICS, "metrics", "details",
    )  # fmt: skip
    c = _cols(*names)
    add = {n: c[n].append for n in names}
    nan = float("nan")
    usage_names = frozenset(USAGE_METRICS)
    for i, r in enumerate(results):
        scenario_status, name = r.status, r.scenario_name
        tags = json_cell(list(r.tags))
        for n, step in enumerate(r.steps, 1):
            step_error = step.error.summary() if step.error else None
            for pos, cr in enumerate(step.results, 1):
                details = cr.details
                add["suite"](suite)
                add["scenario_index"](i)
                add["scenario"](name)
                add["scenario_status"](scenario_status)
                add["step"](n)
                add["check_position"](pos)
                add["check"](cr.check_name)
                add["check_kind"](details.get("check_kind"))
                add["status"](cr.status)
                add["message"](cr.message)
                duration = details.get("duration_ms")
                add["duration_ms"](duration if isinstance(duration, int | float) else nan)
                add["tags"](tags)
                add["step_error"](step_error)
                metrics = cr.metrics
                usage = dict.fromkeys(USAGE_METRICS, 0.0)
                for m in metrics:
                    if m.name in usage_names:
                        usage[m.name] += m.value
                for metric, value in usage.items():
                    add[metric](value)
                add["metrics"](json_cell({m.name: m.value for m in metrics}))
                own = {k: v for k, v in details.items() if k not in _RUNNER_DETAILS}
                add["details"](json_cell(own))
    c["status"] = status_values(c["status"])
    c["scenario_status"] = status_values(c["scenario_status"])
    dtypes = {
        "scenario_index": "int64",
        "step": "int64",
        "check_position": "int64",
        "duration_ms": "float64",
        **_USAGE_DTYPES,
    }
    text = ("suite", "scenario", "check", "check_kind", "message", "tags", "step_error")
    return frame(c, dtypes=dtypes, text=(*text, "metrics", "details"), order=names)


def _interactions(results: Sequence[ScenarioResult], suite: str | None) -> pd.DataFrame:
    c = _cols(
        "suite", "scenario_index", "scenario", "scenario_status", "turn", "inputs", "outputs",
        "metadata", "latency_s",
    )  # fmt: skip
    for i, r in enumerate(results):
        for turn, it in enumerate(r.final_trace.interactions, 1):
            c["suite"].append(suite)
            c["scenario_index"].append(i)
            c["scenario"].append(r.scenario_name)
            c["scenario_status"].append(r.status)
            c["turn"].append(turn)
            c["inputs"].append(text_cell(it.inputs))
            c["outputs"].append(text_cell(it.outputs))
            c["metadata"].append(json_cell(it.metadata))
            c["latency_s"].append(it.latency_s if it.latency_s is not None else float("nan"))
    c["scenario_status"] = status_values(c["scenario_status"])
    dtypes = {"scenario_index": "int64", "turn": "int64", "latency_s": "float64"}
    text = ("suite", "scenario", "inputs", "outputs", "metadata")
    return frame(c, dtypes=dtypes, text=text, order=list(c))


def _tool_calls(results: Sequence[ScenarioResult], suite: str | None) -> pd.DataFrame:
    from giskard_nb.frames.tool_calls import scenario_tool_calls_frame

    return scenario_tool_calls_frame(results, suite)
