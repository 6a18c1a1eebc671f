"""to_dataframe of scenario and suite results: shapes, documented columns, dtypes, JSON payloads."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from giskard_nb import GiskardValidationError, Scenario, ScenarioResult, SuiteResult
from giskard_nb.frames import STATUSES, records_frame, to_dataframe


def _is_status(series: pd.Series) -> bool:
    return isinstance(series.dtype, pd.CategoricalDtype) and list(series.cat.categories) == list(
        STATUSES
    )


def test_scenarios_level_one_row_per_scenario(suite_result: SuiteResult):
    df = suite_result.to_dataframe()
    assert len(df) == len(suite_result.results) == 5
    assert list(df["scenario"]) == [r.scenario_name for r in suite_result.results]
    assert list(df["status"].astype(str)) == ["pass", "fail", "error", "pass", "fail"]
    assert _is_status(df["status"])
    assert df["duration_ms"].dtype == "float64"
    assert df["cost_usd"].dtype == "float64"
    for col in ("n_checks", "n_passed", "prompt_tokens", "llm_calls", "scenario_index"):
        assert df[col].dtype == "int64", col
    assert (df["suite"] == "sample").all()
    first = df.iloc[0]
    assert first["n_checks"] == 2 and first["n_passed"] == 2
    assert first["prompt_tokens"] == 100 and first["cost_usd"] == pytest.approx(0.0015)
    assert json.loads(first["tags"]) == ["topic:greeting", "smoke"]


def test_scenarios_level_failures_errors_and_skips(suite_result: SuiteResult):
    df = suite_result.to_dataframe().set_index("scenario")
    fails = df.loc["fails"]
    # the second step is skipped once the first one fails
    assert fails["n_failed"] == 1 and fails["n_skipped"] == 1 and fails["n_steps"] == 2
    assert "bye" in fails["first_failure"]
    errors = df.loc["errors"]
    assert errors["error_phase"] == "target" and "agent exploded" in errors["error"]
    assert pd.isna(df.loc["greets", "error"])
    # structured outputs become JSON text, never Python objects
    assert json.loads(df.loc["structured", "last_output"]) == {"answer": "hello", "items": [1, 2]}
    assert df.loc["greets", "last_output"] == "hello world"


def test_checks_level_is_long_format(suite_result: SuiteResult):
    df = suite_result.to_dataframe(level="checks")
    assert len(df) == sum(len(r.check_results) for r in suite_result.results)
    assert _is_status(df["status"]) and _is_status(df["scenario_status"])
    judge = df[df["check_kind"] == "frontend_fake_judge"].iloc[0]
    assert judge["total_tokens"] == 120 and judge["llm_calls"] == 1
    assert json.loads(judge["metrics"])["cost_usd"] == pytest.approx(0.0015)
    assert json.loads(judge["details"]) == {"k": [1]}  # runner bookkeeping is in its own columns
    assert judge["duration_ms"] >= 0
    skipped = df[(df["scenario"] == "fails") & (df["step"] == 2)].iloc[0]
    assert skipped["status"] == "skip" and skipped["check_position"] == 1
    assert df[df["scenario"] == "errors"].iloc[0]["step_error"].startswith("RuntimeError")
    for col in ("metrics", "details", "tags"):
        assert all(isinstance(v, str) for v in df[col]), col


def test_steps_and_interactions_levels(suite_result: SuiteResult):
    steps = suite_result.to_dataframe(level="steps")
    fails = steps[steps["scenario"] == "fails"]
    assert list(fails["step"]) == [1, 2] and list(fails["status"].astype(str)) == ["fail", "skip"]
    assert str(steps["interaction_index"].dtype) == "Int64"
    assert fails.iloc[0]["input"] == "there"
    turns = suite_result.to_dataframe(level="interactions")
    assert list(turns[turns["scenario"] == "fails"]["turn"]) == [1]
    assert json.loads(turns[turns["scenario"] == "structured"].iloc[0]["outputs"])["items"] == [
        1,
        2,
    ]
    assert all(json.loads(m) == {} for m in turns["metadata"])
    assert turns["latency_s"].dtype == "float64"  # the agent was called: every turn is timed
    assert turns["latency_s"].notna().all() and (turns["latency_s"] >= 0).all()


def test_scenario_result_defaults_to_checks(suite_result: SuiteResult):
    one: ScenarioResult = suite_result.results[0]
    df = one.to_dataframe()
    assert list(df["check"]) == ["string_matching", "frontend_fake_judge"]
    assert df["suite"].isna().all()
    assert len(one.to_dataframe(level="scenarios")) == 1


def test_text_columns_are_string_dtype(suite_result: SuiteResult):
    df = suite_result.to_dataframe(level="checks")
    for col in ("scenario", "check", "message", "step_error", "suite"):
        assert df[col].dtype == "string", col


def test_list_of_results_and_empty_suite(suite_result: SuiteResult):
    df = to_dataframe(suite_result.results[:2])
    assert list(df["scenario"]) == ["greets", "fails"]
    empty = SuiteResult(name="empty").to_dataframe(level="checks")
    assert empty.empty and "status" in empty.columns and _is_status(empty["status"])


def test_bad_level_and_bad_object_say_what_to_do(suite_result: SuiteResult):
    with pytest.raises(GiskardValidationError, match="unknown level 'rows'.*'checks'"):
        suite_result.to_dataframe(level="rows")
    with pytest.raises(GiskardValidationError, match="cannot make a DataFrame from int"):
        to_dataframe(3)
    with pytest.raises(GiskardValidationError, match="pydantic models or dicts"):
        to_dataframe([object()])


def test_records_frame_types_models_and_timestamps():
    scenario = Scenario("s").interact("hi", outputs="yo")
    df = records_frame(
        [
            {"id": 1, "status": "pass", "created_at": "2026-01-02T03:04:05", "payload": {"a": 1}},
            {"id": 2, "status": "fail", "created_at": "2026-01-02T03:04:05+02:00", "payload": [1]},
        ]
    )
    assert isinstance(df["created_at"].dtype, pd.DatetimeTZDtype)
    assert str(df["created_at"].dt.tz) == "UTC"
    assert df["created_at"][1].hour == 1  # converted to UTC
    assert json.loads(df["payload"][0]) == {"a": 1}
    assert isinstance(df["status"].dtype, pd.CategoricalDtype)
    models = to_dataframe([scenario])
    assert models.iloc[0]["name"] == "s" and json.loads(models.iloc[0]["steps"])[0]["interacts"]


def test_import_giskard_nb_stays_light():
    import subprocess
    import sys

    code = (
        "import sys, giskard_nb; "
        "heavy = [m for m in ('pandas', 'plotly', 'ipywidgets', 'litellm') if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
