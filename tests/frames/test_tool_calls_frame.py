"""``to_dataframe(level="tool_calls")`` of core results: one row per call of the final trace, with its
turn, position, arguments as JSON, status, bounded result/error, duration and the case's tool checks."""

from __future__ import annotations

import importlib
import json

import pandas as pd
import pytest

from giskard_nb import GiskardValidationError, Scenario
from giskard_nb.frames.tool_calls import CALL_COLUMNS, MAX_CELL, SCENARIO_CASE_COLUMNS

samples = importlib.import_module("frontend_samples")


@pytest.fixture(scope="module")
def tools_result():
    return samples.tool_suite_result()


def test_one_row_per_call_with_its_turn_and_the_case_s_tool_checks(tools_result) -> None:
    df = tools_result.to_dataframe(level="tool_calls")
    assert list(df.columns) == [*SCENARIO_CASE_COLUMNS, *CALL_COLUMNS]
    assert len(df) == 2  # the case without tool calls has no row
    assert df["name"].tolist() == ["lookup_order", "refund"]
    assert df["turn"].tolist() == [0, 1] and df["index"].tolist() == [0, 1]
    assert df["turn"].dtype == "int64" and df["duration_s"].tolist() == [0.2, 0.05]
    assert list(df["status"].cat.categories) == ["ok", "error", "unknown"]
    assert df["status"].astype(str).tolist() == ["ok", "error"]
    assert json.loads(df["arguments"][0]) == {"id": 42, "note": samples.TOOL_XSS}
    assert df["result"][0] == samples.TOOL_XSS and pd.isna(df["result"][1])
    assert df["error"][1].startswith("denied <script>")
    assert json.loads(df["tool_checks"][0]) == {"frontend_tool_trajectory": "fail"}
    assert (df["scenario"] == "refund flow").all() and (df["suite"] == "tools").all()
    assert df["scenario_status"].astype(str).tolist() == ["fail", "fail"]
    one = tools_result.results[0].to_dataframe(level="tool_calls")
    assert one["name"].tolist() == ["lookup_order", "refund"]


def test_long_results_are_cut_and_a_bad_level_is_named() -> None:
    def agent(inputs):
        return {
            "text": "ok",
            "tool_calls": [{"name": "dump", "arguments": {}, "result": "x" * 10**5}],
        }

    result = Scenario("big").interact(inputs="go", outputs=agent).run_sync()
    df = result.to_dataframe(level="tool_calls")
    assert len(df["result"][0]) == MAX_CELL and df["result"][0].endswith("…")
    assert pd.isna(df["duration_s"][0]) and df["status"][0] == "ok"
    with pytest.raises(GiskardValidationError, match="'tool_calls'"):
        result.to_dataframe(level="calls")


def test_no_tool_calls_is_an_empty_frame_with_the_columns(suite_result) -> None:
    df = suite_result.to_dataframe(level="tool_calls")
    assert df.empty and list(df.columns) == [*SCENARIO_CASE_COLUMNS, *CALL_COLUMNS]
