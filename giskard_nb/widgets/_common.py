"""What the widgets share: escaped HTML snippets, the base view class, background jobs and live
(debounced) filters. Tables and conversations are rendered in ``_render``.

A ``Job`` runs a coroutine without blocking the kernel: as an asyncio task on the running event loop
(a notebook cell or a widget callback, where ipykernel's loop is running), else on a worker thread
with its own loop (a plain script). Either way it can be cancelled, and ``await job`` returns the result.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import threading
from collections.abc import Callable, Coroutine, Iterator, Mapping
from typing import Any

from giskard_nb.core.render import short
from giskard_nb.errors import GiskardNBError, GiskardValidationError
from giskard_nb.palette import STATUS_COLORS

__all__ = [
    "Debounce",
    "Job",
    "LiveFilters",
    "Quiet",
    "View",
    "badge",
    "error_html",
    "esc",
    "id_of",
    "named",
    "pre",
    "show_errors",
]


def esc(value: Any, limit: int = 4000) -> str:
    """Any value as escaped, bounded HTML text (agent output is untrusted)."""
    if isinstance(value, BaseException):
        value = str(value) or type(value).__name__
    return html.escape(short(value, limit) if not isinstance(value, str) else value[:limit])


def pre(value: Any, limit: int = 4000) -> str:
    return (
        "<pre style='white-space:pre-wrap;word-break:break-word;margin:0;font-size:0.9em'>"
        f"{esc(value, limit)}</pre>"
    )


def error_html(error: BaseException) -> str:
    """An error message in red, escaped."""
    return f"<span style='color:#c62828'>{esc(error)}</span>"


def show_errors(action: Callable[[], Any], message: Any) -> None:
    """Run a button's action; a bad input is shown in the ``message`` HTML widget instead of raised.
    The message is cleared first, so what the action itself shows there (a confirmation) stays."""
    message.value = ""
    try:
        action()
    except (GiskardNBError, ValueError) as exc:
        message.value = error_html(exc)


def badge(status: str, text: str | None = None) -> str:
    color = STATUS_COLORS.get(status, "#555")
    return (
        f"<span style='background:{color};color:#fff;border-radius:3px;padding:0 6px;"
        f"font-family:monospace;font-size:0.85em'>{html.escape(text or status.upper())}</span>"
    )


def id_of(saved: Any) -> str | None:
    """The stored id of what an ``on_save`` returned (a Hub record, a dict with ``id``), if any."""
    if saved is None:
        return None
    value = saved.get("id") if isinstance(saved, Mapping) else getattr(saved, "id", None)
    return str(value) if value is not None else None


class Debounce:
    """Call ``action`` once typing pauses for ``delay`` seconds (each new ``trigger()`` restarts the
    wait): on the running event loop in a notebook, else on a timer thread. ``flush()`` runs a
    pending call now."""

    def __init__(self, action: Callable[[], Any], delay: float = 0.3):
        self.action, self.delay = action, delay
        self._handle: Any = None

    @property
    def pending(self) -> bool:
        return self._handle is not None

    def trigger(self) -> None:
        self.cancel()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None:
            self._handle = loop.call_later(self.delay, self._fire)
        else:
            self._handle = threading.Timer(self.delay, self._fire)
            self._handle.daemon = True
            self._handle.start()

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def flush(self) -> None:
        if self._handle is not None:
            self._fire()

    def _fire(self) -> None:
        self.cancel()
        self.action()


class LiveFilters:
    """Filters that apply as their controls change: ``dropdowns`` at once, the ``text`` box once
    typing pauses (``Debounce``). Inside ``with filters.quiet():`` changes are ignored (a method that
    sets the controls to the values it just applied)."""

    def __init__(
        self, apply: Callable[[], Any], dropdowns: list[Any], text: Any = None, delay: float = 0.3
    ):
        self.apply, self._quiet = apply, False
        self.debounce = Debounce(apply, delay)
        for control in dropdowns:
            control.observe(self._now, names="value")
        if text is not None:
            text.observe(self._later, names="value")

    def _now(self, _change: Any) -> None:
        if not self._quiet:
            self.debounce.cancel()
            self.apply()

    def _later(self, _change: Any) -> None:
        if not self._quiet:
            self.debounce.trigger()

    @contextlib.contextmanager
    def quiet(self) -> Iterator[None]:
        self._quiet = True
        try:
            yield
        finally:
            self._quiet = False


class Quiet:
    """A flag that is true inside ``with quiet:`` (nestable): a control set by code, whose change
    event must not act as if the user had made it."""

    def __init__(self) -> None:
        self._depth = 0

    def __bool__(self) -> bool:
        return self._depth > 0

    def __enter__(self) -> Quiet:
        self._depth += 1
        return self

    def __exit__(self, *exc: Any) -> None:
        self._depth -= 1


def named(value: Any, kind: str, default: str) -> dict[str, Any]:
    """``{name: value}`` from one value (named after its ``name``/``__name__``) or a mapping."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        if not value:
            raise GiskardValidationError(f"no {kind} given: pass at least one")
        return {str(k): v for k, v in value.items()}
    return {getattr(value, "name", None) or getattr(value, "__name__", None) or default: value}


