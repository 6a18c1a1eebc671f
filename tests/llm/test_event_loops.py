"""Notebook event loops: run_sync twice in a row, inside a running loop, and concurrent judges."""

from __future__ import annotations

import asyncio
import gc
import warnings

from giskard_nb import LLMJudge, Scenario, Suite, run_sync, set_default_generator


def _suite(n: int) -> Suite:
    suite = Suite("loops")
    for i in range(n):
        suite.append(
            Scenario(f"s{i}")
            .interact(f"q{i}", f"answer {i}")
            .check(LLMJudge(prompt="Is {{ outputs }} fine?", generator=None))
        )
    return suite


def _collect_unraisable():
    import sys

    seen: list[object] = []
    previous = sys.unraisablehook
    sys.unraisablehook = lambda info: seen.append(info)
    return seen, lambda: setattr(sys, "unraisablehook", previous)


def test_run_sync_twice_in_a_row_then_inside_a_running_loop(server):
    server.reply = {"reason": "fine", "passed": True}
    server.delay = 0.02
    set_default_generator(server.generator(temperature=0.5))  # not cached: every run calls
    seen, restore = _collect_unraisable()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            assert _suite(4).run_sync().passed_count == 4
            assert _suite(4).run_sync().passed_count == 4

            async def cell():  # what a notebook cell does: sync calls inside the kernel's loop
                first = _suite(4).run_sync()
                second = _suite(4).run_sync()
                third = await _suite(4).run()
                return first, second, third

            for result in asyncio.run(cell()):
                assert result.passed_count == 4
        gc.collect()
    finally:
        restore()
    assert seen == []  # no "Task was destroyed" / "Event loop is closed" leftovers
    assert len(server.chat_requests) == 20


async def test_judges_run_concurrently_inside_await_suite_run(server):
    server.reply = {"reason": "fine", "passed": True}
    server.delay = 0.1
    set_default_generator(server.generator(temperature=0.5, max_concurrency=8))
    result = await _suite(8).run(max_concurrency=8)
    assert result.passed_count == 8
    assert server.max_in_flight >= 4  # the calls overlapped


def test_run_sync_of_a_bare_completion_inside_a_loop(server):
    gen = server.generator()

    async def cell():
        return run_sync(gen.complete("hi")).text

    assert asyncio.run(cell()) == "fake reply"
