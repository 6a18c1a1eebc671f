"""What the widgets share: escaped HTML snippets, the base view class and background jobs.

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

from giskard_nb.core.render import STATUS_COLORS, short
from giskard_nb.errors import GiskardNBError, GiskardValidationError

__all__ = [
    "Debounce",
    "Job",
    "LiveFilters",
    "View",
    "badge",
    "conversation_html",
    "error_html",
    "esc",
    "id_of",
    "named",
    "pre",
    "show_errors",
    "table_html",
    "trace_messages",
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


_ROLE_COLORS = {"user": "#e3f2fd", "assistant": "#f5f5f5", "system": "#fff8e1", "tool": "#ede7f6"}
TABLE_STYLE = "border-collapse:collapse;width:100%;text-align:left"
CELL_STYLE = "text-align:left;vertical-align:top;padding:2px 6px;border-bottom:1px solid #eee"


def table_html(
    header: list[str], rows: list[list[str]], *, css_class: str = "", empty: str = "nothing here"
) -> str:
    """A left-aligned HTML table (JupyterLab right-aligns table cells by default). ``header`` is
    plain text (escaped here); ``rows`` hold HTML cells the caller has already escaped."""
    head = "".join(f"<th style='{CELL_STYLE}'>{html.escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td style='{CELL_STYLE}'>{c}</td>" for c in row) + "</tr>"
        for row in rows
    )
    if not rows:
        body = f"<tr><td colspan={len(header)} style='{CELL_STYLE}'><i>{html.escape(empty)}</i></td></tr>"
    return f"<table class='{css_class}' style='{TABLE_STYLE}'><tr>{head}</tr>{body}</table>"


def _field(message: Any, name: str, default: Any = None) -> Any:
    if isinstance(message, Mapping):
        return message.get(name, default)
    return getattr(message, name, default)


def _is_message(value: Any) -> bool:
    return _field(value, "role") is not None and (
        isinstance(value, Mapping) or hasattr(value, "content")
    )


def _tool_call_html(call: Any) -> str:
    fn = _field(call, "function") or call
    name = _field(fn, "name") or "tool"
    args = _field(fn, "arguments", _field(call, "args"))
    shown = "" if args in (None, "", {}) else esc(args, 1000)
    return f"<div style='font-size:0.85em'>🔧 <code>{esc(name, 200)}</code>(<code>{shown}</code>)</div>"


def conversation_html(messages: Any, *, limit: int = 4000) -> str:
    """Chat turns (role, escaped content, tool calls when present) of a message list: dicts or
    objects with ``role``/``content`` (and optionally ``tool_calls``). Anything else (a plain string,
    a dict that is not a message) is shown as one escaped user turn."""
    if isinstance(messages, str | bytes) or not isinstance(messages, list | tuple):
        messages = [{"role": "user", "content": messages}]
    turns = []
    for m in messages:
        if not _is_message(m):
            m = {"role": "user", "content": m}
        role = str(_field(m, "role") or "user")
        content = _field(m, "content")
        calls = _field(m, "tool_calls") or []
        body = "" if content in (None, "") and calls else pre(content, limit)
        color = _ROLE_COLORS.get(role, "#f5f5f5")
        turns.append(
            f"<div class='giskard-turn giskard-turn-{esc(role, 20)}' style='background:{color};"
            f"border-radius:6px;padding:4px 8px;margin:3px 0;text-align:left'>"
            f"<small><b>{esc(role, 40)}</b></small>{body}"
            + "".join(_tool_call_html(c) for c in calls if c)
            + "</div>"
        )
    body = "".join(turns) or "<i>no messages</i>"
    return f"<div class='giskard-conversation'>{body}</div>"


def trace_messages(interactions: Any) -> list[dict[str, Any]]:
    """A core trace's interactions as one message list: an input that is itself a message list (a
    Hub test case's conversation) is spread into its turns, without repeating the turns already
    shown; the output is the assistant's turn, with the tool calls of its metadata."""
    out: list[dict[str, Any]] = []
    for it in interactions:
        inputs = it.inputs
        if isinstance(inputs, list | tuple) and inputs and all(_is_message(m) for m in inputs):
            turns = [
                {"role": _field(m, "role"), "content": _field(m, "content"),
                 "tool_calls": _field(m, "tool_calls") or []}
                for m in inputs
            ]  # fmt: skip
            if turns[: len(out)] == out:
                turns = turns[len(out) :]
            out.extend(turns)
        else:
            out.append({"role": "user", "content": inputs, "tool_calls": []})
        outputs, metadata = it.outputs, it.metadata or {}
        calls = list(metadata.get("tool_calls") or []) if isinstance(metadata, Mapping) else []
        if _is_message(outputs):
            calls = list(_field(outputs, "tool_calls") or []) + calls
            outputs = _field(outputs, "content")
        out.append({"role": "assistant", "content": outputs, "tool_calls": calls})
    return out


def id_of(saved: Any) -> str | None:
    """The stored id of what an ``on_save`` returned (a Hub record, a dict with ``id``), if any."""
    value = _field(saved, "id") if saved is not None else None
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
