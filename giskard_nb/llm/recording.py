"""Record/replay: capture every model call and every call to a Python agent, then re-run with no network.

::

    with recording("run.jsonl", mode="record"):
        result = suite.run_sync()        # calls the models and the agent, writes each reply as it comes
    with recording("run.jsonl", mode="replay"):
        again = suite.run_sync()         # same results; no model and no agent is called

Modes: ``"record"`` starts a new file and writes every call; ``"replay"`` answers from the file and raises
on anything not in it (``LLMReplayMissError`` for a model call, ``AgentError`` for an agent call); ``"auto"``
(the default) replays what the file has and records what it does not.

What is recorded: completions (keyed like the response cache: model, messages, parameters, schema),
litellm embeddings (per text), and calls to a target that is a Python callable (keyed by the function's
name and first line, its inputs and the conversation so far). An agent's exception is recorded and raised
again on replay (as ``AgentError``). An agent reply must be JSON data (str, numbers, lists, dicts) to be
recorded; replayed replies come back as JSON data. A key seen several times replays its replies in order. An agent call's
duration is recorded with its reply (``"latency_s"``) and replayed as the interaction's ``latency_s``, so
a ``Latency`` check gives the same verdict on replay (a recording made without it replays ``None``).
The file is JSON Lines, one call per line, flushed as it is written (an interrupted run keeps what it did);
it holds prompts and replies but never an API key.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal

from giskard_nb.core.interaction import Interaction, Trace
from giskard_nb.core.spec import TARGET_CALL_HOOK, TargetReply
from giskard_nb.errors import AgentError, GiskardValidationError, SerializationError
from giskard_nb.llm.cache import cache_key

__all__ = ["FORMAT_VERSION", "Recorder", "active_recorder", "recording"]

FORMAT_VERSION = 1
Mode = Literal["record", "replay", "auto"]
_active: ContextVar[Recorder | None] = ContextVar("giskard_nb_recorder", default=None)


class Recorder:
    """An open recording file. Use ``recording(path, mode)`` rather than building one."""

    def __init__(self, path: str | Path, mode: Mode):
        if mode not in ("record", "replay", "auto"):
            raise GiskardValidationError(
                f"recording mode must be 'record', 'replay' or 'auto', got {mode!r}"
            )
        self.path = Path(path)
        self.mode: Mode = mode
        self._lock = threading.Lock()
        self._entries: dict[str, list[dict[str, Any]]] = {}
        self._cursor: dict[str, int] = {}
        self.replayed = 0
        self.recorded = 0
        if mode == "replay" and not self.path.is_file():
            raise GiskardValidationError(
                f"no recording at {self.path}: record one first with recording(path, mode='record')"
            )
        if mode != "record" and self.path.is_file():
            self._load()
        self._file = None
        if mode != "replay":
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fresh = mode == "record" or not self.path.is_file() or self.path.stat().st_size == 0
            self._file = self.path.open("w" if fresh else "a", encoding="utf-8")
            if fresh:
                self._write({"giskard_nb_recording": FORMAT_VERSION})

    @property
    def replaying(self) -> bool:
        return self.mode != "record"

    def _load(self) -> None:
        with self.path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    entry = json.loads(line)
                except ValueError as exc:
                    raise GiskardValidationError(
                        f"{self.path}, line {number}: not JSON ({exc}); the recording is damaged, "
                        "record it again"
                    ) from None
                if "giskard_nb_recording" in entry:
                    if entry["giskard_nb_recording"] != FORMAT_VERSION:
                        raise GiskardValidationError(
                            f"{self.path} is a recording of format {entry['giskard_nb_recording']}; "
                            f"this giskard-nb reads format {FORMAT_VERSION}: record it again"
                        )
                    continue
                if not isinstance(entry, dict) or "key" not in entry or "value" not in entry:
                    raise GiskardValidationError(
                        f"{self.path}, line {number}: expected an object with 'key' and 'value'"
                    )
                self._entries.setdefault(entry["key"], []).append(entry["value"])

    def _write(self, obj: dict[str, Any]) -> None:
        assert self._file is not None
        self._file.write(json.dumps(obj, ensure_ascii=False) + "\n")
        self._file.flush()

    def lookup(self, key: str) -> dict[str, Any] | None:
        """The next recorded value for ``key`` (the last one again once they are used up)."""
        with self._lock:
            values = self._entries.get(key)
            if not values:
                return None
            index = self._cursor.get(key, 0)
            self._cursor[key] = index + 1
            self.replayed += 1
            return values[min(index, len(values) - 1)]

    def record(self, kind: str, key: str, value: dict[str, Any]) -> None:
        """Append one call to the file (no-op in replay mode)."""
        if self._file is None:
            return
        with self._lock:
            self._write({"kind": kind, "key": key, "value": value})
            self._entries.setdefault(key, []).append(value)
            self._cursor[key] = len(self._entries[key])
            self.recorded += 1

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __repr__(self) -> str:
        return (
            f"<Recorder {str(self.path)!r} mode={self.mode} recorded={self.recorded} "
            f"replayed={self.replayed}>"
        )

    # -- agent calls (installed as giskard_nb.core.spec.TARGET_CALL_HOOK) ------------------------------

    async def call_target(
        self, target: Any, inputs: Any, trace: Trace, call: Callable[[], Awaitable[TargetReply]]
    ) -> TargetReply:
        key = cache_key("agent", _agent_key(target, inputs, trace))
        if self.replaying:
            hit = self.lookup(key)
            if hit is not None:
                return TargetReply(_replay_agent(hit, target), _recorded_latency(hit))
            if self.mode == "replay":
                raise AgentError(
                    f"replay: no recorded reply of {_name(target)} for inputs {inputs!r:.200} at this "
                    "point of the conversation; re-record with recording(path, mode='record' or 'auto')"
                )
        try:
            reply = await call()
        except Exception as exc:
            self.record("agent", key, {"error": f"{type(exc).__name__}: {exc}"})
            raise
        self.record(
            "agent", key, {**_recordable(reply.outputs, target), "latency_s": reply.latency_s}
        )
        return reply


def _name(target: Any) -> str:
    return getattr(target, "__qualname__", None) or type(target).__name__


def _agent_key(target: Any, inputs: Any, trace: Trace) -> dict[str, Any]:
    code = getattr(target, "__code__", None)
    if code is None:  # a callable object: use its __call__ method's code
        code = getattr(vars(type(target)).get("__call__"), "__code__", None)
    history = [[i.inputs, i.outputs] for i in trace.interactions]
    return {
        "target": _name(target),
        "line": getattr(code, "co_firstlineno", None),
        "inputs": inputs,
        "history": history,
    }


def _recordable(out: Any, target: Any) -> dict[str, Any]:
    if isinstance(out, Interaction):
        return {"interaction": out.model_dump(mode="json")}
    try:
        json.dumps(out)
    except (TypeError, ValueError) as exc:
        raise SerializationError(
            f"cannot record the reply of {_name(target)}: {exc}. Return JSON data (str, numbers, "
            "lists, dicts) from the agent, or run it without recording()"
        ) from None
    return {"outputs": out}


def _recorded_latency(hit: dict[str, Any]) -> float | None:
    """The seconds the recorded call took (``None`` in a recording made before calls were timed)."""
    value = hit.get("latency_s")
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _replay_agent(hit: dict[str, Any], target: Any) -> Any:
    if "error" in hit:
        raise AgentError(f"(replayed) {_name(target)} raised {hit['error']}")
    if "interaction" in hit:
        return Interaction.model_validate(hit["interaction"])
    return hit.get("outputs")


def active_recorder() -> Recorder | None:
    """The recorder of the innermost ``recording()`` block, if any."""
    return _active.get()


@contextmanager
def recording(path: str | Path, mode: Mode = "auto") -> Iterator[Recorder]:
    """Record or replay every model and agent call made inside the block (see the module docstring)."""
    recorder = Recorder(path, mode)
    token = _active.set(recorder)
    hook_token = TARGET_CALL_HOOK.set(recorder.call_target)
    try:
        yield recorder
    finally:
        TARGET_CALL_HOOK.reset(hook_token)
        _active.reset(token)
        recorder.close()
