"""Core benchmarks (issue 2). Prints numbers; asserts nothing.

(a) build and run 2,000 scenarios of 2 interactions and 3 rule checks on JSONPaths into dict outputs
(b) a Suite of 200 scenarios whose async target sleeps 50 ms, at max_concurrency 50 (ideal 0.2 s)
(c) `import giskard_nb` in a fresh process
(d) model_dump + model_validate of the 2,000 scenarios (static outputs)
(e) 100,000 resolve() calls
(f) a Suite of 1,000 scenarios whose target sleeps 50 ms at max_concurrency 32: sync target vs async
(g) a Suite of 10 scenarios whose sync target sleeps 0.5 s (default max_concurrency 10; ideal 0.5 s)
(h) Scenario.run_sync(timeout=1) whose sync target hangs (up to 20 s): wall time and status
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import threading
import time


def _scenarios(n: int, static: bool):
    from giskard_nb import Equals, RegexMatching, Scenario, StringMatching

    def agent(inputs):
        return {"answer": f"Paris is the capital of {inputs['country']}.", "confidence": 0.9}

    out = []
    for i in range(n):
        outputs = agent({"country": "France"}) if static else agent
        s = (
            Scenario(f"scenario-{i}")
            .interact({"country": "France"}, outputs)
            .interact({"country": "France", "turn": 2}, outputs)
            .check(StringMatching(keyword="Paris", text_key="trace.last.outputs.answer"))
            .check(
                RegexMatching(
                    pattern=r"capital of \w+", text_key="trace.interactions[0].outputs.answer"
                )
            )
            .check(Equals(expected_value=0.9, key="trace.last.outputs.confidence"))
        )
        out.append(s)
    return out


def bench_a() -> float:
    from giskard_nb import Suite

    t0 = time.perf_counter()
    suite = Suite("bench-a", scenarios=_scenarios(2000, static=False))
    result = suite.run_sync()
    elapsed = time.perf_counter() - t0
    assert result.passed_count == 2000, result
    return elapsed


def bench_b() -> float:
    from giskard_nb import Equals, Scenario, Suite

    async def target(inputs):
        await asyncio.sleep(0.05)
        return inputs

    suite = Suite("bench-b", target=target)
    for i in range(200):
        suite.append(Scenario(f"s{i}").interact(i).check(Equals(expected_value=i)))
    t0 = time.perf_counter()
    result = suite.run_sync(max_concurrency=50)
    elapsed = time.perf_counter() - t0
    assert result.passed_count == 200
    return elapsed


def bench_c(repeats: int = 7) -> float:
    code = "import time; t=time.perf_counter(); import giskard_nb; print(time.perf_counter()-t)"
    times = [float(subprocess.check_output([sys.executable, "-c", code])) for _ in range(repeats)]
    return statistics.median(times)


def bench_d() -> float:
    from giskard_nb import Scenario

    scenarios = _scenarios(2000, static=True)
    t0 = time.perf_counter()
    dumped = [s.model_dump() for s in scenarios]
    restored = [Scenario.model_validate(d) for d in dumped]
    elapsed = time.perf_counter() - t0
    assert len(restored) == 2000 and restored[0].steps[0].checks[0].kind == "string_matching"
    return elapsed


def bench_e(n: int = 100_000) -> float:
    from giskard_nb import Interaction, Trace, resolve

    trace = Trace(
        interactions=[
            Interaction(inputs="q1", outputs={"answer": "a1"}, metadata={"model": "m"}),
            Interaction(inputs="q2", outputs={"answer": "a2"}, metadata={"model": "m"}),
        ]
    )
    paths = [
        "trace.last.outputs.answer",
        "trace.interactions[0].metadata.model",
        "trace.interactions[-1]",
    ]
    t0 = time.perf_counter()
    for i in range(n):
        resolve(trace, paths[i % 3])
    return (time.perf_counter() - t0) / n


def bench_f(sync: bool, n: int = 1000, seconds: float = 0.05, concurrency: int = 32) -> float:
    from giskard_nb import Equals, Scenario, Suite

    if sync:

        def target(inputs):
            time.sleep(seconds)
            return inputs

    else:

        async def target(inputs):
            await asyncio.sleep(seconds)
            return inputs

    suite = Suite("bench-f", target=target)
    for i in range(n):
        suite.append(Scenario(f"s{i}").interact(i).check(Equals(expected_value=i)))
    t0 = time.perf_counter()
    result = suite.run_sync(max_concurrency=concurrency)
    elapsed = time.perf_counter() - t0
    assert result.passed_count == n, result
    return elapsed


def bench_g() -> float:
    from giskard_nb import Equals, Scenario, Suite

    def target(inputs):
        time.sleep(0.5)
        return inputs

    suite = Suite("bench-g", target=target)
    for i in range(10):
        suite.append(Scenario(f"s{i}").interact(i).check(Equals(expected_value=i)))
    t0 = time.perf_counter()
    result = suite.run_sync()
    elapsed = time.perf_counter() - t0
    assert result.passed_count == 10, result
    return elapsed


def bench_h(hang: float = 20.0) -> tuple[float, str]:
    from giskard_nb import Scenario, StringMatching

    release = threading.Event()

    def target(inputs):
        release.wait(hang)
        return "late"

    scenario = Scenario("hung").interact("hi", target).check(StringMatching(keyword="late"))
    t0 = time.perf_counter()
    result = scenario.run_sync(timeout=1)
    elapsed = time.perf_counter() - t0
    release.set()  # let the abandoned call finish
    error = result.error
    return elapsed, f"{result.status.value}" + (f" ({error})" if error else "")


def main() -> None:
    print("== core (issue 2) ==")
    a_cold = bench_a()
    a = min(bench_a() for _ in range(3))
    print(
        f"(a) build+run 2,000 scenarios (2 interactions, 3 rule checks): {a_cold:.3f} s first run "
        f"(includes one-time model schema builds), {a:.3f} s warm (best of 3)  "
        f"[reference 6.2 s: {6.2 / a_cold:.1f}x / {6.2 / a:.1f}x]"
    )
    b = bench_b()
    print(
        f"(b) suite of 200 x 50 ms async target at concurrency 50: {b:.3f} s  [ideal 0.200 s: {b / 0.2:.2f}x ideal]"
    )
    c = bench_c()
    print(f"(c) import giskard_nb in a fresh process (median of 7): {c:.3f} s  [reference 1.36 s]")
    d = bench_d()
    print(
        f"(d) model_dump+model_validate of 2,000 scenarios: {d:.3f} s  [reference 3.7 s: {3.7 / d:.1f}x]"
    )
    e = bench_e()
    print(
        f"(e) resolve(): {e * 1e6:.2f} µs per call over 100,000 calls  [reference 474 µs: {474 / (e * 1e6):.0f}x]"
    )
    f_async, f_sync = bench_f(sync=False), bench_f(sync=True)
    print(
        f"(f) suite of 1,000 x 50 ms target at concurrency 32: async {f_async:.3f} s, sync {f_sync:.3f} s  "
        f"[sync/async {f_sync / f_async:.2f}x; ideal 1.563 s]"
    )
    g = bench_g()
    print(f"(g) suite of 10 x 0.5 s sync target (max_concurrency 10): {g:.3f} s  [ideal 0.500 s]")
    h, status = bench_h()
    print(f"(h) Scenario.run_sync(timeout=1), sync target hanging 20 s: {h:.3f} s -> {status}")


if __name__ == "__main__":
    main()
