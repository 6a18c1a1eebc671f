"""hub.projects.scenarios and hub.datasets.generate_* against the fake LLM server."""

from __future__ import annotations

import itertools

import pytest

from giskard_nb.errors import ConfigError, GiskardValidationError, LLMError, NotFoundError
from giskard_nb.hub import Hub
from giskard_nb.kb import HashingEmbedder
from giskard_nb.testing import FakeLLMServer

_n = itertools.count()
#: Distinct requests (a real model writes varied ones; near-identical ones are dropped as duplicates).
POOL = [
    "WHERE IS MY PARCEL?! It was due on Monday!",
    "I want my money back RIGHT NOW.",
    "Your courier left my box in the rain, unacceptable.",
    "Why does nobody answer the phone at your office?",
    "Cancel my subscription immediately or I call my lawyer.",
    "The tracking page has said 'in transit' for two weeks.",
    "I was charged twice for one order, explain yourselves.",
    "Give me the name of your manager.",
    "My neighbour got her order in a day, why not me?",
    "This is the third time I write to you about the broken lamp.",
    "Is anyone there or am I talking to a wall?",
    "I demand free shipping on every future order.",
]


#: Ways to ask about a passage: two questions on one passage must differ in more than a number, or the
#: generator drops the second as a near duplicate (which made the outcome depend on the tests run before).
ASKING = [
    "Could you tell me whether it is true that",
    "My friend claims the following, is that right:",
    "What exactly happens here, and how long does it last:",
    "Is there any exception to the rule that says",
    "Where in your policy does it say that",
    "Can a customer in a hurry rely on this statement:",
    "Why would your website state that",
]


def fake_model(request):
    """Persona batches, document questions and topic names, told apart by the prompt."""
    prompt = request.last_user_message
    if "## The persona" in prompt:
        n = int(prompt.split("Write ", 1)[1].split(" ", 1)[0])
        return {
            "conversations": [
                {
                    "turns": [{"role": "user", "content": POOL[next(_n) % len(POOL)]}],
                    "expected_behavior": "Stay calm and give the tracking status",
                }
                for _ in range(n)
            ]
        }
    if "## The passage" in prompt:
        passage = prompt.split("## The passage\n", 1)[1].split("\n", 1)[0]
        return {
            "question": f"{ASKING[next(_n) % len(ASKING)]} {passage[:30]}?",
            "reference_answer": passage,
        }
    return "unexpected prompt"


def _llm_checks_available() -> bool:
    try:
        import giskard_nb.checks.llm  # noqa: F401  (registers correctness, conformity, groundedness)
    except ImportError:
        return False
    return True


needs_llm_checks = pytest.mark.skipif(
    not _llm_checks_available(),
    reason="generated test cases carry LLM-judge checks (conformity, correctness, groundedness), "
    "provided by giskard_nb.checks.llm, which this installation lacks",
)


@pytest.fixture
def llm():
    with FakeLLMServer(reply=fake_model) as server:
        yield server


@pytest.fixture
def project_and_agent(mem_hub: Hub, agent_server):
    project = mem_hub.projects.create("support")
    agent = mem_hub.agents.create(
        project.id, name="bot", url=agent_server.url("/hub"), description="Tracks parcels"
    )
    return project, agent


def test_scenarios_crud_frame_and_audit(mem_hub: Hub) -> None:
    project = mem_hub.projects.create("p")
    scenario = mem_hub.projects.scenarios.create(
        project.id,
        name="Angry customer",
        description="Writes in capitals, parcel is late",
        rules=["The agent stays polite"],
    )
    assert mem_hub.projects.scenarios.list(project.id) == [scenario]
    updated = mem_hub.projects.scenarios.update(scenario.id, rules=["Polite", "Offer a refund"])
    assert updated.rules == ["Polite", "Offer a refund"] and updated.name == "Angry customer"
    df = mem_hub.projects.scenarios.to_dataframe(project.id)
    assert list(df["n_rules"]) == [2]
    with pytest.raises(GiskardValidationError, match="non-empty"):
        mem_hub.projects.scenarios.create(project.id, name="x", description="y", rules=[" "])
    history = mem_hub.audit.history(scenario.id)
    assert [e.action for e in history] == ["create", "update"]
    mem_hub.projects.scenarios.delete(scenario.id)
    with pytest.raises(NotFoundError, match="hub.projects.scenarios.list"):
        mem_hub.projects.scenarios.retrieve(scenario.id)


