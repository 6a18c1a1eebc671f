"""The audit log: every create, update and delete, with actor, fields changed and secrets masked."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from giskard_nb.hub import Hub


def test_create_update_delete_are_recorded(hub: Hub) -> None:
    start = datetime.now(UTC) - timedelta(seconds=1)
    project = hub.projects.create("p", description="first")
    hub.projects.update(project.id, description="second")
    hub.projects.update(project.id, description="second")  # no change, no entry
    dataset = hub.datasets.create(project.id, name="d")
    hub.datasets.delete(dataset.id)

    history = hub.audit.history(project.id)
    assert [e.action for e in history] == ["create", "update"]
    created, updated = history
    assert created.actor == "tester" and created.entity_type == "project"
    assert created.changes["description"] == "first" and "id" not in created.changes
    assert updated.changes == {"description": {"before": "first", "after": "second"}}
    assert created.created_at >= start and created.created_at.tzinfo is not None

    deleted = hub.audit.search(entity_type="dataset", action="delete")
    assert len(deleted) == 1 and deleted[0].changes["name"] == "d"
    assert deleted[0].project_id == project.id
    assert {e.action for e in hub.audit.search(project_id=project.id)} == {
        "create",
        "update",
        "delete",
    }
    assert hub.audit.search(actor="someone else") == []
    assert len(hub.audit.search(since=start, until=datetime.now(UTC) + timedelta(seconds=1))) == 4
    assert hub.audit.search(until=start) == []
    assert [e.action for e in hub.audit.search(limit=2)] == ["delete", "create"]  # newest first
    frame = hub.audit.to_dataframe(entity_type="project")
    assert list(frame["action"]) == ["update", "create"] and str(frame["created_at"].dt.tz) == "UTC"


def test_secrets_never_reach_the_audit_log(hub: Hub) -> None:
    project = hub.projects.create("p")
    agent = hub.agents.create(
        project.id,
        name="bot",
        url="https://x.example/chat",
        headers={"Authorization": "Bearer sk-1234567"},
    )
    hub.agents.update(agent.id, headers={"Authorization": "Bearer sk-7654321"})
    hub.agents.delete(agent.id)
    entries = hub.audit.search(entity_type="agent")
    text = json.dumps([e.model_dump(mode="json") for e in entries]) + repr(entries)
    assert "sk-1234567" not in text and "sk-7654321" not in text
    update = next(e for e in entries if e.action == "update")
    assert update.changes == {
        "headers": {"before": {"Authorization": "***"}, "after": {"Authorization": "***"}}
    }  # the change is recorded, the values are not
    frame = hub.audit.to_dataframe()
    assert not frame["changes"].str.contains("sk-").any()


def test_actor_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GISKARD_NB_ACTOR", "ci-bot")
    hub = Hub(":memory:")
    project = hub.projects.create("p")
    assert hub.audit.history(project.id)[0].actor == "ci-bot"
    assert Hub(":memory:", actor="alice").actor == "alice"


def test_results_and_relabels_are_recorded(mem_hub: Hub) -> None:
    project = mem_hub.projects.create("p")
    dataset = mem_hub.datasets.upload(
        project.id,
        [
            {
                "messages": [{"role": "user", "content": "q"}],
                "checks": [{"identifier": "string_match", "params": {"keyword": "yes"}}],
            }
        ],
        name="d",
    )
    evaluation = mem_hub.evaluations.create_local(lambda m: "no", dataset.id, progress=False)
    (result,) = evaluation.results()
    mem_hub.evaluations.results.relabel(result.id, "policy_violation")
    # the run's results are one entry on the evaluation (not one per result); a relabel is the
    # result's own entry
    (relabel,) = mem_hub.audit.history(result.id)
    assert relabel.action == "update" and relabel.project_id == project.id
    assert relabel.changes["failure_category"]["after"]["identifier"] == "policy_violation"
    assert relabel.changes["failure_category_source"] == {"before": "rule", "after": "user"}
    entries = mem_hub.audit.history(evaluation.id)
    assert [e.action for e in entries] == ["create", "update", "results", "update"]
    stored = entries[2]
    assert stored.triggered_by == evaluation.id and stored.project_id == project.id
    assert stored.changes == {"written": 1, "replaced": 0, "by_status": {"fail": 1}}
    assert entries[1].changes["status"] == {"before": "running", "after": "finished"}
    assert entries[3].changes["failure_categories"] == {  # the relabel moved the tally
        "before": {"incorrect_answer": 1},
        "after": {"policy_violation": 1},
    }
