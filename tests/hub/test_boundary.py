"""Hostile replies and test cases at the Hub's boundary: any reply is stored and read back, a result
that cannot be written is stored as ERROR alone, and nothing blocks a resume."""

from __future__ import annotations

import json
from typing import Any

import pytest

from giskard_nb.core.reply import AgentOutput, reply_text, to_agent_output
from giskard_nb.errors import AgentError
from giskard_nb.hub import Hub, evaluation_store
from giskard_nb.hub.agents import parse_payload
from giskard_nb.scan.agent import AgentReply, normalize_reply
from tests.hub.conftest import rule_case


def _cyclic() -> dict[str, Any]:
    loop: dict[str, Any] = {"name": "loop"}
    loop["self"] = loop
    return loop


def _deep(n: int = 2000) -> dict[str, Any]:
    root: dict[str, Any] = {}
    cur = root
    for _ in range(n):
        cur["x"] = {}
        cur = cur["x"]
    return root


HOSTILE = {
    "object": object(),
    "cycle": _cyclic(),
    "deep": _deep(),
    "bytes": b"\x00\x01",
    "set": {1},
}


def _dataset(hub: Hub, n: int) -> Any:
    project = hub.projects.create("p")
    return hub.datasets.upload(
        project.id, [rule_case(f"question {i}", "answer") for i in range(n)], name="d"
    )


def _readable(hub: Hub, evaluation_id: str) -> None:
    """Everything that reads an evaluation back works."""
    hub.evaluations.summary(evaluation_id)
    hub.evaluations.results.to_dataframe(evaluation_id)
    hub.evaluations.results.to_dataframe(evaluation_id, level="checks")
    for result in hub.evaluations.results.list(evaluation_id):
        json.dumps(result.model_dump(mode="json"))


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_reply_metadata_is_stored_with_the_whole_batch(hub: Hub, kind: str) -> None:
    dataset = _dataset(hub, 8)

    def agent(messages):
        if messages[-1]["content"] == "question 3":
            return {"response": "answer", "metadata": {"value": HOSTILE[kind]}}
        return "answer"

    evaluation = hub.evaluations.create_local(agent, dataset.id, progress=False)
    assert evaluation.status == "finished"
    assert evaluation.counts["pass"] == 8  # before: 0 of 8 stored (PydanticSerializationError)
    _readable(hub, evaluation.id)
    stored = [r for r in evaluation.results() if r.agent_output.metadata]
    assert len(stored) == 1
    text = json.dumps(stored[0].agent_output.metadata)
    marker = {"object": "<object object", "cycle": "<cycle: dict>", "deep": "<truncated: deeper"}
    assert marker.get(kind, "") in text


def test_a_bad_reply_in_the_middle_does_not_block_the_run_or_its_resume(mem_hub: Hub) -> None:
    dataset = _dataset(mem_hub, 60)

    def agent(messages):
        if messages[-1]["content"] == "question 30":
            return {"response": "answer", "metadata": {"cycle": _cyclic(), "o": object()}}
        return "answer"

    evaluation = mem_hub.evaluations.create_local(
        agent, dataset.id, max_concurrency=4, progress=False
    )
    assert evaluation.counts["pass"] == 60
    resumed = mem_hub.evaluations.resume(evaluation.id, agent=agent, progress=False)
    assert resumed.status == "finished" and len(resumed.results()) == 60


@pytest.mark.parametrize("where", ["reply", "test case", "check keyword", "tag"])
def test_a_lone_surrogate_keeps_the_evaluation_readable(hub: Hub, where: str) -> None:
    project = hub.projects.create("p")
    case = rule_case("hello \ud800 there" if where == "test case" else "hello", "answer")
    if where == "check keyword":
        case["checks"][0]["params"]["keyword"] = "answer\udfff"
    if where == "tag":
        case["tags"] = ["topic:\ud800"]
    dataset = hub.datasets.upload(project.id, [case, rule_case("other", "answer")], name="d")
    created = hub.test_cases.create(
        dataset.id, messages=[{"role": "user", "content": "made \udc00 by hand"}]
    )
    assert created.messages[0].content == "made \ufffd by hand"

    def agent(messages):
        return "answer \ud800" if where == "reply" else "answer"

    evaluation = hub.evaluations.create_local(agent, dataset.id, progress=False)
    assert evaluation.status == "finished"
    _readable(hub, evaluation.id)  # before: ValueError (unexpected end of hex escape)
    hub.evaluations.resume(evaluation.id, agent=agent, progress=False)
    hub.evaluations.rerun_errored(evaluation.id, agent=agent, progress=False)
    texts = json.dumps([r.model_dump(mode="json") for r in evaluation.results()])
    assert "\\ud800" not in texts and "\\udfff" not in texts


