"""``run_sync``: run a coroutine from synchronous code, in a plain script or inside Jupyter's running loop.

With no running loop it is ``asyncio.run``. Inside a running loop (a notebook cell) the coroutine runs in a
worker thread with its own loop, so nothing is patched; interrupting the kernel cancels the work.

``sync_twin(acreate)`` makes the blocking twin of a coroutine function or method: same signature (so
``help()``, ``inspect.signature`` and IDEs show the options), a docstring derived from the original's,
and ``run_sync`` underneath.
"""

from __future__ import annotations

import contextvars
import inspect
import threading
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar, overload

__all__ = ["run_sync", "sync_twin"]

T = TypeVar("T")
P = ParamSpec("P")


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion and return its result, whatever the calling context."""
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    return _run_in_thread(coro)


@overload
def sync_twin(
    async_fn: classmethod[Any, P, Coroutine[Any, Any, T]], *, name: str | None = None
) -> classmethod[Any, P, T]: ...


@overload
def sync_twin(
    async_fn: Callable[P, Coroutine[Any, Any, T]], *, name: str | None = None
) -> Callable[P, T]: ...


def sync_twin(async_fn: Any, *, name: str | None = None) -> Any:
    """The blocking twin of a coroutine function: ``async_fn``'s signature, run with ``run_sync``.

    In a class body, next to the coroutine method: ``create = sync_twin(acreate)`` (a classmethod gives a
    classmethod). A method's twin looks the coroutine up by name on the instance (or class), so a
    subclass's override is the one that runs. ``name`` defaults to the coroutine's name without its
    leading ``a`` (``acreate`` → ``create``) or, when there is none, with ``_sync`` (``run`` →
    ``run_sync``).
    """
    if isinstance(async_fn, classmethod):
        return classmethod(sync_twin(async_fn.__func__, name=name))
    if not inspect.iscoroutinefunction(async_fn):
        raise TypeError(f"sync_twin() needs a coroutine function, not {async_fn!r}")
    original = async_fn.__name__
    signature = inspect.signature(async_fn)
    first = next(iter(signature.parameters), None)
    method = first in ("self", "cls")

    def twin(*args: Any, **kwargs: Any) -> Any:
        if method and args:
            return run_sync(getattr(args[0], original)(*args[1:], **kwargs))
        return run_sync(async_fn(*args, **kwargs))

    twin.__name__ = name or (original[1:] if original.startswith("a") else f"{original}_sync")
    twin.__qualname__ = f"{async_fn.__qualname__.rpartition('.')[0]}.{twin.__name__}".lstrip(".")
    twin.__module__ = async_fn.__module__
    twin.__signature__ = signature  # type: ignore[attr-defined]
    own = inspect.cleandoc(async_fn.__doc__ or "")
    twin.__doc__ = (
        f"Blocking twin of ``{original}``: runs it to completion and returns its result, from a plain "
        "script or inside Jupyter's running loop (``run_sync``)." + (f"\n\n{own}" if own else "")
    )
    return twin


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
