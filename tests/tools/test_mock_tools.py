"""MockTools: scripted results, errors, rules, calls recorded; record a provider, save, replay offline."""

from __future__ import annotations

import json

import pytest

from giskard_nb import Scenario
from giskard_nb.core.tools import ToolCall, ToolSpec
from giskard_nb.errors import GiskardValidationError, SerializationError
from giskard_nb.llm.recording import recording
from giskard_nb.tools import MockTools, ToolError

WEATHER = ToolSpec(
    name="get_weather",
    description="The weather in a city.",
    input_schema={"type": "object", "properties": {"city": {"type": "string"}}},
)


def test_scripted_values_callables_and_per_call_lists() -> None:
    tools = MockTools(
        specs=[WEATHER],
        results={
            "get_weather": lambda args: {"city": args["city"], "temp_c": len(args["city"])},
            "roll_dice": [3, 5],
            "ping": "pong",
        },
    )
    assert tools.call("get_weather", {"city": "Paris"}) == {"city": "Paris", "temp_c": 5}
    assert [tools.call("roll_dice") for _ in range(3)] == [3, 5, 5]  # the last one repeats
    assert tools.call("ping", {}) == "pong"
    assert tools.names == ["get_weather", "roll_dice", "ping"]  # scripted tools get a spec
    assert [c.name for c in tools.calls] == [
        "get_weather",
        "roll_dice",
        "roll_dice",
        "roll_dice",
        "ping",
    ]
    first = tools.calls[0]
    assert isinstance(first, ToolCall) and first.status == "ok" and first.duration_s is not None
    assert first.arguments == {"city": "Paris"} and first.result["temp_c"] == 5
    tools.reset()
    assert tools.calls == [] and tools.call("roll_dice") == 3  # the per-call list restarts


def test_errors_unknown_tools_and_raising_scripts_are_recorded_error_calls() -> None:
    def broken(args):
        raise KeyError("city")

    tools = MockTools(
        specs=[WEATHER], results={"forecast": broken}, errors={"send_sms": "gateway down"}
    )
    with pytest.raises(ToolError, match="gateway down"):
        tools.call("send_sms", {"to": "+33600000000"})
    with pytest.raises(ToolError, match=r"unknown tool 'launch'.*get_weather, forecast, send_sms"):
        tools.call("launch", {})
    failed = tools.run("forecast", {"city": "Oslo"})  # run never raises: the call is returned
    assert failed.status == "error" and "KeyError" in failed.error
    unscripted = tools.run("get_weather", {"city": "Rome"})
    assert unscripted.failed and "results={'get_weather': ...} or default=..." in unscripted.error
    assert [c.status for c in tools.calls] == ["error", "error", "error", "error"]
    assert MockTools(specs=[WEATHER], default={"temp_c": 20}).call("get_weather") == {"temp_c": 20}


def test_exact_argument_rules_win_and_results_are_copies() -> None:
    tools = MockTools(results={"lookup": {"found": False}})
    tools.on("lookup", {"id": 7}, result={"found": True, "tags": ["a"]}).on(
        "lookup", {"id": 8}, error="forbidden"
    )
    got = tools.call("lookup", {"id": 7})
    got["tags"].append("mutated")  # the agent cannot change the script
    assert tools.call("lookup", {"id": 7}) == {"found": True, "tags": ["a"]}
    assert tools.call("lookup", {"id": 9}) == {"found": False}
    assert tools.run("lookup", {"id": 8}).error == "forbidden"
    fresh = tools.copy()  # same scripts, its own calls and tables
    fresh.errors["lookup"] = "down"
    assert fresh.calls == [] and fresh.run("lookup", {"id": 9}).error == "down"
    assert tools.call("lookup", {"id": 7})["found"] and len(tools.calls) == 5
    assert tools.calls[0].result == {"found": True, "tags": ["a"]}  # as returned, not as changed


async def test_acall_awaits_async_scripts_and_latency_is_validated() -> None:
    async def slow_lookup(args):
        return {"id": args["id"]}

    tools = MockTools(results={"lookup": slow_lookup}, latency_s={"lookup": 0.01})
    assert await tools.acall("lookup", {"id": 1}) == {"id": 1}
    assert "async" in tools.run("lookup", {"id": 2}).error  # a sync call cannot await it
    with pytest.raises(GiskardValidationError, match="latency_s"):
        MockTools(latency_s={"lookup": -1})


def test_provider_definitions() -> None:
    tools = MockTools(specs=[WEATHER, {"name": "noop"}])
    openai = tools.openai_tools()
    assert openai[0] == {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "The weather in a city.",
            "parameters": WEATHER.input_schema,
        },
    }
    assert tools.anthropic_tools()[1]["input_schema"] == {"type": "object", "properties": {}}
    assert MockTools(specs=openai).specs[0] == WEATHER.model_copy()  # definitions read back
    with pytest.raises(GiskardValidationError, match="tool spec"):
        MockTools(specs=[42])