@needs_llm_checks
def test_generate_scenario_based(mem_hub: Hub, project_and_agent, llm) -> None:
    project, agent = project_and_agent
    scenario = mem_hub.projects.scenarios.create(
        project.id, name="Angry", description="Parcel is late", rules=["Stay polite"]
    )
    dataset = mem_hub.datasets.generate_scenario_based(
        project.id, agent.id, scenario.id, n_examples=4, generator=llm.generator()
    )
    cases = mem_hub.test_cases.list(dataset.id)
    assert len(cases) == 4 and dataset.name == "Angry (generated)"
    case = cases[0]
    assert case.checks[0].identifier == "conformity"
    assert case.checks[0].params["rules"] == [
        "Stay polite",
        "Stay calm and give the tracking status",
    ]
    assert case.metadata["source"]["scenario_id"] == scenario.id
    assert "Tracks parcels" in llm.chat_requests[0].last_user_message
    # appending to the same dataset never repeats an existing case
    mem_hub.datasets.generate_scenario_based(
        project.id, agent.id, scenario.id, 2, dataset_id=dataset.id, generator=llm.generator()
    )
    questions = [c.messages[-1].content for c in mem_hub.test_cases.list(dataset.id)]
    assert len(questions) == len(set(questions)) == 6
    preview = mem_hub.projects.scenarios.preview(
        scenario.id, n_examples=2, generator=llm.generator()
    )
    assert len(preview) == 2 and len(mem_hub.test_cases.list(dataset.id)) == 6


@needs_llm_checks
def test_generate_document_based(mem_hub: Hub, project_and_agent, llm) -> None:
    project, agent = project_and_agent
    docs = [
        {"content": "Parcels ship in 2 days.", "t": "shipping"},
        {"content": "Express parcels ship the same day.", "t": "shipping"},
        {"content": "Refunds take 30 days.", "t": "billing"},
    ]
    kb = mem_hub.knowledge_bases.create(
        project.id, docs, name="faq", topic_column="t", embedding_model=HashingEmbedder()
    )
    billing = next(t for t in kb.topics() if t.name == "billing")
    dataset = mem_hub.datasets.generate_document_based(
        project.id, agent.id, kb.id, n_examples=2, topic_ids=[billing.id], generator=llm.generator()
    )
    cases = mem_hub.test_cases.list(dataset.id)
    assert len(cases) == 2  # one passage in the topic, asked in two ways
    for case in cases:
        checks = {c.identifier: c.params for c in case.checks}
        assert checks["correctness"]["reference"] == "Refunds take 30 days."
        assert checks["groundedness"]["context"] == "Refunds take 30 days."
        source = case.metadata["source"]
        assert source["knowledge_base_id"] == kb.id and source["topic_id"] == billing.id
        assert "topic:billing" in case.tags
    everything = mem_hub.datasets.generate_document_based(
        project.id, agent.id, kb.id, 3, generator=llm.generator(), dataset_name="all"
    )
    topics = {c.metadata["source"]["topic"] for c in mem_hub.test_cases.list(everything.id)}
    assert topics == {"shipping", "billing"}
    with pytest.raises(GiskardValidationError, match="no topic 'nope'"):
        mem_hub.datasets.generate_document_based(
            project.id, agent.id, kb.id, 1, topic_ids=["nope"], generator=llm.generator()
        )


def test_generation_needs_a_model_and_stores_nothing_otherwise(
    mem_hub: Hub, project_and_agent
) -> None:
    project, agent = project_and_agent
    scenario = mem_hub.projects.scenarios.create(project.id, name="s", description="d")
    with pytest.raises(ConfigError, match="set_default_generator"):
        mem_hub.datasets.generate_scenario_based(project.id, agent.id, scenario.id, 3)
    assert mem_hub.datasets.list(project_id=project.id) == []
    with (
        FakeLLMServer(reply="no JSON here") as server,
        pytest.raises(LLMError, match="no test case could be generated"),
    ):
        mem_hub.datasets.generate_scenario_based(
            project.id, agent.id, scenario.id, 2, generator=server.generator(max_retries=0)
        )
    assert mem_hub.datasets.list(project_id=project.id) == []
    other = mem_hub.projects.create("other")
    with pytest.raises(GiskardValidationError, match="same project"):
        mem_hub.datasets.generate_scenario_based(other.id, agent.id, scenario.id, 1)
