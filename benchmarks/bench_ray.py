"""Ray benchmarks (issue 28). Prints numbers; asserts nothing; skips without Ray
(``pip install 'giskard-nb[ray]'``).

(a) 200 scenarios of a CPU-bound pure-Python agent (~100 ms of computation each, calibrated here):
    the in-process thread pool (Suite.run, default max_concurrency) vs RayExecutor(num_actors=2)
    on the same machine (ideal speed-up on 2 free cores: 2x; the GIL keeps threads at 1x)
(b) the per-case overhead of the Ray path: 200 scenarios of a 0 ms agent, Ray vs in-process
The actors are started (and the agent built) before the clock starts: the start-up is printed apart.
"""

from __future__ import annotations

import time

CASES = 200


def _calibrate(target_s: float = 0.1) -> int:
    """Iterations of the busy loop that take about ``target_s`` here."""
    n = 200_000
    t0 = time.perf_counter()
    x = 0
    for i in range(n):
        x += i * i
    per = (time.perf_counter() - t0) / n
    return max(int(target_s / per), 1)


def _suite(n: int):
    from giskard_nb import Equals, Scenario, Suite

    suite = Suite("bench-ray")
    for i in range(n):
        suite.append(Scenario(f"case-{i}").interact(i).check(Equals(expected_value=i)))
    return suite


def main() -> None:
    try:
        import ray  # noqa: F401
    except ImportError:
        print("bench_ray: skipped (Ray is not installed: pip install 'giskard-nb[ray]')")
        return
    from giskard_nb.executors import RayExecutor

    iterations = _calibrate()

    def cpu_factory():  # a closure: pickled by value, built once per actor
        def agent(inputs):
            x = 0
            for i in range(iterations):
                x += i * i
            return inputs

        return agent

    def zero_factory():
        return lambda inputs: inputs

    suite = _suite(CASES)
    print(f"bench_ray: {CASES} cases; busy loop of {iterations:,} iterations (~100 ms here)")

    t0 = time.perf_counter()
    local = suite.run_sync(target=cpu_factory())
    threads_s = time.perf_counter() - t0
    assert local.passed_count == CASES

    with RayExecutor(num_actors=2) as executor:
        t0 = time.perf_counter()
        _suite(2).run_sync(executor=executor, agent_factory=cpu_factory)  # start Ray and the actors
        startup_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        remote = suite.run_sync(executor=executor, agent_factory=cpu_factory)
        ray_s = time.perf_counter() - t0
        assert remote.passed_count == CASES

        _suite(2).run_sync(executor=executor, agent_factory=zero_factory)  # new actors, not timed
        t0 = time.perf_counter()
        suite.run_sync(executor=executor, agent_factory=zero_factory)
        ray_zero_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    suite.run_sync(target=zero_factory())
    local_zero_s = time.perf_counter() - t0

    print(f"(a) CPU-bound agent, in-process threads : {threads_s:7.2f} s")
    print(
        f"    CPU-bound agent, Ray 2 actors        : {ray_s:7.2f} s  (speed-up {threads_s / ray_s:.2f}x)"
    )
    print(
        f"    Ray start-up (Ray, 2 actors, agents) : {startup_s:7.2f} s  (not in the figure above)"
    )
    per_ray = ray_zero_s / CASES * 1000
    per_local = local_zero_s / CASES * 1000
    print(f"(b) 0 ms agent, Ray 2 actors  : {per_ray:6.2f} ms per case ({ray_zero_s:.2f} s)")
    print(f"    0 ms agent, in-process    : {per_local:6.2f} ms per case ({local_zero_s:.2f} s)")
    print(f"    overhead of the Ray path  : {per_ray - per_local:6.2f} ms per case")


if __name__ == "__main__":
    main()