class View:
    """Base of the widgets: the object wraps a plain ipywidgets tree in ``.widget`` and displays as it."""

    widget: Any

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)


class Job:
    """A coroutine running in the background; ``on_done(job)`` is called when it ends (any way)."""

    def __init__(
        self,
        coro: Coroutine[Any, Any, Any],
        *,
        on_done: Callable[[Job], Any] | None = None,
        name: str = "giskard-nb-job",
    ):
        self._on_done = on_done
        self._result: Any = None
        self._error: BaseException | None = None
        self._finished = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task | None = None
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None:
            self.mode = "task"
            self._loop = loop
            self._task = loop.create_task(self._wrap(coro), name=name)
        else:
            self.mode = "thread"
            ready = threading.Event()
            self._thread = threading.Thread(
                target=self._thread_main, args=(coro, ready), name=name, daemon=True
            )
            self._thread.start()
            ready.wait()

    def _thread_main(self, coro: Coroutine[Any, Any, Any], ready: threading.Event) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            self._task = loop.create_task(self._wrap(coro))
            ready.set()
            loop.run_until_complete(asyncio.wait([self._task]))
        finally:
            ready.set()
            loop.close()

    async def _wrap(self, coro: Coroutine[Any, Any, Any]) -> Any:
        try:
            self._result = await coro
        except asyncio.CancelledError as exc:
            self._error = exc
        except Exception as exc:
            self._error = exc
        finally:
            self._finished.set()
            if self._on_done is not None:
                try:
                    self._on_done(self)
                except Exception:  # a display callback never breaks the job
                    import logging

                    logging.getLogger(__name__).exception("job callback failed")
        return self._result

    @property
    def cancelled(self) -> bool:
        return isinstance(self._error, asyncio.CancelledError)

    @property
    def error(self) -> BaseException | None:
        """The exception the job ended with (a ``CancelledError`` when cancelled), else ``None``."""
        return self._error

    def done(self) -> bool:
        return self._finished.is_set()

    def cancel(self) -> bool:
        """Ask the job to stop; returns False when it had already finished."""
        if self.done() or self._task is None or self._loop is None:
            return False
        if self.mode == "task":
            self._task.cancel()
        else:
            self._loop.call_soon_threadsafe(self._task.cancel)
        return True

    def result(self) -> Any:
        """The coroutine's return value; re-raises its exception. Only once ``done()``."""
        if not self.done():
            raise RuntimeError("the job is still running: await it, or call wait() from a script")
        if self._error is not None:
            raise self._error
        return self._result

    def wait(self, timeout: float | None = None) -> Any:
        """Block until the job ends (thread mode: scripts), then return ``result()``."""
        if self.mode == "task" and not self.done():
            raise RuntimeError(
                "this job runs on the notebook's event loop: `await job` instead of job.wait()"
            )
        if not self._finished.wait(timeout):
            raise TimeoutError(f"the job did not finish within {timeout} s")
        return self.result()

    def __await__(self):
        if self.mode == "task":
            assert self._task is not None
            yield from self._task.__await__()
        else:
            while not self.done():
                yield from asyncio.sleep(0.01).__await__()
        return self.result()
