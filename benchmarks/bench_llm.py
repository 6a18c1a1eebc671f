"""LLM-layer benchmarks (issue 3). Prints numbers; asserts nothing.

(a) 200 LLMJudge checks (200 one-step scenarios) against the fake server answering after 50 ms, with the
    judge and the suite both at concurrency 16: wall time versus the ideal 200 / 16 x 50 ms = 0.625 s
(b) the same suite again: every judge call answered by the SQLite response cache; wall time and the number
    of requests the server saw (expected: 0)
(c) one call's round trip through litellm with the server answering at once (sequential calls), and the
    process CPU time of (a): when CPU time approaches wall time, litellm's per-call Python work (not the
    concurrency) is what separates (a) from its ideal
The response cache lives in a temporary GISKARD_NB_HOME, so the user's cache is untouched.
"""

from __future__ import annotations

import os
import tempfile
import time

N_CHECKS = 200
CONCURRENCY = 16
LATENCY = 0.05


def _suite(n: int):
    from giskard_nb import LLMJudge, Scenario, Suite

    suite = Suite("bench-llm")
    for i in range(n):
        suite.append(
            Scenario(f"judge-{i}")
            .interact(f"question {i}", f"answer number {i}")
            .check(LLMJudge(prompt="Is this answer polite? {{ outputs }}"))
        )
    return suite


def main() -> None:
    home = tempfile.mkdtemp(prefix="giskard-nb-bench-")
    previous = os.environ.get("GISKARD_NB_HOME")
    os.environ["GISKARD_NB_HOME"] = home
    try:
        _run()
    finally:
        if previous is None:
            os.environ.pop("GISKARD_NB_HOME", None)
        else:
            os.environ["GISKARD_NB_HOME"] = previous


def _run() -> None:
    from giskard_nb import set_default_generator
    from giskard_nb.llm import cache_info
    from giskard_nb.testing import FakeLLMServer

    print("LLM layer (issue 3)")
    with FakeLLMServer(reply={"reason": "Polite.", "passed": True}) as server:
        gen = server.generator(max_concurrency=CONCURRENCY)
        t0 = time.perf_counter()
        gen.complete_sync("warm-up", cache=False)
        print(f"  first call (imports litellm): {time.perf_counter() - t0:.2f} s")

        n_seq = 30
        t0 = time.perf_counter()
        for i in range(n_seq):
            gen.complete_sync(f"sequential {i}", cache=False)
        per_call = (time.perf_counter() - t0) / n_seq
        print(f"(c) one call through litellm (sequential, no latency): {per_call * 1000:.1f} ms")

        server.reset()
        server.delay = LATENCY
        set_default_generator(gen)
        try:
            ideal = N_CHECKS / CONCURRENCY * LATENCY
            suite = _suite(N_CHECKS)
            t0, cpu0 = time.perf_counter(), time.process_time()
            first = suite.run_sync(max_concurrency=CONCURRENCY)
            cold, cpu = time.perf_counter() - t0, time.process_time() - cpu0
            requests_cold = len(server.chat_requests)
            print(
                f"(a) {N_CHECKS} judge checks, {LATENCY * 1000:.0f} ms latency, concurrency "
                f"{CONCURRENCY}: {cold:.2f} s (ideal {ideal:.3f} s, x{cold / ideal:.1f}; "
                f"process CPU {cpu:.2f} s, {cpu / N_CHECKS * 1000:.1f} ms per check); "
                f"{first.passed_count} passed, {requests_cold} requests, max in flight "
                f"{server.max_in_flight}, {first.usage.total_tokens} tokens, "
                f"${first.usage.cost_usd:.4f}"
            )
            server.reset()
            suite = _suite(N_CHECKS)
            t0 = time.perf_counter()
            second = suite.run_sync(max_concurrency=CONCURRENCY)
            warm = time.perf_counter() - t0
            print(
                f"(b) same run from the cache: {warm:.2f} s, {len(server.chat_requests)} server "
                f"requests, {second.passed_count} passed, {second.usage.llm_calls} billed calls; "
                f"cache holds {cache_info()['entries']} replies"
            )
        finally:
            set_default_generator(None)


if __name__ == "__main__":
    main()
