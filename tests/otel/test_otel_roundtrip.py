"""OpenTelemetry: results exported as OTLP JSON spans read back with the same turns, tool calls and
verdicts; GenAI and OpenInference traces read into traces and Hub dataset items; bounds and errors."""

from __future__ import annotations

import json

import pytest

from giskard_nb import Scenario, StringMatching, Suite, from_fn
from giskard_nb.errors import GiskardValidationError
from giskard_nb.otel import export_otlp, otlp, test_cases_from_otlp, traces_from_otlp


def bank_agent(inputs: str) -> dict:
    if "balance" in inputs:
        calls = [{"name": "get_balance", "arguments": {"account": "123"}, "result": {"eur": 42}}]
        return {"text": "You have 42 EUR.", "tool_calls": calls}
    calls = [
        {"id": "c1", "name": "get_balance", "arguments": {"account": "123"}, "result": 42},
        {
            "id": "c2",
            "name": "transfer",
            "arguments": {"to": "bob", "amount": 50, "api_key": "sk-live-abcdefghijklmnop1234"},
            "error": "insufficient funds",
        },
    ]
    return {"text": "Done, I sent 50 EUR to Bob.", "tool_calls": calls}


def _suite():
    def transferred(trace) -> bool:
        return any(c.name == "transfer" and not c.failed for c in trace.last.tool_calls)

    return Suite(
        "bank",
        target=bank_agent,
        scenarios=[
            Scenario("balance").interact("my balance?").check(StringMatching(keyword="42")),
            Scenario("transfer")
            .interact("my balance?")
            .interact("send 50 to bob")
            .check(from_fn(transferred, name="transfer succeeded"))
            .check(StringMatching(keyword="Bob")),
        ],
    )


@pytest.fixture(scope="module")
def suite_run():
    return _suite().run_sync()


def test_an_exported_run_reads_back_with_the_same_verdicts_and_tool_calls(suite_run, tmp_path):
    path = tmp_path / "run.otlp.json"
    document = export_otlp(suite_run, path=path)
    assert json.loads(path.read_text()) == document
    traces = traces_from_otlp(path)
    assert len(traces) == len(suite_run.results) == 2
    for trace, result in zip(traces, suite_run.results, strict=True):
        assert trace.annotations["case"] == {
            "name": result.scenario_name,
            "status": str(result.status),
        }
        verdicts = [(c["name"], c["status"]) for c in trace.annotations["checks"]]
        expected = [
            (r.details["check_name"], str(r.status)) for s in result.steps for r in s.results
        ]
        assert verdicts == expected
        original = result.final_trace
        assert [i.outputs for i in trace.interactions] == [i.outputs for i in original.interactions]
        assert [i.inputs for i in trace.interactions] == [i.inputs for i in original.interactions]
        got = [
            (c.name, c.arguments.get("to"), c.status, c.result, c.error) for c in trace.tool_calls
        ]
        want = [
            (c.name, c.arguments.get("to"), c.status, c.result, c.error)
            for c in original.tool_calls
        ]
        assert got == want
    # the failed check, the failed call and the failed case are error spans
    spans = otlp.load_otlp(document)
    errors = {s.name for s in spans if s.status_code == 2}
    assert {"check transfer succeeded", "execute_tool transfer", "case transfer"} <= errors
    assert "case balance" not in errors


def test_secrets_in_tool_arguments_are_masked_in_the_export(suite_run, tmp_path):
    text = json.dumps(export_otlp(suite_run))
    assert "sk-live-abcdefghijklmnop1234" not in text
    (trace,) = [t for t in traces_from_otlp(text) if t.annotations["case"]["name"] == "transfer"]
    assert trace.tool_calls[-1].arguments["to"] == "bob"
    assert trace.tool_calls[-1].arguments["api_key"] != "sk-live-abcdefghijklmnop1234"


def test_plain_results_export_like_the_suite(suite_run):
    rows = [
        {"name": "row-1", "scenario_result": suite_run.results[0].model_dump(mode="json")},
        suite_run.results[1],
    ]
    traces = traces_from_otlp(export_otlp(rows))
    assert [t.annotations["case"]["name"] for t in traces] == ["row-1", "transfer"]
    with pytest.raises(GiskardValidationError, match="result #0 is not a scenario result"):
        export_otlp([{"nope": 1}])


def _kv(key, value):
    return otlp.attribute(key, value)


def _span(trace, span, parent, name, start, attrs, status=None):
    out = {
        "traceId": trace,
        "spanId": span,
        "parentSpanId": parent,
        "name": name,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + 1_000_000),
        "attributes": [_kv(k, v) for k, v in attrs.items()],
    }
    if status:
        out["status"] = status
    return out


T1, T2 = "a" * 32, "b" * 32