def test_a_result_that_cannot_be_written_is_an_error_alone(
    mem_hub: Hub, monkeypatch: pytest.MonkeyPatch
) -> None:
    dataset = _dataset(mem_hub, 8)
    original = evaluation_store.result_row  # how the run's store encodes a result

    def fails_for_question_3(record):
        if record.status != "error" and record.messages[-1].content == "question 3":
            raise TypeError("cannot encode this result")
        return original(record)

    monkeypatch.setattr(evaluation_store, "result_row", fails_for_question_3)
    evaluation = mem_hub.evaluations.create_local(
        lambda m: "answer", dataset.id, max_concurrency=8, progress=False
    )
    assert evaluation.status == "finished"
    assert evaluation.counts == {"pass": 7, "fail": 0, "error": 1, "skip": 0}
    (error,) = mem_hub.evaluations.results.list(evaluation.id, status="error")
    assert "could not be stored" in error.error and "cannot encode this result" in error.error
    assert error.scenario_result.steps[0].error.phase == "storage"
    _readable(mem_hub, evaluation.id)
    # resume has nothing left to do; a re-run of errors (once writable again) replaces it
    assert len(mem_hub.evaluations.resume(evaluation.id, agent=lambda m: "answer").results()) == 8
    monkeypatch.setattr(evaluation_store, "result_row", original)
    rerun = mem_hub.evaluations.rerun_errored(evaluation.id, agent=lambda m: "answer")
    assert rerun.counts["pass"] == 8


def test_every_entry_point_sanitizes_replies() -> None:
    remote = parse_payload({"response": "hi \ud800", "metadata": {"k": float("nan")}})
    assert remote.content == "hi \ufffd" and remote.metadata == {"k": "NaN"}
    assert normalize_reply is to_agent_output and AgentReply is AgentOutput  # one model, one reader
    local = to_agent_output({"response": "ok", "metadata": {"when": {1, 2}, 3: b"x"}})
    assert local.metadata == {"when": [1, 2], "3": {"$bytes_base64": "eA==", "length": 1}}
    scan = normalize_reply({"content": "x\udfff", "metadata": {"o": _cyclic()}})
    assert scan.text == "x\ufffd" and scan.metadata["o"]["self"] == "<cycle: dict>"
    json.dumps(scan.model_dump(mode="json"))


def test_reply_text_is_capped_with_a_marker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GISKARD_NB_MAX_STRING", "10")
    out = to_agent_output("x" * 25)
    assert out.content == "xxxxxxxxxx…<truncated: 15 more characters>"


