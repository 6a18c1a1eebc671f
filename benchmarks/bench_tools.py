"""Tool-check benchmarks (issue 26). Prints numbers; asserts nothing but that the checks decided.

10,000 tool-call traces (2 to 4 turns, 0 to 5 calls a turn; a third read from OpenAI chat messages, a
third from Anthropic content blocks, a third built from OTLP span attributes), each checked by the 9
deterministic tool checks (ToolCalled, ToolNotCalled, ToolSequence, ToolArgs, ToolCallF1,
ToolSchemaValid, ToolBudget, ToolErrorHandled, ConfirmationBeforeSideEffect):

(a) the time to build the traces (the adapters), per trace
(b) the time of all 9 checks, per trace, and of each check per trace
"""

from __future__ import annotations

import json
import random
import time

N_TRACES = 10_000
TOOLS = ["search_flights", "get_fare", "book_flight", "send_email", "get_weather", "transfer"]


def _spec_list():
    from giskard_nb.core.tools import ToolSpec

    schema = {
        "type": "object",
        "properties": {"q": {"type": "string"}, "n": {"type": "integer", "minimum": 0}},
        "required": ["q"],
    }
    return [
        ToolSpec(name=t, input_schema=schema, risk="high" if t == "transfer" else "low")
        for t in TOOLS
    ]


def _calls(rng: random.Random, shape: str, turn: int):
    from giskard_nb.core.tool_adapters import tool_calls_from
    from giskard_nb.core.tools import ToolCall

    raw = []
    for i in range(rng.randint(0, 5)):
        name = rng.choice(TOOLS)
        args = {"q": rng.choice(["paris", "lisbon", "oslo"]), "n": rng.randint(0, 3)}
        failed = rng.random() < 0.1
        raw.append((f"c{turn}_{i}", name, args, failed))
    if not raw:
        return []
    if shape == "openai":
        messages = [
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": cid,
                        "type": "function",
                        "function": {"name": n, "arguments": json.dumps(a)},
                    }
                    for cid, n, a, _ in raw
                ],
            },
            *({"role": "tool", "tool_call_id": cid, "content": "ok"} for cid, *_ in raw),
        ]
        return tool_calls_from(messages)
    if shape == "anthropic":
        messages = [
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": c, "name": n, "input": a} for c, n, a, _ in raw
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": c,
                        "content": "boom" if f else "ok",
                        "is_error": f,
                    }
                    for c, _, _, f in raw
                ],
            },
        ]
        return tool_calls_from(messages)
    return [  # OTLP: what an importer builds from execute_tool span attributes
        ToolCall(
            name=n,
            id=c,
            arguments=json.loads(json.dumps(a)),
            error="boom" if f else None,
            result=None if f else "ok",
            duration_s=0.01,
        )
        for c, n, a, f in raw
    ]


def _traces(n: int):
    from giskard_nb import Interaction, Trace

    rng = random.Random(26)
    shapes = ("openai", "anthropic", "otlp")
    replies = ["Done, it has been booked successfully.", "Sorry, that failed.", "Shall I proceed?"]
    out = []
    for k in range(n):
        shape = shapes[k % 3]
        turns = [
            Interaction(
                inputs=rng.choice(["Book it", "yes", "What is the weather?"]),
                outputs=rng.choice(replies),
                tool_calls=_calls(rng, shape, t),
            )
            for t in range(rng.randint(2, 4))
        ]
        out.append(Trace(interactions=turns))
    return out


def _checks():
    import giskard_nb as g

    specs = _spec_list()
    return [
        g.ToolCalled("search_flights", arguments={"q": "paris"}),
        g.ToolNotCalled(pattern="^delete_"),
        g.ToolSequence(expected=["search_flights", "book_flight"], mode="in_order", threshold=0.5),
        g.ToolArgs(tool="book_flight", schema=specs[0].input_schema, expected={"q": "paris"}),
        g.ToolCallF1(expected=[{"name": "search_flights", "arguments": {"q": "paris", "n": 1}}]),
        g.ToolSchemaValid(tools=specs),
        g.ToolBudget(max_calls=12, max_repeats=2, max_steps=5),
        g.ToolErrorHandled(),
        g.ConfirmationBeforeSideEffect(tools=specs),
    ]


def main() -> None:
    from giskard_nb.core.result import CheckStatus

    print(f"Tool checks over {N_TRACES:,} tool-call traces")
    t0 = time.perf_counter()
    traces = _traces(N_TRACES)
    built = time.perf_counter() - t0
    calls = sum(len(t.tool_calls) for t in traces)
    print(
        f"(a) building {N_TRACES:,} traces ({calls:,} calls): {built:.2f} s, {built / N_TRACES * 1e6:.0f} µs/trace"
    )
    checks = _checks()
    per_check = {type(c).__name__: 0.0 for c in checks}
    decided = 0
    t0 = time.perf_counter()
    for trace in traces:
        for check in checks:
            s = time.perf_counter()
            result = check.run(trace)
            per_check[type(check).__name__] += time.perf_counter() - s
            decided += result.status in (CheckStatus.PASS, CheckStatus.FAIL)
    total = time.perf_counter() - t0
    assert decided == N_TRACES * len(checks), decided
    print(
        f"(b) {len(checks)} deterministic checks on each trace: {total:.2f} s, "
        f"{total / N_TRACES * 1e6:.0f} µs/trace"
    )
    for name, seconds in sorted(per_check.items(), key=lambda kv: -kv[1]):
        print(f"    {name:<30} {seconds / N_TRACES * 1e6:8.1f} µs/trace")


if __name__ == "__main__":
    main()
