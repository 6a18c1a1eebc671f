"""Deterministic tool checks on OpenAI-, Anthropic- and OTLP-shaped traces: which tools were called,
in which order, with which arguments (ToolCalled, ToolNotCalled, ToolSequence, ToolArgs, ToolCallF1,
ToolSchemaValid); JSON round trips, kinds, Hub identifiers and the public exports."""

from __future__ import annotations

import pytest

import giskard_nb
from giskard_nb.core.result import CheckStatus
from giskard_nb.core.tools import ToolCall, ToolSpec
from tests.checks.tool_traces import SHAPES, Err, tool_trace

pytestmark = pytest.mark.parametrize("shape", SHAPES)

SEARCH = ("search_flights", {"origin": "PAR", "destination": "LIS", "date": "2026-05-01"})
BOOK = ("book_flight", {"flight_id": "TP433", "passengers": 2})


def booking(shape):
    """Two turns: a search then, after the user chose, a booking."""
    return tool_trace(
        shape,
        (
            "Flights Paris to Lisbon on May 1?",
            [(*SEARCH, [{"id": "TP433", "price": 89.0}])],
            "TP433 at 89 EUR.",
        ),
        ("Book it for two.", [(*BOOK, {"booking": "BK-1"})], "Booked: BK-1."),
    )


def test_tool_called_by_name_pattern_arguments_count_and_turn(shape):
    trace = booking(shape)
    assert giskard_nb.ToolCalled("book_flight").run(trace).passed
    assert giskard_nb.ToolCalled(pattern=r"^search_").run(trace).passed
    hit = giskard_nb.ToolCalled("book_flight", arguments={"passengers": 2.0}).run(trace)
    assert hit.passed and hit.details["matched"] == [
        'turn 1: book_flight({"flight_id": "TP433", "passengers": 2})'
    ]
    near = giskard_nb.ToolCalled("book_flight", arguments={"passengers": 3}).run(trace)
    assert near.failed and "1 call(s) of the tool had other arguments" in near.message
    assert near.details["near_misses"][0]["diff"] == [
        {"argument": "$.passengers", "problem": "different", "expected": 3, "actual": 2}
    ]
    assert giskard_nb.ToolCalled("book_flight", turn=0).run(trace).failed
    assert giskard_nb.ToolCalled("book_flight", turn=-1).run(trace).passed
    too_many = giskard_nb.ToolCalled(pattern=".", max_count=1).run(trace)
    assert too_many.failed and "expected at most 1" in too_many.message
    assert too_many.metric("count") == 2


def test_tool_called_on_a_trace_without_calls_says_so(shape):
    trace = tool_trace(shape, ("hi", [], "hello"))
    result = giskard_nb.ToolCalled("get_weather").run(trace)
    assert result.failed and "no tool was called" in result.message


def test_a_turn_that_names_no_interaction_is_an_error(shape):
    result = giskard_nb.ToolCalled("book_flight", turn=5).run(booking(shape))
    assert result.status == CheckStatus.ERROR
    assert "the trace has 2 interactions" in result.message


def test_tool_not_called(shape):
    trace = booking(shape)
    assert giskard_nb.ToolNotCalled("delete_account").run(trace).passed
    assert giskard_nb.ToolNotCalled("book_flight", turn=0).run(trace).passed
    bad = giskard_nb.ToolNotCalled(pattern="book").run(trace)
    assert bad.failed and bad.details["matched"][0].startswith("turn 1: book_flight")
    # with arguments: only that call is forbidden
    assert giskard_nb.ToolNotCalled("book_flight", arguments={"passengers": 9}).run(trace).passed


@pytest.mark.parametrize(
    ("mode", "expected", "passes", "score"),
    [
        ("exact", ["search_flights", "book_flight"], True, 1.0),
        ("exact", ["book_flight", "search_flights"], False, 0.0),
        ("exact", ["search_flights"], False, 0.5),
        ("in_order", ["search_flights", "book_flight"], True, 1.0),
        ("in_order", ["book_flight", "search_flights"], False, 0.5),
        ("any_order", ["book_flight", "search_flights"], True, 1.0),
        ("any_order", ["book_flight"], False, 0.5),
        ("subset", ["book_flight", "search_flights", "pay"], True, 1.0),
        ("subset", ["book_flight"], False, 0.5),
        ("superset", ["book_flight"], True, 1.0),
        ("superset", ["book_flight", "pay"], False, 0.5),
    ],
)
def test_tool_sequence_modes_and_partial_credit(shape, mode, expected, passes, score):
    result = giskard_nb.ToolSequence(expected=expected, mode=mode).run(booking(shape))
    assert result.passed is passes, result.message
    assert result.metric("score") == pytest.approx(score)


