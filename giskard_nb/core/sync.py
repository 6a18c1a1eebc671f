"""``run_sync``: run a coroutine from synchronous code, in a plain script or inside Jupyter's running loop.

With no running loop it is ``asyncio.run``. Inside a running loop (a notebook cell) the coroutine runs in a
worker thread with its own loop, so nothing is patched; interrupting the kernel cancels the work.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["run_sync"]

T = TypeVar("T")


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion and return its result, whatever the calling context."""
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    return _run_in_thread(coro)


async def _await(task: Any) -> Any:
    return await task


def _run_in_thread(coro: Coroutine[Any, Any, T]) -> T:
    box: dict[str, Any] = {}
    ready = threading.Event()
    ctx = contextvars.copy_context()

    def worker() -> None:
        import asyncio

        # asyncio.Runner cancels leftover tasks and shuts down async generators like asyncio.run does.
        with asyncio.Runner() as runner:
            loop = runner.get_loop()
            try:
                task = loop.create_task(coro)
                box["loop"], box["task"] = loop, task
                ready.set()
                box["result"] = runner.run(_await(task))
            except BaseException as exc:
                box["error"] = exc
            finally:
                ready.set()

    thread = threading.Thread(
        target=ctx.run, args=(worker,), name="giskard-nb-run-sync", daemon=True
    )
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.05)
    except KeyboardInterrupt:
        ready.wait()
        if "task" in box:
            box["loop"].call_soon_threadsafe(box["task"].cancel)
        thread.join()
        raise
    if "error" in box:
        raise box["error"]
    return box["result"]
