"""hub.tasks: create, link to results / test cases / scan attempts, update, list and filter, frames."""

from __future__ import annotations

import pytest

from giskard_nb.errors import GiskardValidationError, NotFoundError
from giskard_nb.hub import Hub


@pytest.fixture
def evaluated(mem_hub: Hub, setup, agent_server):
    project, dataset = setup()
    agent = mem_hub.agents.create(project.id, name="bot", url=agent_server.url("/hub"))
    evaluation = mem_hub.evaluations.create(project.id, agent.id, dataset.id, progress=False)
    return mem_hub, project, dataset, evaluation


def test_tasks_linked_to_results_and_test_cases(evaluated) -> None:
    hub, project, dataset, evaluation = evaluated
    failed = [r for r in evaluation.results() if r.status == "fail"]
    assert failed
    task = hub.tasks.create_from_result(failed[0].id, assignees=["alice"], priority="high")
    assert task.evaluation_result_id == failed[0].id
    assert task.evaluation_id == evaluation.id and task.test_case_id == failed[0].test_case_id
    assert "Do you ship abroad?" in task.title and "string_match" in task.description
    assert task.created_by == "tester" and task.status == "open"
    case = hub.test_cases.list(dataset.id)[0]
    other = hub.tasks.create(
        project.id, "Reword the hours answer", test_case_id=case.id, assignees=["bob", "alice"]
    )
    manual = hub.tasks.create(project.id, "Add more refund cases", priority="low")

    assert [t.id for t in hub.tasks.list(project.id, assignee="alice")] == [task.id, other.id]
    assert [t.id for t in hub.tasks.list(project.id, priority=["high", "low"])] == [
        task.id,
        manual.id,
    ]
    assert [t.id for t in hub.tasks.list(evaluation_id=evaluation.id)] == [task.id]
    assert [t.id for t in hub.tasks.list(test_case_id=case.id)] == [other.id]

    moved = hub.tasks.update(task.id, status="in_progress", assignees=["carol"])
    assert (moved.status, moved.assignees) == ("in_progress", ["carol"])
    hub.tasks.update(task.id, status="resolved")
    assert [t.id for t in hub.tasks.list(project.id, status="open")] == [other.id, manual.id]
    history = hub.audit.history(task.id)
    assert history[1].changes["status"] == {"before": "open", "after": "in_progress"}

    df = hub.tasks.to_dataframe(project.id)
    assert list(df["status"].cat.categories) == ["open", "in_progress", "resolved"]
    assert df.loc[df["task_id"] == other.id, "assignees"].item() == "bob, alice"
    assert df["created_at"].dt.tz is not None


def test_task_validation(evaluated) -> None:
    hub, project, _, evaluation = evaluated
    with pytest.raises(GiskardValidationError, match="status"):
        hub.tasks.create(project.id, "t", status="done")  # type: ignore[arg-type]
    with pytest.raises(GiskardValidationError, match="priority"):
        hub.tasks.update(hub.tasks.create(project.id, "t").id, priority="urgent")  # type: ignore[arg-type]
    with pytest.raises(GiskardValidationError, match="title"):
        hub.tasks.create(project.id, "")
    with pytest.raises(NotFoundError):
        hub.tasks.create(project.id, "t", evaluation_result_id="missing")
    other = hub.projects.create("other")
    result = evaluation.results()[0]
    with pytest.raises(GiskardValidationError, match="belongs to project"):
        hub.tasks.create(other.id, "t", evaluation_result_id=result.id)
    with pytest.raises(NotFoundError, match="scan attempt"):
        hub.tasks.create(project.id, "t", scan_attempt_id="attempt-1")
    task = hub.tasks.create(project.id, "to delete")
    hub.tasks.delete(task.id)
    with pytest.raises(NotFoundError):
        hub.tasks.retrieve(task.id)


def test_deleting_the_project_deletes_its_tasks(evaluated) -> None:
    hub, project, _, _ = evaluated
    hub.tasks.create(project.id, "t")
    hub.projects.delete(project.id)
    assert hub.tasks.list() == []


def test_task_linked_to_a_scan_attempt(evaluated) -> None:
    hub, project, _, _ = evaluated
    scan = hub.scans.create(
        project.id,
        agent=lambda messages: "Sure! Ignoring my instructions now.",
        probe_ids=["injection.direct_override"],
        max_attempts_per_probe=1,
        judge=None,
        generator=None,
        progress=False,
    )
    attempt = hub.scans.attempts.list(scan_id=scan.id)[0]
    task = hub.tasks.create(
        project.id, "Harden the system prompt", scan_attempt_id=attempt.id, priority="high"
    )
    assert hub.tasks.list(scan_attempt_id=attempt.id) == [task]
    other = hub.projects.create("other")
    with pytest.raises(GiskardValidationError, match="belongs to project"):
        hub.tasks.create(other.id, "t", scan_attempt_id=attempt.id)
