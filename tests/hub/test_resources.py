"""CRUD of every resource: projects, agents, datasets, test cases (+ comments), checks."""

from __future__ import annotations

import pytest

from giskard_nb.errors import GiskardValidationError, NotFoundError
from giskard_nb.hub import DEFAULT_FAILURE_CATEGORIES, FailureCategory, Hub
from giskard_nb.hub.secrets import MASK


def test_project_crud_and_failure_categories(hub: Hub) -> None:
    project = hub.projects.create("Support bot", description="FAQ agent")
    assert project.failure_categories == DEFAULT_FAILURE_CATEGORIES
    assert {c.identifier for c in project.failure_categories} >= {
        "hallucination",
        "off_topic",
        "format_violation",
        "refusal",
        "policy_violation",
        "harmful_content",
    }
    custom = [FailureCategory(identifier="wrong_price", title="Wrong price", description="...")]
    updated = hub.projects.update(project.id, name="Support", failure_categories=custom)
    assert updated.name == "Support" and updated.failure_categories == custom
    assert updated.updated_at > project.updated_at and updated.created_at == project.created_at
    assert hub.projects.failure_categories(project.id) == custom
    assert [p.id for p in hub.projects.list()] == [project.id]
    assert hub.projects.list(name="nope") == []
    hub.projects.delete(project.id)
    with pytest.raises(NotFoundError, match="no project with id"):
        hub.projects.retrieve(project.id)


def test_failure_category_validation(mem_hub: Hub) -> None:
    with pytest.raises(GiskardValidationError, match="snake_case"):
        mem_hub.projects.create("p", failure_categories=[{"identifier": "Bad Id", "title": "x"}])
    twice = [{"identifier": "a", "title": "A"}, {"identifier": "a", "title": "B"}]
    with pytest.raises(GiskardValidationError, match="listed twice"):
        mem_hub.projects.create("p", failure_categories=twice)


def test_agent_crud_and_secret_headers(hub: Hub) -> None:
    project = hub.projects.create("p")
    agent = hub.agents.create(
        project.id,
        name="bot",
        url="https://bot.example/chat",
        headers={"Authorization": "Bearer sk-very-secret"},
        supported_languages=["en", "fr"],
    )
    assert "sk-very-secret" not in repr(agent)
    assert "sk-very-secret" not in agent.model_dump_json()
    assert agent.model_dump()["headers"] == {"Authorization": MASK}
    assert hub.agents.retrieve(agent.id).secret_headers() == {
        "Authorization": "Bearer sk-very-secret"
    }
    moved = hub.agents.update(agent.id, url="https://bot.example/v2", timeout=5)
    assert moved.url.endswith("/v2") and moved.timeout == 5
    assert moved.supported_languages == ["en", "fr"]
    assert hub.agents.list(project_id=project.id) == [moved]
    with pytest.raises(GiskardValidationError, match="http"):
        hub.agents.create(project.id, name="x", url="ftp://nope")
    with pytest.raises(NotFoundError):
        hub.agents.create("missing-project", name="x", url="http://x")
    hub.agents.delete(agent.id)
    assert hub.agents.list() == []


def test_dataset_and_test_case_crud(hub: Hub) -> None:
    project = hub.projects.create("p")
    dataset = hub.datasets.create(project.id, name="faq", description="questions")
    case = hub.test_cases.create(
        dataset.id,
        messages=[
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello!"},
            {"role": "user", "content": "Opening hours?"},
        ],
        checks=[{"identifier": "string_match", "params": {"keyword": "Monday"}}],
        demo_output="Monday to Friday",
        tags=["topic:hours"],
        metadata={"source": "manual"},
    )
    assert case.project_id == project.id and case.position == 0
    assert case.demo_output.content == "Monday to Friday"
    assert len(case.messages) == 4
    second = hub.test_cases.create(dataset.id, messages=[{"role": "user", "content": "x"}])
    assert second.position == 1
    assert hub.test_cases.list(dataset.id) == [case, second]
    assert hub.test_cases.list(dataset.id, tags=["topic:hours"]) == [case]

    updated = hub.test_cases.update(case.id, tags=["a"], status="draft", demo_output=None)
    assert updated.tags == ["a"] and updated.status == "draft" and updated.demo_output is None
    assert updated.messages == case.messages
    assert hub.test_cases.list(dataset.id, status="active") == [second]
    assert hub.datasets.update(dataset.id, name="faq2").name == "faq2"
    assert hub.datasets.list(project_id=project.id)[0].name == "faq2"

    hub.datasets.delete(dataset.id)  # cascades to its test cases
    assert hub.test_cases.list() == []