class _Provider:
    """A tool provider (TOOLS-COMMON contract): specs and call, raising for a tool error."""

    def __init__(self) -> None:
        self.specs = [WEATHER, ToolSpec(name="login")]
        self.seen: list[str] = []

    def call(self, name: str, arguments: dict) -> object:
        self.seen.append(name)
        if arguments.get("city") == "Atlantis":
            raise LookupError("no such city")
        if name == "login":
            return {"session": "sk-live-0123456789abcdefghijklmnop", "api_key": "secret-value-1"}
        return {"city": arguments["city"], "temp_c": 18}


def test_record_save_and_replay_offline(tmp_path) -> None:
    provider = _Provider()
    recorded = MockTools.record(provider)
    assert recorded.call("get_weather", {"city": "Lyon"}) == {"city": "Lyon", "temp_c": 18}
    with pytest.raises(ToolError, match="LookupError: no such city"):
        recorded.call("get_weather", {"city": "Atlantis"})
    recorded.call("login", {"user": "ada"})
    path = recorded.save(tmp_path / "tools.json")
    text = path.read_text()
    assert "sk-live-0123456789" not in text and "secret-value-1" not in text  # masked on disk
    assert not list(tmp_path.glob(".*.tmp"))  # written atomically

    replay = MockTools.replay(path)
    assert provider.seen == ["get_weather", "get_weather", "login"]
    assert replay.call("get_weather", {"city": "Lyon"}) == {"city": "Lyon", "temp_c": 18}
    with pytest.raises(ToolError, match="no such city"):
        replay.call("get_weather", {"city": "Atlantis"})
    missed = replay.run("get_weather", {"city": "Lyons"})
    assert missed.failed and "the nearest recorded call is get_weather" in missed.error
    assert '"city": "Lyon"' in missed.error
    assert "nearest recorded call is" in replay.run("delete_all", {}).error
    assert provider.seen == ["get_weather", "get_weather", "login"]  # nothing reached the provider
    assert replay.specs[0] == WEATHER


async def test_record_an_async_provider() -> None:
    class AsyncProvider:
        specs = [WEATHER]

        async def call(self, name, arguments):
            if arguments["city"] == "Atlantis":
                raise LookupError("no such city")
            return {"city": arguments["city"]}

    recorded = MockTools.record(AsyncProvider())
    assert await recorded.acall("get_weather", {"city": "Nice"}) == {"city": "Nice"}
    assert recorded.call("get_weather", {"city": "Pau"}) == {"city": "Pau"}  # run to completion
    assert [c.result for c in recorded.calls] == [{"city": "Nice"}, {"city": "Pau"}]
    with pytest.raises(ToolError, match="^LookupError: no such city$"):  # the provider's words
        await recorded.acall("get_weather", {"city": "Atlantis"})
    assert recorded.run("get_weather", {"city": "Atlantis"}).error == "LookupError: no such city"
    with pytest.raises(GiskardValidationError, match="tool provider"):
        MockTools.record(object())


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "invalid JSON"),
        ('{"calls": []}', "format"),
        ('{"format": "giskard-nb/tool-calls", "version": 9, "specs": [], "calls": []}', "version"),
        (
            '{"format": "giskard-nb/tool-calls", "version": 1, "specs": [], "calls": [{}]}',
            "no tool name",
        ),
    ],
)
def test_a_bad_recording_is_a_clear_error(tmp_path, content, message) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(SerializationError, match=message):
        MockTools.replay(path)
    with pytest.raises(GiskardValidationError, match="cannot read"):
        MockTools.replay(tmp_path / "missing.json")


def test_an_agent_on_mock_tools_replays_under_the_agent_recording(tmp_path) -> None:
    """MockTools inside an agent, with the project's record/replay of agent calls: the replayed
    run has the same tool calls in its trace and calls no tool."""
    tools = MockTools(results={"get_weather": {"temp_c": 21}})

    def agent(question: str) -> dict:
        done = tools.run("get_weather", {"city": "Lyon"})
        return {"text": f"It is {done.result['temp_c']} °C.", "tool_calls": [done.model_dump()]}

    scenario = Scenario("weather").interact("Weather in Lyon?", agent)
    with recording(tmp_path / "run.jsonl", mode="record"):
        first = scenario.run_sync()
    with recording(tmp_path / "run.jsonl", mode="replay"):
        again = scenario.run_sync()
    assert len(tools.calls) == 1  # the replay did not call the agent, so no tool either
    calls = [c.model_dump(exclude={"duration_s"}) for c in again.final_trace.tool_calls]
    assert calls == [c.model_dump(exclude={"duration_s"}) for c in first.final_trace.tool_calls]
    assert calls[0]["name"] == "get_weather" and calls[0]["result"] == {"temp_c": 21}
    assert json.loads(json.dumps(calls))  # JSON data throughout


def test_a_secret_argument_is_masked_on_disk_and_still_replays(tmp_path) -> None:
    recorded = MockTools.record(MockTools(results={"fetch": {"rows": 3}}))
    recorded.call("fetch", {"table": "orders", "api_key": "live-key-value-123"})
    path = recorded.save(tmp_path / "fetch.json")
    assert "live-key-value-123" not in path.read_text()
    replay = MockTools.replay(path)
    assert replay.call("fetch", {"table": "orders", "api_key": "live-key-value-123"}) == {"rows": 3}
    assert replay.run("fetch", {"table": "users", "api_key": "live-key-value-123"}).failed
