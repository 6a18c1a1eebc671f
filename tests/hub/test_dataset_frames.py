"""DataFrames of datasets and test cases."""

from __future__ import annotations

import json

import pandas as pd

from giskard_nb import Hub


def test_datasets_and_test_cases_as_dataframes():
    hub = Hub(":memory:")
    project = hub.projects.create("p")
    dataset = hub.datasets.create(project.id, name="faq")
    hub.datasets.create(project.id, name="empty")
    hub.test_cases.create(
        dataset.id,
        messages=[
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello!"},
            {"role": "user", "content": "<b>Refund</b>?"},
        ],
        checks=[{"identifier": "string_match", "params": {"keyword": "30 days"}}],
        tags=["topic:refunds"],
    )
    hub.test_cases.create(dataset.id, messages=[{"role": "user", "content": "Hours?"}], tags=[])

    datasets = hub.datasets.to_dataframe(project_id=project.id)
    assert sorted(datasets["name"]) == ["empty", "faq"]
    assert dict(zip(datasets["name"], datasets["n_test_cases"], strict=True)) == {
        "faq": 2,
        "empty": 0,
    }

    cases = dataset.to_dataframe()
    assert list(cases["question"]) == ["<b>Refund</b>?", "Hours?"]
    assert list(cases["n_messages"]) == [3, 1] and list(cases["n_checks"]) == [1, 0]
    assert json.loads(cases["checks"][0])[0]["identifier"] == "string_match"
    assert json.loads(cases["tags"][0]) == ["topic:refunds"]
    assert isinstance(cases["created_at"].dtype, pd.DatetimeTZDtype)
    assert len(hub.test_cases.to_dataframe(dataset.id, tags=["topic:refunds"])) == 1
    assert [c.position for c in dataset.test_cases()] == [0, 1]
    assert hub.test_cases.to_dataframe(hub.datasets.list(name="empty")[0].id).empty