def test_tool_sequence_details_arguments_and_threshold(shape):
    trace = booking(shape)
    expected = [
        {"name": "search_flights", "arguments": {"destination": "LIS"}},
        ToolCall(name="book_flight", arguments={"passengers": 3}),
        "send_receipt",
    ]
    result = giskard_nb.ToolSequence(expected=expected, mode="in_order").run(trace)
    assert result.failed and result.metric("score") == pytest.approx(1 / 3)
    assert result.details["missing"] == ['book_flight({"passengers": 3})', "send_receipt({})"]
    assert result.details["extra"] == [
        'turn 1: book_flight({"flight_id": "TP433", "passengers": 2})'
    ]
    assert "missing book_flight" in result.message
    names_only = giskard_nb.ToolSequence(expected=expected, arguments="name", threshold=0.6)
    assert names_only.run(trace).passed  # 2 of 3 by name
    assert giskard_nb.ToolSequence(expected=["book_flight"], mode="exact", turn=1).run(trace).passed


def test_tool_args_subset_exact_schema_rules_and_diff(shape):
    trace = booking(shape)
    ok = giskard_nb.ToolArgs(tool="search_flights", expected={"destination": "LIS"})
    assert ok.run(trace).passed
    exact = giskard_nb.ToolArgs(
        tool="search_flights", expected={"destination": "LIS"}, mode="exact"
    )
    failed = exact.run(trace)
    assert failed.failed
    diff = failed.details["calls"][0]["diff"]
    assert {"argument": "$.origin", "problem": "unexpected", "actual": "PAR"} in diff
    wrong = giskard_nb.ToolArgs(tool="book_flight", expected={"flight_id": "TP999", "seat": "1A"})
    result = wrong.run(trace)
    assert result.failed and "$.flight_id different" in result.message
    assert result.details["calls"][0]["diff"] == [
        {"argument": "$.flight_id", "problem": "different", "expected": "TP999", "actual": "TP433"},
        {"argument": "$.seat", "problem": "missing", "expected": "1A"},
    ]
    schema = {
        "type": "object",
        "properties": {"passengers": {"type": "integer", "maximum": 1}},
        "required": ["flight_id"],
    }
    by_schema = giskard_nb.ToolArgs(tool="book_flight", schema=schema).run(trace)
    assert (
        by_schema.failed and "$.passengers: 2 is greater than the maximum of 1" in by_schema.message
    )
    rules = [{"json_path": "passengers", "operator": "less_than_equals", "expected_value": 4}]
    assert giskard_nb.ToolArgs(tool="book_flight", rules=rules).run(trace).passed
    rules = [{"json_path": "date", "operator": "exists"}]
    by_rule = giskard_nb.ToolArgs(tool="book_flight", rules=rules).run(trace)
    assert by_rule.failed and "rule not met: $.date exists" in by_rule.message
    missing = giskard_nb.ToolArgs(tool="pay", expected={"x": 1}).run(trace)
    assert missing.failed and "'pay' was not called" in missing.message
    assert (
        giskard_nb.ToolArgs(tool="book_flight", expected={"passengers": 2}, occurrence=0)
        .run(trace)
        .passed
    )
    assert (
        giskard_nb.ToolArgs(tool="book_flight", expected={"passengers": 2}, occurrence=1)
        .run(trace)
        .failed
    )