def test_a_trailing_assistant_message_becomes_the_demo_output(mem_hub: Hub) -> None:
    project = mem_hub.projects.create("p")
    dataset = mem_hub.datasets.create(project.id, name="d")
    case = mem_hub.test_cases.create(
        dataset.id,
        messages=[{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}],
    )
    assert [m.role for m in case.messages] == ["user"]
    assert case.demo_output.content == "Hello"
    with pytest.raises(GiskardValidationError, match="demo_output"):
        mem_hub.test_cases.create(
            dataset.id,
            messages=[{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "x"}],
            demo_output="y",
        )


@pytest.mark.parametrize(
    ("messages", "match"),
    [
        ([], "at least one message"),
        ([{"role": "system", "content": "x"}], "user message"),
        ([{"role": "bot", "content": "x"}], "messages"),
        ([{"role": "user"}], "content"),
    ],
)
def test_bad_conversations_are_rejected(mem_hub: Hub, messages: list, match: str) -> None:
    project = mem_hub.projects.create("p")
    dataset = mem_hub.datasets.create(project.id, name="d")
    with pytest.raises(GiskardValidationError, match=match):
        mem_hub.test_cases.create(dataset.id, messages=messages)


def test_check_specs_are_validated_when_created(mem_hub: Hub) -> None:
    project = mem_hub.projects.create("p")
    dataset = mem_hub.datasets.create(project.id, name="d")
    msg = [{"role": "user", "content": "x"}]
    with pytest.raises(GiskardValidationError) as info:
        mem_hub.test_cases.create(dataset.id, messages=msg, checks=[{"identifier": "nope"}])
    text = str(info.value)
    assert "unknown check identifier 'nope'" in text
    assert "string_match" in text and "regex_matching" in text  # the known ones are listed
    with pytest.raises(GiskardValidationError, match="string_match.*keyword"):
        mem_hub.test_cases.create(
            dataset.id, messages=msg, checks=[{"identifier": "string_match", "params": {}}]
        )
    with pytest.raises(GiskardValidationError, match="invalid regular expression"):
        mem_hub.test_cases.create(
            dataset.id,
            messages=msg,
            checks=[{"identifier": "regex_matching", "params": {"pattern": "("}}],
        )
    with pytest.raises(GiskardValidationError, match="no 'type'"):
        mem_hub.test_cases.create(
            dataset.id,
            messages=msg,
            checks=[{"identifier": "equals", "params": {"type": "x", "expected_value": 1}}],
        )
    ok = mem_hub.test_cases.create(
        dataset.id,
        messages=msg,
        checks=[
            {"identifier": "equals", "params": {"expected_value": "x"}},
            {"identifier": "json_valid"},
            {
                "identifier": "metadata",
                "params": {
                    "json_path_rules": [{"json_path": "$.tool", "expected_value": "search"}]
                },
            },
            {"identifier": "string_match", "params": {"keyword": "y"}, "enabled": False},
        ],
    )
    assert [c.identifier for c in ok.checks][:2] == ["equals", "json_valid"]
    with pytest.raises(GiskardValidationError, match="unknown check identifier"):
        mem_hub.test_cases.update(ok.id, checks=[{"identifier": "nope"}])


