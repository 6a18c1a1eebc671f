"""Boundary benchmarks (issue 11 item 1). Prints numbers; asserts nothing.

(a) to_safe_data on a typical reply's metadata (12 keys, a nested usage dict, a list of 3 tool calls),
    100,000 times — against the json.dumps/json.loads round trip it replaced
(b) to_safe_data on a short reply text, 1,000,000 times (the fast path)
(c) to_safe_data on a large reply: 10,000-item list of dicts and a 1 MB string
(d) a Hub evaluation (in memory) of 500 cases whose local agent returns such metadata
"""

from __future__ import annotations

import json
import time


def _metadata() -> dict:
    return {
        "model": "gpt-4o-mini",
        "usage": {"prompt_tokens": 120, "completion_tokens": 48, "total_tokens": 168},
        "finish_reason": "stop",
        "tool_calls": [
            {
                "id": f"call_{i}",
                "type": "function",
                "function": {"name": "lookup", "arguments": "{}"},
            }
            for i in range(3)
        ],
        "latency_ms": 412.5,
        "sources": ["doc-1", "doc-7"],
        "cached": False,
        "trace_id": "5f1c0a7e-0000-4000-8000-000000000000",
        "lang": "en",
        "score": 0.87,
        "safety": {"flagged": False, "categories": []},
        "version": 3,
    }


def bench_a(n: int = 100_000) -> tuple[float, float]:
    from giskard_nb.core.sanitize import to_safe_data

    meta = _metadata()
    t0 = time.perf_counter()
    for _ in range(n):
        to_safe_data(meta)
    safe = (time.perf_counter() - t0) / n * 1e6
    t0 = time.perf_counter()
    for _ in range(n):
        json.loads(json.dumps(meta, default=str))
    roundtrip = (time.perf_counter() - t0) / n * 1e6
    return safe, roundtrip


def bench_b(n: int = 1_000_000) -> float:
    from giskard_nb.core.sanitize import to_safe_data

    text = "Refunds are possible within 30 days of purchase, with the receipt."
    t0 = time.perf_counter()
    for _ in range(n):
        to_safe_data(text)
    return (time.perf_counter() - t0) / n * 1e6


def bench_c() -> float:
    from giskard_nb.core.sanitize import to_safe_data

    big = {"rows": [{"i": i, "v": f"value {i}"} for i in range(10_000)], "text": "x" * 1_000_000}
    t0 = time.perf_counter()
    to_safe_data(big)
    return (time.perf_counter() - t0) * 1000


def bench_d(n: int = 500) -> float:
    from giskard_nb.hub import Hub

    hub = Hub(":memory:")
    project = hub.projects.create("bench")
    items = [
        {
            "messages": [{"role": "user", "content": f"question {i}"}],
            "checks": [{"identifier": "string_match", "params": {"keyword": "days"}}],
        }
        for i in range(n)
    ]
    dataset = hub.datasets.upload(project.id, items, name="bench")

    async def agent(messages):
        return {"response": "Refunds within 30 days.", "metadata": _metadata()}

    t0 = time.perf_counter()
    evaluation = hub.evaluations.create_local(
        agent, dataset.id, max_concurrency=32, classifier="rules", progress=False
    )
    elapsed = time.perf_counter() - t0
    assert evaluation.counts["pass"] == n
    hub.close()
    return elapsed


def main() -> None:
    print("boundary benchmarks (issue 11 item 1)")
    safe, roundtrip = bench_a()
    print(
        f"(a) typical metadata: to_safe_data {safe:.1f} µs/call, json round trip {roundtrip:.1f} µs"
    )
    print(f"(b) short reply text: {bench_b():.2f} µs/call")
    print(f"(c) 10,000 dicts + a 1 MB string: {bench_c():.1f} ms")
    print(f"(d) Hub evaluation of 500 cases with that metadata: {bench_d():.2f} s")


if __name__ == "__main__":
    main()
