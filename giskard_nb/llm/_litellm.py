"""The only module that imports litellm (lazily: it takes seconds), configured to stay offline and quiet.

Every import of litellm or of one of its submodules goes through ``litellm()`` or ``litellm_utils()`` here
(a test enforces it), so ``offline_environment()`` always runs first: ``LITELLM_LOCAL_MODEL_COST_MAP=True``
(litellm reads it at import time: use the bundled price table instead of downloading it from GitHub, which
costs 3-10 s offline, three warnings and a retry thread; set the variable to ``False`` yourself to opt back
in) and ``LITELLM_LOG=ERROR`` (both ``setdefault``: a value you set wins). After it:
``suppress_debug_info`` (no "Give Feedback / Get Help" lines on stdout), no telemetry, litellm's loggers at
the ``LITELLM_LOG`` level (so a root handler at INFO does not print them), and pydantic's harmless
"``ReadOnly`` qualifier" UserWarning about litellm's own types filtered out (that message only).

litellm schedules success-logging tasks on the running event loop. A loop that is closed while they are
pending (``run_sync`` inside Jupyter runs each call on a fresh loop in a worker thread) would print
"Task was destroyed but it is pending!". ``call_guard`` counts calls in flight per loop and, when the last one
finishes, lets litellm's logging settle and stops its worker, so the loop can close cleanly at any time.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import warnings
import weakref
from collections.abc import Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

__all__ = [
    "call_guard",
    "connection_kwargs",
    "guarded_call",
    "litellm",
    "litellm_utils",
    "offline_environment",
    "response_cost",
]

_lock = threading.Lock()
_count_lock = threading.Lock()
_module: Any = None
_in_flight: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()
_READONLY_WARNING = r".*using the `ReadOnly` qualifier\. Pydantic will not protect items"


def offline_environment() -> None:
    """Set litellm's offline and quiet defaults (a value already in the environment wins)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_LOG", "ERROR")


def litellm_utils() -> Any:
    """``litellm.utils``, imported after ``litellm()`` configured the package."""
    litellm()
    import litellm.utils as utils

    return utils


def litellm() -> Any:
    """Import and configure litellm once; return the module."""
    global _module
    if _module is not None:
        return _module
    with _lock:
        if _module is None:
            offline_environment()
            # litellm's models use typing.ReadOnly, which pydantic warns about (a harmless UserWarning
            # per class, when each is first built): silence exactly that message.
            warnings.filterwarnings("ignore", message=_READONLY_WARNING, category=UserWarning)
            import litellm as module

            for name in ("ModelResponse", "EmbeddingResponse"):
                with contextlib.suppress(Exception):  # build the response models now
                    getattr(module, name)()
            module.suppress_debug_info = True
            module.telemetry = False
            level = logging.getLevelName(os.environ.get("LITELLM_LOG", "ERROR").upper())
            for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy"):
                logger = logging.getLogger(name)
                if logger.level == logging.NOTSET and isinstance(level, int):
                    logger.setLevel(level)  # else its records reach any root handler at INFO
            _module = module
    return _module


@asynccontextmanager
async def call_guard():
    """Wrap every litellm call: when the loop has no call left in flight, settle litellm's logging."""
    import asyncio

    loop = asyncio.get_running_loop()
    with _count_lock:
        _in_flight[loop] = _in_flight.get(loop, 0) + 1
    try:
        yield
    finally:
        with _count_lock:
            _in_flight[loop] -= 1
            idle = _in_flight[loop] == 0
        if idle:
            await _settle()


async def _settle() -> None:
    """Drain litellm's background logging tasks and stop its worker (best effort, never raises)."""
    import asyncio

    try:
        await asyncio.sleep(0)  # let the "enqueue success callback" task run
        litellm()
        from litellm.litellm_core_utils import logging_worker
        from litellm.responses import streaming_iterator

        drain = getattr(streaming_iterator, "drain_logging_tasks", None)
        if drain is not None:
            await drain(timeout=5.0)
        worker = getattr(logging_worker, "GLOBAL_LOGGING_WORKER", None)
        mine = getattr(worker, "_bound_loop", None) in (None, asyncio.get_running_loop())
        if worker is not None and mine:  # never stop a worker serving another thread's loop
            await asyncio.wait_for(worker.flush(), 5.0)
            await worker.stop()
    except Exception:  # a litellm refactor must not break calls
        return


def model_prices(model: str) -> tuple[float, float] | None:
    """USD per prompt token and per completion token of a litellm model, from litellm's bundled price
    table (None when the model is not in it). Imports litellm (a few seconds the first time)."""
    import warnings

    try:
        # litellm's provider modules warn while pydantic builds their schemas
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            prompt, completion = litellm().cost_per_token(
                model=model, prompt_tokens=1_000_000, completion_tokens=1_000_000
            )
    except Exception:
        return None
    return prompt / 1_000_000, completion / 1_000_000


def connection_kwargs(
    model: str, timeout: float | None, api_key: Any, api_base: str | None
) -> tuple[dict[str, Any], str | None]:
    """The keyword arguments every litellm call gets (retries are ours, not litellm's), and the
    revealed API key (kept out of errors by ``translate``)."""
    secret = api_key.get_secret_value() if api_key is not None else None
    kwargs: dict[str, Any] = {
        "model": model,
        "timeout": timeout,
        "num_retries": 0,
        "max_retries": 0,
    }
    if secret:
        kwargs["api_key"] = secret
    if api_base:
        kwargs["api_base"] = api_base
    return kwargs, secret


def guarded_call(
    method: str, kwargs: dict[str, Any], *, model: str, secret: str | None, timeout: float | None
) -> Callable[[], Awaitable[Any]]:
    """One attempt of ``litellm.<method>(**kwargs)`` (read when called, so callers may edit
    ``kwargs`` between retries), bounded by ``timeout``, with errors translated at this boundary."""
    from giskard_nb.llm.errors import translate

    async def once() -> Any:
        import asyncio

        from giskard_nb.secrets import quiet_http_logs

        try:
            with quiet_http_logs():  # httpx logs request URLs at INFO
                async with call_guard(), asyncio.timeout(timeout):
                    return await getattr(litellm(), method)(**kwargs)
        except Exception as exc:
            raise translate(exc, model=model, secret=secret) from None

    return once


def response_cost(response: Any) -> float | None:
    """The USD cost litellm computed for a response from its bundled price table (None: unknown model)."""
    hidden = getattr(response, "_hidden_params", None) or {}
    cost = hidden.get("response_cost")
    if isinstance(cost, int | float):
        return float(cost)
    try:
        return float(litellm().completion_cost(completion_response=response))
    except Exception:
        return None
