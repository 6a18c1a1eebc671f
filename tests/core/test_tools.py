"""The tool-call trace model: ToolCall/ToolSpec, the provider adapters, Interaction and Trace fields."""

from __future__ import annotations

import asyncio
import json

import pytest

from giskard_nb.core.extraction import resolve
from giskard_nb.core.interaction import Interaction, Trace
from giskard_nb.core.scenario import Scenario
from giskard_nb.core.tool_adapters import MAX_CALLS, split_reply, tool_calls_from
from giskard_nb.core.tools import ToolCall, ToolSpec

OPENAI_CALL = {
    "id": "c1",
    "type": "function",
    "function": {"name": "get_balance", "arguments": '{"account": "123"}'},
}
CONVERSATION = [
    {"role": "user", "content": "What is my balance?"},
    {"role": "assistant", "content": None, "tool_calls": [OPENAI_CALL]},
    {"role": "tool", "tool_call_id": "c1", "content": "42 EUR"},
    {"role": "assistant", "content": "You have 42 EUR."},
    {"role": "user", "content": "Send 10 to Bob."},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c2", "type": "function", "function": {"name": "transfer", "arguments": "{"}}
        ],
    },
]


def test_openai_conversation_pairs_results_and_counts_turns():
    balance, transfer = tool_calls_from(CONVERSATION)
    assert (balance.name, balance.arguments, balance.result, balance.status) == (
        "get_balance",
        {"account": "123"},
        "42 EUR",
        "ok",
    )
    assert (balance.turn, transfer.turn) == (0, 1)
    assert transfer.arguments == "{" and "not valid JSON" in transfer.arguments_error
    assert transfer.status == "unknown"


def test_chat_completion_and_message():
    completion = {"choices": [{"message": {"role": "assistant", "tool_calls": [OPENAI_CALL]}}]}
    assert [c.name for c in tool_calls_from(completion)] == ["get_balance"]
    assert split_reply(completion) == ("", tool_calls_from(completion))


def test_anthropic_blocks_and_error_results():
    conversation = [
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me check."},
                {"type": "tool_use", "id": "t1", "name": "weather", "input": {"city": "Paris"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "content": [{"type": "text", "text": "service down"}],
                    "is_error": True,
                }
            ],
        },
    ]
    (call,) = tool_calls_from(conversation)
    assert (call.name, call.arguments, call.error, call.status, call.turn) == (
        "weather",
        {"city": "Paris"},
        "service down",
        "error",
        0,
    )
    assert split_reply(conversation[1]) == (
        "Let me check.",
        [call.model_copy(update={"error": None, "status": "unknown", "turn": None})],
    )


def test_responses_output():
    output = {
        "output": [
            {"type": "function_call", "call_id": "f1", "name": "search", "arguments": '{"q": "x"}'},
            {"type": "function_call_output", "call_id": "f1", "output": "found"},
            {"type": "message", "content": [{"type": "output_text", "text": "Done."}]},
        ]
    }
    text, (call,) = split_reply(output)
    assert text == "Done." and (call.name, call.arguments, call.result) == (
        "search",
        {"q": "x"},
        "found",
    )


def test_plain_data_is_not_a_reply():
    assert split_reply({"name": "Ada", "arguments": {"a": 1}}) is None
    assert split_reply({"answer": 42}) is None
    assert split_reply({"output": [1, 2]}) is None
    assert split_reply("text") is None


def test_calls_are_bounded_and_data():
    many = [{"name": f"t{i}", "arguments": {}} for i in range(MAX_CALLS + 50)]
    assert len(tool_calls_from(many)) == MAX_CALLS
    call = ToolCall(name="x" * 1000, arguments={"bad": "\ud800"})
    assert len(call.name) == 200 and call.arguments == {"bad": "\ufffd"}
    assert tool_calls_from([{"name": "  "}, 3, None]) == []


def test_status_follows_result_and_error():
    assert ToolCall(name="a", result="ok").status == "ok"
    assert ToolCall(name="a", error="boom").failed
    assert ToolCall(name="a", result="x", status="error").status == "error"


def test_interaction_and_trace_round_trip_and_jsonpath():
    calls = tool_calls_from(CONVERSATION)
    first = Interaction(inputs="q", outputs="a", tool_calls=calls[:1])
    second = Interaction(inputs="q2", outputs="b", tool_calls=calls[1:])
    trace = Trace(interactions=[first, second])
    assert [(c.name, c.turn) for c in trace.tool_calls] == [("get_balance", 0), ("transfer", 1)]
    again = Trace.model_validate_json(trace.model_dump_json())
    assert again == trace and hash(again.interactions[0]) == hash(first)
    assert resolve(trace, "trace.interactions[0].tool_calls[0].arguments.account") == "123"
    assert resolve(trace, "trace.last.tool_calls[0].name") == "transfer"
    assert resolve(trace, "trace.tool_calls[*].name") == ["get_balance", "transfer"]
    appended = trace.appended(first)
    assert [c.turn for c in appended.tool_calls] == [0, 1, 2]


@pytest.mark.parametrize(
    "reply",
    [
        {"role": "assistant", "content": "Checking.", "tool_calls": [OPENAI_CALL]},
        {
            "text": "Checking.",
            "tool_calls": [{"name": "get_balance", "arguments": {"account": "123"}}],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "x", "name": "get_balance", "input": {"account": "123"}},
            ],
        },
    ],
)
def test_a_target_returning_tool_calls_fills_the_interaction(reply):
    result = asyncio.run(Scenario("tools").interact("balance?", lambda inputs: reply).run())
    interaction = result.final_trace.last
    assert interaction.outputs == "Checking."
    assert [(c.name, c.arguments) for c in interaction.tool_calls] == [
        ("get_balance", {"account": "123"})
    ]


def test_tool_specs_from_providers():
    fn = {"name": "pay", "description": "Pay", "parameters": {"type": "object"}}
    assert ToolSpec.from_openai({"type": "function", "function": fn}).input_schema == {
        "type": "object"
    }
    spec = ToolSpec.from_anthropic({"name": "pay", "input_schema": {"type": "object"}}, risk="high")
    assert (spec.name, spec.risk) == ("pay", "high")
    mcp = ToolSpec.from_mcp(
        {"name": "rm", "inputSchema": {}, "annotations": {"destructiveHint": True}}, server="fs"
    )
    assert (mcp.side_effect, mcp.requires_confirmation, mcp.server) == ("write", True, "fs")
    with pytest.raises(ValueError, match="needs a name"):
        ToolSpec(name=" ")
    assert json.loads(mcp.model_dump_json())["server"] == "fs"
