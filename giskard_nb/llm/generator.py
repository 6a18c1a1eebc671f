"""``Generator``: a chat model reached through litellm (any provider), and ``Completion``, what it returns.

::

    gen = Generator(model="openai/gpt-4o-mini", temperature=0)     # extra kwargs go to litellm (top_p=...)
    done = await gen.complete([{"role": "user", "content": "Hi"}])
    done.text, done.usage.cost_usd, done.cached
    verdict = (await gen.complete(messages, output_type=Verdict)).parsed    # a Verdict instance

One call = record/replay lookup -> response cache lookup -> (rate limiter -> litellm -> retries) -> strict
reading (``parsing.parse_reply``) with one repair request -> cache and recording write. Every error is one of ``giskard_nb.llm.errors``
(subclasses of ``LLMError``). ``api_key`` is a secret: it is never shown in ``repr`` and never dumped (a
reloaded Generator reads the provider's usual environment variable, e.g. ``OPENAI_API_KEY``); parameters
and headers whose name looks secret (``api_key``, ``x-api-key``, ``*_token``, ``*_secret*``, ``authorization``:
see ``completion.SECRET_NAME``) are masked in ``repr`` and left out of dumps, cache keys and recordings.
"""

from __future__ import annotations

import logging
import time
from typing import Any, ClassVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    field_serializer,
    field_validator,
)

from giskard_nb.core.registry import Registered
from giskard_nb.core.sync import sync_twin
from giskard_nb.core.usage import Usage
from giskard_nb.errors import GiskardValidationError
from giskard_nb.llm import cache as response_cache
from giskard_nb.llm.completion import (
    Completion,
    Messages,
    normalize_messages,
    without_secrets,
)
from giskard_nb.llm.errors import LLMBadRequestError, LLMError, LLMReplayMissError, LLMResponseError
from giskard_nb.llm.inproc import call_in_process
from giskard_nb.llm.parsing import (
    ReplyParseError,
    clean_text,
    json_schema,
    parse_reply,
    repair_message,
    response_format,
    schema_instructions,
    with_instructions,
)
from giskard_nb.llm.recording import active_recorder
from giskard_nb.llm.types import GenerationParams
from giskard_nb.llm.usage import record_usage

__all__ = ["Completion", "Generator"]

log = logging.getLogger("giskard_nb.llm")
_RESERVED = ("model", "messages", "stream", "response_format", "n", "api_key", "num_retries")


