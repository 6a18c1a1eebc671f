"""The core worker pool: sync code on daemon threads, contexts carried over, abandoned at cancellation."""

from __future__ import annotations

import asyncio
import contextvars
import threading

import pytest

from giskard_nb.core.workers import WorkerPool, WorkerPoolExhausted, default_pool, run_in_worker

VAR: contextvars.ContextVar[str] = contextvars.ContextVar("test_workers_var", default="unset")


@pytest.fixture
def release():
    """An event hung calls wait on; set at teardown so no abandoned thread outlives the test."""
    event = threading.Event()
    yield event
    event.set()


async def test_runs_on_a_daemon_worker_thread_in_the_callers_context():
    VAR.set("from the caller")

    def where():
        thread = threading.current_thread()
        return thread.name, thread.daemon, VAR.get()

    name, daemon, value = await run_in_worker(where)
    assert name.startswith("giskard-nb-worker") and daemon and value == "from the caller"


async def test_exceptions_travel_back_including_stop_iteration():
    def boom():
        raise KeyError("nope")

    with pytest.raises(KeyError, match="nope"):
        await run_in_worker(boom)
    with pytest.raises(RuntimeError, match="StopIteration"):
        await run_in_worker(next, iter(()))


async def test_calls_never_queue_for_a_thread():
    parties = (
        40  # far more than the default executor's min(32, cores + 4) threads on a small machine
    )
    barrier = threading.Barrier(parties, timeout=10)
    results = await asyncio.gather(*(run_in_worker(barrier.wait) for _ in range(parties)))
    assert sorted(results) == list(range(parties))


async def test_an_abandoned_call_frees_its_slot_and_its_result_is_discarded(release):
    pool = WorkerPool(name="test-abandon")
    started = threading.Event()

    def hang():
        started.set()
        release.wait(30)
        return "late"

    task = asyncio.ensure_future(pool.run(hang))
    await asyncio.to_thread(started.wait, 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert pool.abandoned == 1 and not release.is_set()
    assert await pool.run(lambda: "next call") == "next call"  # another thread serves it
    release.set()
    for _ in range(200):
        if pool.abandoned == 0:
            break
        await asyncio.sleep(0.01)
    assert pool.abandoned == 0


async def test_abandoned_calls_are_warned_about_and_bounded(release):
    pool = WorkerPool(name="test-bound", warn_abandoned=1, max_abandoned=2)
    started = threading.Semaphore(0)

    def hang():
        started.release()
        release.wait(30)

    async def abandon_one() -> None:
        task = asyncio.ensure_future(pool.run(hang))
        await asyncio.to_thread(started.acquire, True, 5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    with pytest.warns(RuntimeWarning, match="1 calls abandoned"):
        await abandon_one()
    with pytest.warns(RuntimeWarning, match="2 calls abandoned"):
        await abandon_one()
    with pytest.raises(WorkerPoolExhausted, match="2 calls abandoned.*fix the agent"):
        await pool.run(lambda: None)
    release.set()
    for _ in range(200):
        if pool.abandoned == 0:
            break
        await asyncio.sleep(0.01)
    assert await pool.run(lambda: "served again") == "served again"


async def test_idle_threads_retire():
    pool = WorkerPool(name="test-idle", idle_seconds=0.05)
    await pool.run(lambda: None)
    for _ in range(200):
        if pool.threads == 0:
            break
        await asyncio.sleep(0.01)
    assert pool.threads == 0
    assert await pool.run(lambda: 7) == 7


def test_the_default_pool_is_one_pool():
    assert default_pool() is default_pool()


def test_a_call_finishing_after_its_loop_closed_is_dropped_quietly(release):
    done = threading.Event()

    def slow():
        release.wait(30)
        done.set()
        return 1

    async def main():
        try:
            await asyncio.wait_for(run_in_worker(slow), 0.05)
        except TimeoutError:
            return "timed out"

    assert asyncio.run(main()) == "timed out"  # the loop is closed now
    release.set()
    assert done.wait(5)
