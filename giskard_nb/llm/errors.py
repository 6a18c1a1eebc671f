"""The errors of the LLM layer, and the one place where litellm's exceptions are translated into them.

    LLMError (giskard_nb.errors)      anything that went wrong talking to a model
    ├── LLMRateLimitError             HTTP 429; ``retry_after`` holds the provider's Retry-After (seconds)
    ├── LLMTimeoutError               no reply within the request timeout
    ├── LLMConnectionError            the provider could not be reached (DNS, refused, reset)
    ├── LLMServerError                HTTP 5xx, or a reply body that is not valid JSON
    ├── LLMAuthError                  HTTP 401/403: a missing or wrong API key
    ├── LLMBadRequestError            HTTP 400/404/422: unknown model, bad parameter, context too long
    ├── LLMResponseError              the model answered, but not with what was asked (``raw`` = the reply)
    └── LLMReplayMissError            replay mode found no recorded reply for a call

``retryable`` says whether the retry loop tries again (rate limits, timeouts, connection and server errors).
Messages never contain the API key: ``translate`` masks the key it is given, the secret-named environment
variables' values and key-shaped tokens (``sk-…``, ``Bearer …``) in every message
(``giskard_nb.secrets.mask_credentials``): a provider's 401 may echo the key it received.
"""

from __future__ import annotations

import re
from typing import Any

from giskard_nb.errors import LLMError
from giskard_nb.secrets import mask_credentials

__all__ = [
    "LLMAuthError",
    "LLMBadRequestError",
    "LLMConnectionError",
    "LLMError",
    "LLMRateLimitError",
    "LLMReplayMissError",
    "LLMResponseError",
    "LLMServerError",
    "LLMTimeoutError",
    "translate",
]


class _LLMError(LLMError):
    """Common fields: the model, the HTTP status when there was one, and the usage spent so far."""

    retryable: bool = False

    def __init__(self, message: str, *, model: str | None = None, status_code: int | None = None):
        super().__init__(message)
        self.model = model
        self.status_code = status_code
        self.usage: Any = None  # a giskard_nb.core.usage.Usage once the generator knows it


class LLMRateLimitError(_LLMError):
    retryable = True

    def __init__(self, message: str, *, retry_after: float | None = None, **kw: Any):
        super().__init__(message, **kw)
        self.retry_after = retry_after


class LLMTimeoutError(_LLMError):
    retryable = True


class LLMConnectionError(_LLMError):
    retryable = True


class LLMServerError(_LLMError):
    retryable = True


class LLMAuthError(_LLMError):
    pass


class LLMBadRequestError(_LLMError):
    pass


class LLMResponseError(_LLMError):
    """The reply could not be turned into the requested structure (after the repair retry).

    ``raw`` is the last reply; ``raw_replies`` every reply of the call, in order (the first one and the
    answer to the repair request).
    """

    def __init__(
        self, message: str, *, raw: str | None, raw_replies: list[str] | None = None, **kw: Any
    ):
        super().__init__(message, **kw)
        self.raw = raw
        self.raw_replies = list(raw_replies) if raw_replies is not None else [raw or ""]


class LLMReplayMissError(_LLMError):
    pass


def translate(
    exc: BaseException, *, model: str | None = None, secret: str | None = None
) -> _LLMError:
    """Map any exception raised while calling litellm to this module's errors (by status and type)."""
    if isinstance(exc, _LLMError):
        return exc
    text = _scrub(str(exc) or type(exc).__name__, secret).strip().rstrip(".")
    status = _status_code(exc)
    names = {c.__name__ for c in type(exc).__mro__}
    where = f" from {model}" if model else ""
    kw: dict[str, Any] = {"model": model, "status_code": status}
    if names & {"Timeout", "APITimeoutError", "TimeoutError", "ReadTimeout", "ConnectTimeout"}:
        return LLMTimeoutError(
            f"no reply{where} within the request timeout ({text}); raise the Generator's timeout= "
            "or check that the provider is up",
            **kw,
        )
    if status == 429 or "RateLimitError" in names:
        retry_after = retry_after_seconds(exc)
        hint = f" (Retry-After: {retry_after:g} s)" if retry_after is not None else ""
        return LLMRateLimitError(
            f"rate limited{where}{hint}: {text}. Lower max_concurrency or set rpm= on the Generator",
            retry_after=retry_after,
            **kw,
        )
    if _is_connection_error(exc):
        return LLMConnectionError(
            f"cannot reach the model provider{where}: {text}. Check api_base and your network",
            **kw,
        )
    if (
        status in (401, 403)
        or names & {"AuthenticationError", "PermissionDeniedError"}
        or _MISSING_KEY.search(text)
    ):
        return LLMAuthError(
            f"missing or invalid credentials{where} (HTTP {status}): {text}. Set the provider's "
            "API key (for example OPENAI_API_KEY) or pass api_key= to the Generator",
            **kw,
        )
    if status in (400, 404, 413, 422) or names & {"BadRequestError", "NotFoundError"}:
        return LLMBadRequestError(
            f"the provider rejected the request{where} (HTTP {status}): {text}. Check the model name "
            "(provider/model, e.g. 'openai/gpt-4o-mini') and the parameters",
            **kw,
        )
    if (status is not None and status >= 500) or names & {"APIError", "InternalServerError"}:
        return LLMServerError(f"the provider failed{where} (HTTP {status}): {text}", **kw)
    return _LLMError(f"calling the model{where} failed: {type(exc).__name__}: {text}", **kw)


_MISSING_KEY = re.compile(
    r"missing credentials|api[_ ]?key (?:client option )?must be set|no api[_ ]?key|"
    r"api[_ ]?key (?:is )?(?:missing|not (?:set|provided|found))",
    re.IGNORECASE,
)


def retry_after_seconds(exc: BaseException) -> float | None:
    """The Retry-After (or retry-after-ms) header of an HTTP error, in seconds, when present."""
    headers: Any = getattr(exc, "litellm_response_headers", None)
    if headers is None:
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None)
    if not headers:
        return None
    try:
        lowered = {str(k).lower(): str(v) for k, v in dict(headers).items()}
    except (TypeError, ValueError):
        return None
    if "retry-after-ms" in lowered:
        try:
            return max(0.0, float(lowered["retry-after-ms"]) / 1000)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return _http_date_delay(value)


def _http_date_delay(value: str) -> float | None:
    from datetime import UTC, datetime
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _status_code(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    if status is None:
        status = getattr(getattr(exc, "response", None), "status_code", None)
    return status if isinstance(status, int) else None


def _is_connection_error(exc: BaseException) -> bool:
    """litellm reports a refused connection as a 500: look for the real cause in the chain."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        names = {c.__name__ for c in type(current).__mro__}
        if isinstance(current, ConnectionError) or names & {
            "APIConnectionError",
            "ConnectError",
            "ClientConnectorError",
            "ServerDisconnectedError",
        }:
            return "Timeout" not in type(current).__name__
        current = current.__cause__ or current.__context__
    return False


def _scrub(text: str, secret: str | None) -> str:
    """The error text with the configured key, the environment's keys (litellm sends
    ``OPENAI_API_KEY`` when none is configured) and anything shaped like a key masked."""
    return mask_credentials(text, [secret])