class Generator(Registered):
    """A chat model through litellm: ``Generator(model="provider/model", **params)`` (kind ``litellm``).

    ``timeout`` bounds each request (seconds); ``max_retries`` retries rate limits, timeouts, connection
    and 5xx errors with exponential backoff (``retry_base_delay``, capped at ``retry_max_delay``) honouring
    Retry-After; ``max_concurrency`` caps requests in flight to this model and ``rpm`` spaces their
    starts. ``cache``: None caches temperature-0 calls (LLM checks send temperature 0 unless you set one),
    True caches every call, False none. ``native_structured_output=False`` stops sending
    ``response_format`` (for servers that reject it; the schema is always in the prompt anyway).

    Subclasses (an in-process model overriding ``_call_model``) join the registry with
    ``@Generator.register("my_kind")``, so a check or scenario holding one saves and loads it by kind.
    """

    model_config = ConfigDict(defer_build=True, extra="forbid")
    _family: ClassVar[str] = "generator"
    _registry: ClassVar[dict[str, type[Registered]]] = {}

    model: str = "openai/gpt-4o-mini"
    api_key: SecretStr | None = Field(default=None, exclude=True, repr=False)
    api_base: str | None = None
    temperature: float | None = Field(default=None, ge=0)
    max_tokens: int | None = Field(default=None, ge=1)
    timeout: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=4, ge=0)
    retry_base_delay: float = Field(default=1.0, ge=0)
    retry_max_delay: float = Field(default=30.0, ge=0)
    max_concurrency: int = Field(default=16, ge=1)
    rpm: float | None = Field(default=None, gt=0)
    cache: bool | None = None
    native_structured_output: bool = True
    params: dict[str, Any] = Field(default_factory=dict)

    def __init__(self, model: str | None = None, /, **data: Any):
        if model is not None:
            data["model"] = model
        if isinstance(data.get("params"), GenerationParams):  # the giskard-agents spelling
            data = {**data.pop("params").generator_fields(), **data}
        known = {*type(self).model_fields, "kind"}
        extra = {k: data.pop(k) for k in list(data) if k not in known}
        if extra:
            data["params"] = {**data.get("params", {}), **extra}
        super().__init__(**data)

    @field_validator("model")
    @classmethod
    def _check_model(cls, value: str) -> str:
        if not value or not value.strip():
            raise GiskardValidationError(
                "model must be a 'provider/model' string, e.g. 'openai/gpt-4o-mini'"
            )
        return value.strip()

    @field_validator("params")
    @classmethod
    def _check_params(cls, value: dict[str, Any]) -> dict[str, Any]:
        bad = sorted(k for k in value if k in _RESERVED)
        if bad:
            raise GiskardValidationError(
                f"Generator parameters {bad} are set by giskard-nb itself: pass api_key= as a field, "
                "and output_type= to complete() for structured replies"
            )
        return value

    @field_serializer("params")
    def _dump_params(self, value: dict[str, Any]) -> dict[str, Any]:
        return without_secrets(value)

    def __repr_args__(self):
        for name, value in super().__repr_args__():
            yield name, (without_secrets(value, mask="***") if name == "params" else value)
        if self.api_key is not None:
            yield "api_key", "***"

    def __getstate__(self) -> dict[Any, Any]:
        """Pickling drops ``api_key`` and secret-named ``params`` (a pickle is a file like any other):
        an unpickled Generator gets its key again from the provider's environment variable
        (``OPENAI_API_KEY``...) or from ``with_params(api_key=...)``."""
        state = super().__getstate__()
        fields = dict(state["__dict__"])
        fields["api_key"] = None
        fields["params"] = without_secrets(fields.get("params") or {})
        return {**state, "__dict__": fields}

    def with_params(self, **params: Any) -> Generator:
        """A copy (of the same class) with some fields or litellm parameters changed."""
        data = {name: getattr(self, name) for name in type(self).model_fields}
        data["params"] = dict(self.params)
        return type(self)(**{**data, **params})

    def call_params(self, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
        """The model parameters a call sends: fields, then ``params``, then per-call overrides."""
        out: dict[str, Any] = {}
        if self.temperature is not None:
            out["temperature"] = self.temperature
        if self.max_tokens is not None:
            out["max_tokens"] = self.max_tokens
        out.update(self.params)
        out.update(overrides or {})
        return out

    # -- calling ---------------------------------------------------------------------------------------

    async def complete(
        self,
        messages: Messages,
        *,
        output_type: type[BaseModel] | None = None,
        cache: bool | None = None,
        **params: Any,
    ) -> Completion:
        """Ask the model. With ``output_type`` the reply is parsed into that pydantic model (``.parsed``)."""
        msgs = normalize_messages(messages)
        bad = sorted(k for k in params if k in _RESERVED)
        if bad:
            raise GiskardValidationError(f"complete() does not accept {bad} as model parameters")
        if output_type is not None:
            if not (isinstance(output_type, type) and issubclass(output_type, BaseModel)):
                raise GiskardValidationError(
                    f"output_type must be a pydantic BaseModel subclass, got {output_type!r}"
                )
            msgs = with_instructions(msgs, schema_instructions(output_type))
        sent = self.call_params(params)
        key = response_cache.cache_key(
            "completion",
            {
                "model": self.model,
                "api_base": self.api_base,
                "messages": msgs,
                "params": without_secrets(sent),
                "schema": json_schema(output_type) if output_type else None,
            },
        )
        recorder = active_recorder()
        if recorder is not None and recorder.replaying:
            stored = recorder.lookup(key)
            done = self._from_store(stored, output_type, "replay") if stored else None
            if done is not None:
                record_usage(done.usage, cached=True)
                return done
            if recorder.mode == "replay" and stored and output_type is not None:
                raise LLMResponseError(
                    f"replay: the recorded reply of {self.model} is not a valid "
                    f"{output_type.__name__} (replies are read strictly: one JSON object); re-record "
                    f"with recording(path, mode='record' or 'auto')",
                    raw=stored.get("text") if isinstance(stored.get("text"), str) else None,
                    model=self.model,
                )
            if recorder.mode == "replay":
                raise LLMReplayMissError(
                    f"replay: no recorded reply of {self.model} for this prompt in {recorder.path}; "
                    "re-record with recording(path, mode='record' or 'auto')",
                    model=self.model,
                )
        use_cache = self._use_cache(cache, sent)
        done = None
        if use_cache:
            stored = response_cache.get(key)
            done = self._from_store(stored, output_type, "cache") if stored else None
        if done is None:
            done = await self._complete_live(msgs, sent, output_type)
        value = {
            "text": done.raw_text,
            "usage": done.usage.model_dump(),
            "cost_known": done.cost_known,
        }
        if done.source == "api" and use_cache:
            response_cache.put(key, kind="completion", model=self.model, value=value)
        if recorder is not None:
            recorder.record("completion", key, value)
        record_usage(done.usage, cached=done.source != "api")
        return done

    complete_sync = sync_twin(complete)

    def _use_cache(self, explicit: bool | None, sent: dict[str, Any]) -> bool:
        if not response_cache.cache_enabled():
            return False
        for choice in (explicit, self.cache):
            if choice is not None:
                return choice
        return sent.get("temperature") == 0

    def _from_store(
        self, stored: dict[str, Any], output_type: type[BaseModel] | None, source: str
    ) -> Completion | None:
        text = stored.get("text")
        if not isinstance(text, str):
            return None
        parsed = None
        if output_type is not None:
            try:
                parsed = parse_reply(text, output_type)
            except ReplyParseError:
                return None  # the schema changed since: treat as a miss
        return Completion(
            text=clean_text(text, parsed),
            raw_text=text,
            parsed=parsed,
            cached=True,
            source=source,
            model=self.model,
            cost_known=bool(stored.get("cost_known", True)),
        )

    async def _complete_live(
        self, msgs: list[dict[str, Any]], sent: dict[str, Any], output_type: type[BaseModel] | None
    ) -> Completion:
        t0 = time.perf_counter()
        text, usage, cost_known = await self._request(msgs, sent, output_type)
        parsed, repaired = None, False
        if output_type is not None:
            try:
                parsed = parse_reply(text, output_type)
            except ReplyParseError as first:
                first_text = text
                log.info(
                    "%s: unreadable structured reply (%s); asking for a repair", self.model, first
                )
                repair = [
                    *msgs,
                    {"role": "assistant", "content": text or "(empty reply)"},
                    {"role": "user", "content": repair_message(str(first), output_type)},
                ]
                try:
                    text, more, known = await self._request(repair, sent, output_type)
                except LLMError as exc:
                    exc.usage = usage
                    record_usage(usage)
                    raise
                usage, cost_known, repaired = usage + more, cost_known and known, True
                try:
                    parsed = parse_reply(text, output_type)
                except ReplyParseError as second:
                    err = LLMResponseError(
                        f"the reply of {self.model} is not a valid {output_type.__name__}, even after "
                        f"one repair request: {second}",
                        raw=text,
                        raw_replies=[first_text, text],
                        model=self.model,
                    )
                    err.usage = usage
                    record_usage(usage)
                    raise err from None
        return Completion(
            text=clean_text(text, parsed),
            raw_text=text,
            parsed=parsed,
            usage=usage,
            model=self.model,
            cost_known=cost_known,
            repaired=repaired,
            duration_ms=(time.perf_counter() - t0) * 1000,
        )

    async def _request(
        self, msgs: list[dict[str, Any]], sent: dict[str, Any], output_type: type[BaseModel] | None
    ) -> tuple[str, Usage, bool]:
        """One logical request (with retries): the reply text, its usage, whether the cost is known."""
        if type(self)._call_model is not Generator._call_model:
            return await call_in_process(self, msgs, sent, output_type)
        return await self._litellm_request(msgs, sent, output_type)

    async def _call_model(
        self, messages: list[dict[str, Any]], params: dict[str, Any]
    ) -> str | Completion:
        """The seam for in-process models: override this one method to serve completions yourself.

        ``messages`` are OpenAI-style dicts; ``params`` the call parameters (``temperature``...), plus
        ``output_type`` (a pydantic class) when a structured reply is expected. Return the reply text
        (or a ``Completion``); structured replies go through the same strict reader and one repair
        request as real models. The giskard-agents spelling (typed messages, ``GenerationParams``,
        ``metadata``, a ``CompletionResponse``) works too: see ``giskard_nb.llm.inproc``. The default
        sends the request through litellm."""
        text, _usage, _known = await self._litellm_request(
            messages,
            {k: v for k, v in params.items() if k != "output_type"},
            params.get("output_type"),
        )
        return text

    async def _litellm_request(
        self, msgs: list[dict[str, Any]], sent: dict[str, Any], output_type: type[BaseModel] | None
    ) -> tuple[str, Usage, bool]:
        from giskard_nb.llm._litellm import connection_kwargs, guarded_call, response_cost
        from giskard_nb.llm.resilience import RetryPolicy, call_with_retries, limiter_for

        conn, secret = connection_kwargs(self.model, self.timeout, self.api_key, self.api_base)
        kwargs: dict[str, Any] = {**sent, **conn, "messages": msgs, "drop_params": True}
        if output_type is not None and self.native_structured_output:
            kwargs["response_format"] = response_format(output_type)
        once = guarded_call(
            "acompletion", kwargs, model=self.model, secret=secret, timeout=self.timeout
        )

        policy = RetryPolicy(self.max_retries, self.retry_base_delay, self.retry_max_delay)
        limiter = limiter_for((self.model, self.api_base), self.max_concurrency, self.rpm)
        try:
            response = await call_with_retries(
                once, policy=policy, limiter=limiter, what=self.model
            )
        except LLMBadRequestError:
            if "response_format" not in kwargs:
                raise
            log.info(
                "%s rejected response_format; retrying with the schema in the prompt only",
                self.model,
            )
            kwargs.pop("response_format")
            response = await call_with_retries(
                once, policy=policy, limiter=limiter, what=self.model
            )
        choice = response.choices[0]
        text = getattr(choice.message, "content", None) or ""
        u = getattr(response, "usage", None)
        cost = response_cost(response)
        usage = Usage(
            prompt_tokens=int(getattr(u, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(u, "completion_tokens", 0) or 0),
            total_tokens=int(getattr(u, "total_tokens", 0) or 0),
            cost_usd=cost or 0.0,
            llm_calls=1,
        )
        return text, usage, cost is not None


Generator.register("litellm")(Generator)
