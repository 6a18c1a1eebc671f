"""Background jobs and the HTML helpers the widgets share."""

from __future__ import annotations

import asyncio

import pytest

from giskard_nb.widgets._common import Job, badge, esc, named


async def test_task_mode_on_a_running_loop():
    done = []

    async def work():
        await asyncio.sleep(0)
        return 42

    job = Job(work(), on_done=done.append)
    assert job.mode == "task"
    with pytest.raises(RuntimeError, match="await job"):
        job.wait()
    assert await job == 42 and done == [job] and job.error is None


async def test_cancel_a_task_job():
    job = Job(asyncio.sleep(10))
    await asyncio.sleep(0)
    assert job.cancel() is True
    with pytest.raises(asyncio.CancelledError):
        await job
    assert job.cancelled and job.done() and job.cancel() is False


def test_thread_mode_without_a_loop_and_errors():
    async def boom():
        raise ValueError("bad")

    job = Job(boom())
    assert job.mode == "thread"
    with pytest.raises(ValueError, match="bad"):
        job.wait(5)
    slow = Job(asyncio.sleep(10))
    with pytest.raises(TimeoutError):
        slow.wait(0.01)
    assert slow.cancel() is True
    with pytest.raises(asyncio.CancelledError):
        slow.wait(5)
    with pytest.raises(RuntimeError, match="still running"):
        Job(asyncio.sleep(10)).result()


def test_a_failing_callback_does_not_break_the_job():
    async def ok():
        return 1

    def bad_callback(job):
        raise RuntimeError("display broke")

    assert Job(ok(), on_done=bad_callback).wait(5) == 1


def test_html_helpers_escape():
    assert esc("<b>") == "&lt;b&gt;"
    assert esc({"a": "<i>"}) == "{&quot;a&quot;: &quot;&lt;i&gt;&quot;}"
    assert esc(ValueError("<x>")) == "&lt;x&gt;"
    assert "&lt;" in badge("pass", "<3")
    assert named(None, "agents", "agent") == {}
    assert list(named(lambda: 1, "agents", "agent")) == ["<lambda>"]