def test_a_local_agents_text_reply_is_kept_as_its_agent_output_holds_it(
    mem_hub: Hub, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An evaluation keeps a local agent's string reply without building an AgentOutput: the same
    text (lone surrogates replaced, cut to the cap with its marker), and the plain reply as it is."""
    monkeypatch.setenv("GISKARD_NB_MAX_STRING", "10")
    for text in ("x" * 25 + "\ud800", "a\ud800b", "short"):
        assert reply_text(text) == to_agent_output(text).content
    project = mem_hub.projects.create("p")
    items = [rule_case("long", "xxx"), rule_case("odd", "a"), rule_case("plain", "short")]
    dataset = mem_hub.datasets.upload(project.id, items, name="d")
    replies = {"long": "x" * 25 + "\ud800", "odd": "a\ud800b", "plain": "short"}
    evaluation = mem_hub.evaluations.create_local(
        lambda messages: replies[messages[-1]["content"]], dataset.id, progress=False
    )
    assert evaluation.counts["pass"] == 3
    results = {r.messages[-1].content: r for r in evaluation.results()}
    stored = {q: r.scenario_result.final_trace.last.outputs for q, r in results.items()}
    assert stored == {
        "long": "xxxxxxxxxx…<truncated: 16 more characters>",
        "odd": "a\ufffdb",
        "plain": "short",
    }
    assert all(r.reply_role == "assistant" for r in results.values())
    assert all(r.agent_output.metadata == {} for r in results.values())
    _readable(mem_hub, evaluation.id)


def test_a_hostile_remote_reply_in_a_playground_chat_and_an_evaluation(
    mem_hub: Hub, agent_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    deep = "[" * 500 + "]" * 500  # Python's JSON reader takes it; the boundary cuts it at 64
    body = '{"response": "answer \\ud800", "metadata": {"x": NaN, "deep": ' + deep + "}}"

    def hostile(path, body_in, headers, hits):
        return 200, "application/json", body

    monkeypatch.setattr(agent_server, "route", hostile)
    project = mem_hub.projects.create("p")
    agent = mem_hub.agents.create(project.id, name="bot", url=agent_server.url("/hub"))
    chat = mem_hub.playground_chats.create(project.id, agent_id=agent.id)
    chat = mem_hub.playground_chats.send(chat.id, "hello \udc00")
    assert [m.content for m in mem_hub.playground_chats.retrieve(chat.id).messages] == [
        "hello \ufffd",
        "answer \ufffd",
    ]
    dataset = mem_hub.datasets.upload(project.id, [rule_case("q", "answer")], name="d")
    evaluation = mem_hub.evaluations.create(project.id, agent.id, dataset.id, progress=False)
    assert evaluation.counts["pass"] == 1
    (result,) = evaluation.results()
    assert result.agent_output.metadata["x"] == "NaN"
    assert "<truncated: deeper than" in json.dumps(result.agent_output.metadata["deep"])
    _readable(mem_hub, evaluation.id)


def test_a_remote_reply_too_deep_to_decode_is_an_agent_error(
    mem_hub: Hub, agent_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = '{"response": "answer", "metadata": {"deep": ' + "[" * 5000 + "]" * 5000 + "}}"
    monkeypatch.setattr(agent_server, "route", lambda *a: (200, "application/json", body))
    project = mem_hub.projects.create("p")
    agent = mem_hub.agents.create(
        project.id, name="bot", url=agent_server.url("/hub"), max_retries=0
    )
    chat = mem_hub.playground_chats.create(project.id, agent_id=agent.id)
    with pytest.raises(AgentError, match="nested too deeply"):
        mem_hub.playground_chats.send(chat.id, "hello")
    dataset = mem_hub.datasets.upload(project.id, [rule_case("q", "answer")], name="d")
    evaluation = mem_hub.evaluations.create(project.id, agent.id, dataset.id, progress=False)
    (result,) = evaluation.results()
    assert result.status == "error" and "nested too deeply" in result.error


def test_a_surrogate_from_anywhere_else_is_still_stored_readable(mem_hub: Hub) -> None:
    dataset = _dataset(mem_hub, 1)
    evaluation = mem_hub.evaluations.create_local(lambda m: "answer", dataset.id, progress=False)
    (result,) = evaluation.results()
    step = result.scenario_result.steps[0]
    check = step.results[0].model_copy(update={"message": "a check said \ud800"})
    scenario = result.scenario_result.model_copy(
        update={"steps": [step.model_copy(update={"results": [check]})]}
    )
    odd = result.model_copy(
        update={"scenario_result": scenario, "failure_category_reason": "why \udc00"}
    )
    stored, replaced = mem_hub.evaluations.store.append([odd], replace=True)
    assert replaced == 1 and stored[0].id == result.id
    (row,) = mem_hub.evaluations.results.iter_raw(evaluation.id)
    assert row["checks"][0]["message"] == "a check said \ufffd"
    assert row["failure_category_reason"] == "why \ufffd"
    _readable(mem_hub, evaluation.id)
