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


def test_conversation_html_turns_tool_calls_and_escaping():
    from giskard_nb.widgets._render import conversation_html

    html = conversation_html(
        [
            {"role": "system", "content": "be nice"},
            {"role": "user", "content": "<script>alert(1)</script>"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"function": {"name": "<b>lookup</b>", "arguments": '{"q": "<img onerror=x>"}'}}
                ],
            },
            {"role": "tool", "content": "found"},
        ]
    )
    for role in ("system", "user", "assistant", "tool"):
        assert f"giskard-turn-{role}" in html
    assert "<script" not in html and "<img" not in html and "<b>lookup" not in html
    assert "&lt;b&gt;lookup&lt;/b&gt;" in html and "&lt;img onerror=x&gt;" in html
    assert "giskard-turn-user" in conversation_html("just text")  # anything else: one user turn
    assert "no messages" in conversation_html([])


def test_trace_messages_spreads_a_message_list_without_repeating_turns():
    from giskard_nb import Interaction
    from giskard_nb.widgets._render import trace_messages

    first = [{"role": "user", "content": "hi"}]
    second = [*first, {"role": "assistant", "content": "hello"}, {"role": "user", "content": "bye"}]
    turns = trace_messages(
        [
            Interaction(inputs=first, outputs="hello"),
            Interaction(inputs=second, outputs={"role": "assistant", "content": "ciao",
                        "tool_calls": [{"name": "wave"}]}),
        ]
    )  # fmt: skip
    assert [(t["role"], t["content"]) for t in turns] == [
        ("user", "hi"), ("assistant", "hello"), ("user", "bye"), ("assistant", "ciao"),
    ]  # fmt: skip
    assert turns[-1]["tool_calls"] == [{"name": "wave"}]


def test_debounce_restarts_on_each_trigger_and_flushes():
    from giskard_nb.widgets._common import Debounce

    calls = []
    debounce = Debounce(lambda: calls.append(1), delay=60)
    debounce.trigger()
    debounce.trigger()
    assert calls == [] and debounce.pending
    debounce.flush()
    debounce.flush()  # nothing pending any more
    assert calls == [1] and not debounce.pending
    debounce.trigger()
    debounce.cancel()
    assert calls == [1] and not debounce.pending