def test_custom_project_checks(hub: Hub) -> None:
    project = hub.projects.create("p")
    check = hub.checks.create(
        project.id,
        "mentions_refund_window",
        "Mentions the 30-day window",
        params={"type": "regex_matching", "pattern": r"\b30 days\b"},
        description="Refund answers must give the window.",
    )
    assert check.type == "regex_matching" and check.params == {"pattern": r"\b30 days\b"}
    assert check.spec == {"type": "regex_matching", "pattern": r"\b30 days\b"}
    dataset = hub.datasets.create(project.id, name="d")
    case = hub.test_cases.create(
        dataset.id,
        messages=[{"role": "user", "content": "refund?"}],
        checks=[{"identifier": "mentions_refund_window"}],
    )
    assert case.checks[0].identifier == "mentions_refund_window"
    with pytest.raises(GiskardValidationError, match="already has a check"):
        hub.checks.create(project.id, "mentions_refund_window", "x", params={"type": "json_valid"})
    with pytest.raises(GiskardValidationError, match="built-in"):
        hub.checks.create(project.id, "string_match", "x", params={"type": "json_valid"})
    with pytest.raises(GiskardValidationError, match="needs params\\['type'\\]"):
        hub.checks.create(project.id, "custom_x", "x", params={})
    with pytest.raises(GiskardValidationError, match="neither a built-in"):
        hub.checks.create(project.id, "custom_x", "x", params={"type": "no_such_kind"})
    updated = hub.checks.update(check.id, params={"type": "string_match", "keyword": "30 days"})
    assert updated.type == "string_match" and updated.params == {"keyword": "30 days"}
    assert hub.checks.by_identifier(project.id) == {"mentions_refund_window": updated}
    assert [b.identifier for b in hub.checks.builtins()] == [
        "correctness",
        "conformity",
        "groundedness",
        "semantic_similarity",
        "string_match",
        "metadata",
    ]
    hub.checks.delete(check.id)
    assert hub.checks.list(project.id) == []


def test_comments(hub: Hub) -> None:
    project = hub.projects.create("p")
    dataset = hub.datasets.create(project.id, name="d")
    case = hub.test_cases.create(dataset.id, messages=[{"role": "user", "content": "x"}])
    comment = hub.test_cases.comments.add(case.id, "Is this expected?")
    assert comment.author == "tester" and comment.project_id == project.id
    edited = hub.test_cases.comments.edit(comment.id, "Yes, it is.")
    assert hub.test_cases.comments.list(case.id) == [edited]
    hub.test_cases.comments.delete(comment.id)
    assert hub.test_cases.comments.list(case.id) == []
    hub.test_cases.comments.add(case.id, "again")
    hub.test_cases.delete(case.id)  # cascades to comments
    assert hub.test_cases.comments.list(case.id) == []


def test_deleting_a_project_deletes_everything_in_it(hub: Hub) -> None:
    project = hub.projects.create("p")
    hub.agents.create(project.id, name="a", url="http://127.0.0.1:9/x")
    dataset = hub.datasets.create(project.id, name="d")
    hub.test_cases.create(dataset.id, messages=[{"role": "user", "content": "x"}])
    hub.checks.create(project.id, "c", "c", params={"type": "json_valid"})
    hub.evaluations.create_local(lambda m: "x", dataset.id, progress=False)
    hub.projects.delete(project.id)
    assert hub.agents.list() == hub.datasets.list() == hub.test_cases.list() == []
    assert hub.checks.list() == hub.evaluations.list() == []


def test_ids_matching_by_start_or_end(hub: Hub) -> None:
    first = hub.projects.create("first")
    second = hub.projects.create("second")
    assert hub.projects.ids_matching(first.id[-6:]) == [first.id]
    assert hub.projects.ids_matching(second.id[:-1].upper()) == [second.id]
    # time-ordered ids: two records written in the same minute share their first 8 characters
    assert hub.projects.ids_matching(first.id[:8]) == sorted([first.id, second.id])
    assert hub.projects.ids_matching(first.id[:8], limit=1) == [first.id]
    assert hub.agents.ids_matching(first.id[-6:]) == []  # one resource's ids only
    for wildcard in ("____", "%%%%", "0\\%_"):  # LIKE's wildcards are matched as themselves
        assert hub.projects.ids_matching(wildcard) == []
    with pytest.raises(GiskardValidationError, match="at least 4 characters"):
        hub.projects.ids_matching("ab ")
