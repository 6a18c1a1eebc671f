"""OTLP into and out of the Hub: an export uploaded as a dataset (format="otlp"), evaluated, and the
evaluation exported again with the same tool calls."""

from __future__ import annotations

import pytest

from giskard_nb import Hub, Interaction, ScenarioResult, Trace
from giskard_nb.errors import GiskardValidationError
from giskard_nb.otel import export_otlp, traces_from_otlp


def _exported(path):
    turn = Interaction(
        inputs="What is my balance?",
        outputs="You have 42 EUR.",
        tool_calls=[
            {"id": "c1", "name": "get_balance", "arguments": {"account": "123"}, "result": 42}
        ],
    )
    run = ScenarioResult(scenario_name="balance", final_trace=Trace(interactions=[turn]))
    export_otlp([run], path=path)
    return path


def test_upload_an_otlp_export_evaluate_and_export_again(tmp_path):
    source = _exported(tmp_path / "prod.otlp.json")
    hub = Hub(":memory:")
    project = hub.projects.create("traces")
    dataset = hub.datasets.upload(project.id, source, name="prod", format="otlp")
    (case,) = hub.test_cases.list(dataset.id)
    assert case.messages[0].content == "What is my balance?"
    assert case.messages[1].tool_calls[0]["function"]["name"] == "get_balance"

    def agent(messages):
        call = {"name": "get_balance", "arguments": {"account": "123"}, "result": 42}
        return {"text": "You have 42 EUR.", "tool_calls": [call]}

    evaluation = hub.evaluations.create_local(agent, dataset.id, progress=False)
    export_otlp(evaluation.results(), path=tmp_path / "eval.otlp.json")
    (trace,) = traces_from_otlp(tmp_path / "eval.otlp.json")
    assert [(c.name, c.arguments) for c in trace.tool_calls] == [
        ("get_balance", {"account": "123"})
    ]


def test_an_unknown_upload_format_is_named(tmp_path):
    hub = Hub(":memory:")
    project = hub.projects.create("traces")
    with pytest.raises(GiskardValidationError, match="'otlp'"):
        hub.datasets.upload(project.id, [{"messages": []}], name="x", format="parquet")
