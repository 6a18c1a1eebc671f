"""Shared data of the chart tests: a small FAQ dataset in an in-memory Hub."""

from __future__ import annotations

from giskard_nb import Hub

QUESTIONS = {"hours?": "Monday", "refund?": "30 days", "sunday?": "closed", "<b>x</b>?": "x"}


def faq_dataset(hub: Hub, *, tagged: bool = False) -> str:
    """A project with one failure category and a dataset of ``QUESTIONS``, each case checked by a
    keyword and a capital first letter (tagged ``even`` / ``<odd>`` when ``tagged``); the dataset id."""
    project = hub.projects.create(
        "p", failure_categories=[{"identifier": "wrong_answer", "title": "Wrong <answer>"}]
    )
    dataset = hub.datasets.create(project.id, name="faq")
    for i, (question, keyword) in enumerate(QUESTIONS.items()):
        hub.test_cases.create(
            dataset.id,
            messages=[{"role": "user", "content": question}],
            checks=[
                {"identifier": "string_match", "params": {"keyword": keyword}},
                {"identifier": "regex_matching", "params": {"pattern": "^[A-Z]"}},
            ],
            tags=(["even" if i % 2 == 0 else "<odd>"] if tagged else []),
        )
    return dataset.id
