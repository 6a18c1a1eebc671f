"""Record/replay of model and agent calls: a whole suite re-runs with the server stopped."""

from __future__ import annotations

import json

import pytest

from giskard_nb import Groundedness, LLMJudge, Scenario, Suite, set_default_generator
from giskard_nb.errors import AgentError, GiskardValidationError
from giskard_nb.llm import LLMReplayMissError, recording
from giskard_nb.testing import FakeLLMServer

CALLS: list[str] = []


def agent(inputs: str) -> str:
    CALLS.append(inputs)
    return f"Paris is the capital. ({inputs})"


def _suite() -> Suite:
    suite = Suite("recorded", target=agent)
    for i in range(3):
        suite.append(
            Scenario(f"s{i}")
            .interact(f"question {i}")
            .check(Groundedness(context="Paris is the capital of France."))
            .interact(f"follow-up {i}")
            .check(LLMJudge(prompt="Is this polite? {{ outputs }}"))
        )
    return suite


def test_record_then_replay_with_the_server_stopped(tmp_path):
    path = tmp_path / "run.jsonl"
    CALLS.clear()
    with FakeLLMServer(reply={"reason": "ok", "passed": True}) as server:
        # temperature 0.5: not cached, so the replay really comes from the recording
        set_default_generator(server.generator(temperature=0.5, max_retries=0))
        with recording(path, mode="record") as rec:
            first = _suite().run_sync()
        assert len(server.chat_requests) == 6
    assert first.passed_count == 3 and len(CALLS) == 6
    assert rec.recorded == 12  # 6 agent calls + 6 judge calls
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0] == {"giskard_nb_recording": 1}
    assert {line["kind"] for line in lines[1:]} == {"agent", "completion"}

    CALLS.clear()
    with recording(path, mode="replay") as rec:
        second = _suite().run_sync()
    assert CALLS == []  # the agent was not called
    assert rec.replayed == 12
    assert second.passed_count == 3
    assert [r.final_trace for r in second.results] == [r.final_trace for r in first.results]
    assert second.usage.llm_calls == 0


def test_replay_miss_is_an_error_result_not_a_crash(tmp_path):
    path = tmp_path / "empty.jsonl"
    with recording(path, mode="record"):
        pass
    set_default_generator("openai/gpt-4o-mini")
    with recording(path, mode="replay"):
        result = (
            Scenario("x")
            .interact("hi", "static answer")
            .check(LLMJudge(prompt="ok? {{ outputs }}"))
            .run_sync()
        )
    check = result.steps[0].results[0]
    assert check.errored and check.details["error_type"] == "LLMReplayMissError"
    assert "re-record" in check.message
    with recording(path, mode="replay"):
        missing_agent = Scenario("y").interact("hi", agent).run_sync()
    assert missing_agent.steps[0].error.phase == "target"
    assert "no recorded reply of agent" in missing_agent.steps[0].error.message


async def test_auto_mode_replays_known_calls_and_records_new_ones(tmp_path, gen, server):
    path = tmp_path / "auto.jsonl"
    with recording(path, mode="auto") as rec:
        await gen.complete("one", temperature=0.9)
    assert rec.recorded == 1 and len(server.requests) == 1
    with recording(path, mode="auto") as rec:
        await gen.complete("one", temperature=0.9)
        await gen.complete("two", temperature=0.9)
    assert rec.replayed == 1 and rec.recorded == 1 and len(server.requests) == 2
    with recording(path, mode="replay"):
        await gen.complete("two", temperature=0.9)
        with pytest.raises(LLMReplayMissError):
            await gen.complete("three", temperature=0.9)


def test_agent_exceptions_are_recorded_and_replayed(tmp_path):
    def broken(inputs):
        raise RuntimeError("agent is down")

    path = tmp_path / "errors.jsonl"
    with recording(path, mode="record"):
        first = Scenario("e").interact("hi", broken).run_sync()
    with recording(path, mode="replay"):
        second = Scenario("e").interact("hi", broken).run_sync()
    assert first.steps[0].error.phase == second.steps[0].error.phase == "target"
    assert "agent is down" in second.steps[0].error.message
    assert second.steps[0].error.exception_type == AgentError.__name__


def test_unrecordable_agent_reply_is_a_clear_error(tmp_path):
    with recording(tmp_path / "x.jsonl", mode="record"):
        result = Scenario("o").interact("hi", lambda inputs: object()).run_sync()
    assert "cannot record the reply" in result.steps[0].error.message


def test_damaged_or_missing_recordings_are_refused(tmp_path):
    with pytest.raises(GiskardValidationError, match="no recording"):
        recording(tmp_path / "absent.jsonl", mode="replay").__enter__()
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"giskard_nb_recording": 1}\nnot json\n')
    with pytest.raises(GiskardValidationError, match="line 2"), recording(bad, mode="replay"):
        pass
    future = tmp_path / "future.jsonl"
    future.write_text('{"giskard_nb_recording": 7}\n')
    with pytest.raises(GiskardValidationError, match="format 7"):
        recording(future, mode="auto").__enter__()
    with pytest.raises(GiskardValidationError, match="mode"):
        recording(tmp_path / "m.jsonl", mode="sometimes").__enter__()


async def test_a_recorded_reply_the_strict_reader_refuses_is_an_error_saying_re_record(
    tmp_path, gen, server
):
    from pydantic import BaseModel

    from giskard_nb.llm import LLMResponseError

    class Verdict(BaseModel):
        reason: str
        passed: bool

    path = tmp_path / "old.jsonl"
    server.reply = {"reason": "ok", "passed": True}
    with recording(path, mode="record"):
        await gen.complete("judge", output_type=Verdict, temperature=0.9)
    lines = path.read_text().splitlines()
    entry = json.loads(lines[1])
    entry["value"]["text"] = 'Verdict: {"reason": "ok", "passed": true}'  # an older, tolerant era
    path.write_text("\n".join([lines[0], json.dumps(entry)]) + "\n")
    with recording(path, mode="replay"), pytest.raises(LLMResponseError, match="re-record"):
        await gen.complete("judge", output_type=Verdict, temperature=0.9)