def test_tool_call_f1(shape):
    trace = booking(shape)
    expected = [{"name": n, "arguments": a} for n, a in (SEARCH, BOOK)]
    perfect = giskard_nb.ToolCallF1(expected=expected).run(trace)
    assert perfect.passed and perfect.metric("f1") == 1.0
    half = [
        expected[0],
        {"name": "book_flight", "arguments": {"flight_id": "TP433", "passengers": 1}},
    ]
    result = giskard_nb.ToolCallF1(expected=half, threshold=0.8).run(trace)
    assert result.failed
    assert (result.metric("precision"), result.metric("recall"), result.metric("f1")) == (
        0.5,
        0.5,
        0.5,
    )
    assert result.details["missing"] == ['book_flight({"flight_id": "TP433", "passengers": 1})']
    assert result.details["extra"] == [
        'turn 1: book_flight({"flight_id": "TP433", "passengers": 2})'
    ]
    assert giskard_nb.ToolCallF1(expected=half, arguments="name").run(trace).passed
    # normalised arguments: whitespace and unicode forms, 2.0 for 2
    spaced = [
        {
            "name": "search_flights",
            "arguments": {"origin": " PAR ", "destination": "LIS", "date": "2026-05-01"},
        },
        {"name": "book_flight", "arguments": {"flight_id": "TP433", "passengers": 2.0}},
    ]
    assert giskard_nb.ToolCallF1(expected=spaced).run(trace).passed
    nothing = tool_trace(shape, ("hi", [], "hello"))
    assert giskard_nb.ToolCallF1(expected=[]).run(nothing).metric("f1") == 1.0
    assert giskard_nb.ToolCallF1(expected=expected).run(nothing).metric("f1") == 0.0


SPECS = [
    ToolSpec(
        name="search_flights",
        input_schema={
            "type": "object",
            "properties": {
                "origin": {"type": "string", "pattern": "^[A-Z]{3}$"},
                "destination": {"type": "string"},
            },
            "required": ["origin", "destination"],
        },
    ),
    {
        "type": "function",
        "function": {
            "name": "book_flight",
            "parameters": {
                "type": "object",
                "properties": {
                    "flight_id": {"type": "string"},
                    "passengers": {"type": "integer", "minimum": 1},
                },
                "required": ["flight_id"],
                "additionalProperties": False,
            },
        },
    },
]


def test_tool_schema_valid(shape):
    check = giskard_nb.ToolSchemaValid(tools=SPECS)
    assert check.run(booking(shape)).passed
    bad = tool_trace(
        shape,
        (
            "go",
            [
                ("search_flights", {"origin": "paris", "destination": "LIS"}),
                ("teleport", {"to": "LIS"}),
            ],
            "ok",
        ),
        ("book", [("book_flight", {"flight_id": "X", "passengers": 0, "vip": True})], "ok"),
    )
    result = check.run(bad)
    assert result.failed
    assert result.details["unknown_tools"] == ['turn 0: teleport({"to": "LIS"})']
    errors = {e["call"].split("(")[0]: e["errors"] for e in result.details["invalid_arguments"]}
    assert "$.origin: 'paris' does not match '^[A-Z]{3}$'" in errors["turn 0: search_flights"]
    assert any("minimum of 1" in e for e in errors["turn 1: book_flight"])
    assert any("'vip' was unexpected" in e for e in errors["turn 1: book_flight"])
    assert check.failure_hint(result) == "hallucination"
    assert check.model_copy(update={"turn": 1}).run(bad).failed
    only_args = giskard_nb.ToolSchemaValid(tools=SPECS, turn=1).run(bad)
    assert check.failure_hint(only_args) == "format_violation"


def test_unparseable_arguments_are_invalid_not_a_crash(shape):
    call = ToolCall(
        name="book_flight",
        arguments="{not json",
        arguments_error="the arguments are not valid JSON",
    )
    trace = tool_trace(shape, ("book", [], "ok"))
    trace = trace.model_copy(
        update={"interactions": [trace.last.model_copy(update={"tool_calls": [call]})]}
    )
    result = giskard_nb.ToolSchemaValid(tools=SPECS).run(trace)
    assert result.failed and "not valid JSON" in result.message
    args = giskard_nb.ToolArgs(tool="book_flight", expected={"flight_id": "X"}).run(trace)
    assert args.failed and args.details["calls"][0]["diff"][0]["problem"] == "unparseable"


def test_error_calls_count_as_calls(shape):
    trace = tool_trace(shape, ("pay", [("pay", {"amount": 5}, Err("card declined"))], "sorry"))
    assert giskard_nb.ToolCalled("pay").run(trace).passed
    assert giskard_nb.ToolSequence(expected=["pay"], mode="exact").run(trace).passed
