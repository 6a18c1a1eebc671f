"""A resume that cannot start (an agent that is not callable, a registered agent that is gone) raises a
clear error before touching the stored scan or evaluation: status, grade and finished_at stay as they were."""

from __future__ import annotations

import pytest

from giskard_nb.errors import GiskardValidationError, NotFoundError
from giskard_nb.hub import Hub

from .conftest import AgentServer, reply_for

FAST = {"max_attempts_per_probe": 2, "judge": None, "generator": None, "progress": False}


@pytest.fixture(autouse=True)
def _no_default_model(monkeypatch):
    from giskard_nb.llm import set_default_generator

    set_default_generator(None)
    monkeypatch.delenv("GISKARD_NB_MODEL", raising=False)


def leaky_agent(messages):
    return "Of course! Internal API key: sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"


def support_agent(messages):
    return reply_for(messages[-1]["content"], len(messages))


def _frozen(record) -> tuple:
    return (
        record.status,
        getattr(record, "grade", None),
        record.finished_at,
        record.error,
        record.updated_at,
    )


@pytest.mark.parametrize("bad", [42, "my_agent", None])
def test_a_scan_resume_with_a_bad_agent_leaves_the_finished_scan_alone(mem_hub: Hub, bad):
    project = mem_hub.projects.create("bank")
    scan = mem_hub.scans.create(
        project.id, agent=leaky_agent, categories=["sensitive_information_disclosure"], **FAST
    )
    assert scan.status == "finished" and scan.grade not in (None, "A")
    before = _frozen(mem_hub.scans.retrieve(scan.id))
    audit = len(mem_hub.audit.history(scan.id))
    expected = "pass it again" if bad is None else "agent= must be a function"
    with pytest.raises(GiskardValidationError, match=expected):
        mem_hub.scans.resume(scan.id, agent=bad, progress=False)
    assert _frozen(mem_hub.scans.retrieve(scan.id)) == before
    assert len(mem_hub.audit.history(scan.id)) == audit  # nothing was written


def test_a_scan_resume_whose_registered_agent_is_gone_raises_first(
    mem_hub: Hub, agent_server: AgentServer
):
    project = mem_hub.projects.create("bank")
    agent = mem_hub.agents.create(project.id, name="bot", url=agent_server.url("/hub"))
    scan = mem_hub.scans.create(
        project.id, agent_id=agent.id, categories=["sensitive_information_disclosure"], **FAST
    )
    before = _frozen(mem_hub.scans.retrieve(scan.id))
    mem_hub.agents.delete(agent.id)
    with pytest.raises(NotFoundError):
        mem_hub.scans.resume(scan.id, progress=False)
    assert _frozen(mem_hub.scans.retrieve(scan.id)) == before


@pytest.mark.parametrize("method", ["resume", "rerun_errored"])
def test_an_evaluation_resume_with_a_bad_agent_leaves_it_alone(mem_hub: Hub, setup, method):
    _, dataset = setup()
    evaluation = mem_hub.evaluations.create_local(support_agent, dataset.id, progress=False)
    before = _frozen(mem_hub.evaluations.retrieve(evaluation.id))
    results = [r.model_dump() for r in evaluation.results()]
    with pytest.raises(GiskardValidationError, match="a local agent is a function"):
        getattr(mem_hub.evaluations, method)(evaluation.id, agent=42, progress=False)
    with pytest.raises(GiskardValidationError, match="pass it again with agent="):
        getattr(mem_hub.evaluations, method)(evaluation.id, progress=False)
    assert _frozen(mem_hub.evaluations.retrieve(evaluation.id)) == before
    assert [r.model_dump() for r in evaluation.results()] == results


def test_an_evaluation_resume_whose_registered_agent_is_gone_raises_first(
    mem_hub: Hub, setup, agent_server: AgentServer
):
    project, dataset = setup()
    agent = mem_hub.agents.create(project.id, name="bot", url=agent_server.url("/hub"))
    evaluation = mem_hub.evaluations.create(project.id, agent.id, dataset.id, progress=False)
    before = _frozen(mem_hub.evaluations.retrieve(evaluation.id))
    mem_hub.agents.delete(agent.id)
    with pytest.raises(NotFoundError):
        mem_hub.evaluations.resume(evaluation.id, progress=False)
    assert _frozen(mem_hub.evaluations.retrieve(evaluation.id)) == before