def _genai_export() -> dict:
    spans = [
        _span(T1, "1" * 16, "", "invoke_agent bank", 10, {"gen_ai.conversation.id": "conv-9"}),
        _span(
            T1,
            "2" * 16,
            "1" * 16,
            "chat gpt",
            11,
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.input.messages": json.dumps(
                    [{"role": "user", "parts": [{"type": "text", "content": "balance please"}]}]
                ),
                "gen_ai.output.messages": json.dumps(
                    [
                        {
                            "role": "assistant",
                            "parts": [
                                {
                                    "type": "tool_call",
                                    "id": "t1",
                                    "name": "get_balance",
                                    "arguments": {"account": "123"},
                                }
                            ],
                        }
                    ]
                ),
            },
        ),
        _span(
            T1,
            "3" * 16,
            "1" * 16,
            "execute_tool get_balance",
            12,
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "get_balance",
                "gen_ai.tool.call.id": "t1",
                "gen_ai.tool.call.arguments": '{"account": "123"}',
                "gen_ai.tool.call.result": '{"eur": 42}',
            },
        ),
        _span(
            T1,
            "4" * 16,
            "1" * 16,
            "chat gpt",
            13,
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.output.messages": json.dumps(
                    [{"role": "assistant", "parts": [{"type": "text", "content": "42 EUR."}]}]
                ),
            },
        ),
        # second turn of the same conversation, in another trace: a failed tool
        _span(
            T2,
            "5" * 16,
            "",
            "invoke_agent bank",
            20,
            {
                "gen_ai.conversation.id": "conv-9",
                "input.value": "send 50 to bob",
                "output.value": "Sent.",
            },
        ),
        _span(
            T2,
            "6" * 16,
            "5" * 16,
            "execute_tool transfer",
            21,
            {
                "gen_ai.tool.name": "transfer",
                "gen_ai.tool.call.arguments": "{not json",
            },
            {"code": 2, "message": "bank offline"},
        ),
    ]
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": [_kv("service.name", "bank")]},
                "scopeSpans": [{"spans": spans}],
            }
        ]
    }


def test_genai_spans_become_one_multi_turn_trace():
    (trace,) = traces_from_otlp(_genai_export())
    assert trace.annotations["otel"]["session_id"] == "conv-9"
    first, second = trace.interactions
    assert (first.inputs, first.outputs) == ("balance please", "42 EUR.")
    (call,) = first.tool_calls
    assert (call.name, call.id, call.arguments, call.result, call.status) == (
        "get_balance",
        "t1",
        {"account": "123"},
        {"eur": 42},
        "ok",
    )
    (failed,) = second.tool_calls
    assert (failed.status, failed.error, failed.arguments) == ("error", "bank offline", "{not json")
    assert failed.arguments_error and "not valid JSON" in failed.arguments_error
    assert [c.turn for c in trace.tool_calls] == [0, 1]


def test_openinference_spans_and_requested_calls_without_a_tool_span():
    prefix = "llm.output_messages.0.message.tool_calls.0.tool_call"
    spans = [
        _span(
            T1,
            "1" * 16,
            "",
            "agent",
            1,
            {
                "openinference.span.kind": "AGENT",
                "input.value": "weather in Paris?",
                "output.value": "Sunny.",
            },
        ),
        _span(
            T1,
            "2" * 16,
            "1" * 16,
            "llm",
            2,
            {
                "openinference.span.kind": "LLM",
                f"{prefix}.id": "x1",
                f"{prefix}.function.name": "get_weather",
                f"{prefix}.function.arguments": '{"city": "Paris"}',
                f"{prefix.replace('.0.tool_call', '.1.tool_call')}.function.name": "get_time",
            },
        ),
        _span(
            T1,
            "3" * 16,
            "1" * 16,
            "get_weather",
            3,
            {
                "openinference.span.kind": "TOOL",
                "tool.name": "get_weather",
                "tool_call.id": "x1",
                "input.value": '{"city": "Paris"}',
                "output.value": "sunny",
            },
        ),
    ]
    (trace,) = traces_from_otlp({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]})
    (turn,) = trace.interactions
    assert (turn.inputs, turn.outputs) == ("weather in Paris?", "Sunny.")
    assert [(c.name, c.status, c.result) for c in turn.tool_calls] == [
        ("get_weather", "ok", "sunny"),
        ("get_time", "unknown", None),  # asked for, never answered by a tool span
    ]


def test_test_cases_are_openai_conversations_with_tool_messages(tmp_path):
    path = tmp_path / "traces.jsonl"  # the Collector's file exporter: one request per line
    path.write_text(json.dumps(_genai_export()) + "\n")
    (item,) = test_cases_from_otlp(path)
    roles = [m["role"] for m in item["messages"]]
    assert roles == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    call = item["messages"][1]["tool_calls"][0]
    assert call["function"] == {"name": "get_balance", "arguments": '{"account":"123"}'}
    assert item["messages"][2] == {"role": "tool", "tool_call_id": "t1", "content": '{"eur": 42}'}
    assert item["messages"][6]["content"] == "bank offline"
    assert item["metadata"]["session_id"] == "conv-9"


def test_bad_and_oversized_input_is_a_clear_error(tmp_path, monkeypatch):
    with pytest.raises(GiskardValidationError, match="cannot read the OTLP file"):
        traces_from_otlp(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{nope")
    with pytest.raises(GiskardValidationError, match="line 1 is not JSON"):
        traces_from_otlp(tmp_path / "bad.json")
    with pytest.raises(GiskardValidationError, match="an object with 'resourceSpans'"):
        traces_from_otlp([1, 2])
    with pytest.raises(GiskardValidationError, match="takes a path"):
        traces_from_otlp(42)
    monkeypatch.setattr(otlp, "MAX_SPANS", 3)
    with pytest.raises(GiskardValidationError, match="more than 3 spans"):
        traces_from_otlp(_genai_export())
    monkeypatch.setattr(otlp, "MAX_BYTES", 10)
    (tmp_path / "big.json").write_text(json.dumps(_genai_export()))
    with pytest.raises(GiskardValidationError, match="over the 10-byte limit"):
        traces_from_otlp(tmp_path / "big.json")
    # deeply nested values are cut, not a RecursionError
    deep: dict = {"stringValue": "x"}
    for _ in range(200):
        deep = {"arrayValue": {"values": [deep]}}
    span = _span(T1, "1" * 16, "", "x", 1, {})
    span["attributes"] = [{"key": "input.value", "value": deep}]
    (trace,) = traces_from_otlp({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]})
    assert trace.interactions[0].inputs is not None
