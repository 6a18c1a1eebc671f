"""Retries, Retry-After, timeouts, per-model concurrency and RPM limits, error translation."""

from __future__ import annotations

import asyncio
import logging
import re
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from giskard_nb.llm import (
    LLMAuthError,
    LLMBadRequestError,
    LLMConnectionError,
    LLMRateLimitError,
    LLMServerError,
    LLMTimeoutError,
    resilience,
)
from giskard_nb.llm.errors import retry_after_seconds, translate
from giskard_nb.testing import FakeReply


def _logged_delays(caplog) -> list[float]:
    return [
        float(m.group(1))
        for r in caplog.records
        if (m := re.search(r"retry \d+/\d+ in ([\d.]+) s", r.getMessage()))
    ]


async def test_rate_limit_honours_retry_after_then_succeeds(gen, server, caplog):
    caplog.set_level(logging.WARNING, logger="giskard_nb.llm")
    server.queue(FakeReply.fail(429, "slow down", retry_after=0.2))
    server.reply = "made it"
    done = await gen.complete("hi")
    assert done.text == "made it"
    assert len(server.chat_requests) == 2
    (delay,) = _logged_delays(caplog)
    assert 0.2 <= delay <= 0.2 * 1.1 + 1e-9  # the server's Retry-After, plus at most 10 % jitter


async def test_retry_after_longer_than_max_delay_is_not_waited_for(server):
    gen = server.generator(max_retries=3, retry_max_delay=1.0)
    server.queue(FakeReply.fail(429, retry_after=120))
    with pytest.raises(LLMRateLimitError, match="asked to wait 120 s") as info:
        await gen.complete("hi")
    assert info.value.retry_after == 120
    assert len(server.chat_requests) == 1


async def test_server_errors_are_retried_with_backoff_then_given_up(server, caplog):
    caplog.set_level(logging.WARNING, logger="giskard_nb.llm")
    gen = server.generator(max_retries=2, retry_base_delay=0.02, retry_max_delay=1.0)
    server.reply = FakeReply.fail(503, "overloaded")
    with pytest.raises(LLMServerError, match="gave up after 3 attempts"):
        await gen.complete("hi")
    assert len(server.chat_requests) == 3
    first, second = _logged_delays(caplog)
    assert 0.01 <= first <= 0.02 and 0.02 <= second <= 0.04  # base * 2**n, 50-100 % jitter


async def test_timeout_is_an_error_and_is_retried(server):
    gen = server.generator(timeout=0.2, max_retries=1, retry_base_delay=0.01)
    server.reply = FakeReply.slow(5.0, "too late")
    with pytest.raises(LLMTimeoutError, match="timeout"):
        await gen.complete("hi")
    assert len(server.chat_requests) == 2


async def test_timeout_then_success(server):
    gen = server.generator(timeout=0.3, max_retries=1, retry_base_delay=0.01)
    server.queue(FakeReply.slow(5.0))
    server.reply = "in time"
    assert (await gen.complete("hi")).text == "in time"


async def test_max_concurrency_caps_requests_in_flight(server):
    server.delay = 0.05
    limited = server.generator(max_concurrency=3)
    await asyncio.gather(*(limited.complete(f"q{i}") for i in range(12)))
    assert 2 <= server.max_in_flight <= 3
    server.reset()
    free = server.generator(max_concurrency=16)
    await asyncio.gather(*(free.complete(f"r{i}") for i in range(12)))
    assert server.max_in_flight > 3


async def test_limiter_is_shared_by_generators_of_the_same_model(server):
    server.delay = 0.05
    a = server.generator(max_concurrency=2)
    b = server.generator(max_concurrency=2)
    await asyncio.gather(*(g.complete(f"q{i}") for i in range(6) for g in (a, b)))
    assert server.max_in_flight <= 2


async def test_rpm_spaces_request_starts(monkeypatch):
    waits: list[float] = []
    real_sleep = asyncio.sleep

    async def fake_sleep(seconds: float) -> None:
        waits.append(seconds)
        await real_sleep(0)

    monkeypatch.setattr(resilience.asyncio, "sleep", fake_sleep)
    limiter = resilience.RateLimiter(max_concurrency=10, rpm=60)  # one start per second
    for _ in range(3):
        async with limiter.slot():
            pass
    assert len(waits) == 2
    assert 0.9 < waits[0] <= 1.0 and 1.9 < waits[1] <= 2.0


async def test_rate_limit_pauses_every_call_to_the_model(monkeypatch):
    waits: list[float] = []
    real_sleep = asyncio.sleep

    async def fake_sleep(seconds: float) -> None:
        waits.append(seconds)
        await real_sleep(0)

    monkeypatch.setattr(resilience.asyncio, "sleep", fake_sleep)
    limiter = resilience.RateLimiter(max_concurrency=10)
    limiter.pause(5.0)
    async with limiter.slot():
        pass
    assert len(waits) == 1 and 4.9 < waits[0] <= 5.0


class _HTTPError(Exception):
    def __init__(self, message: str, status_code: int | None = None, headers=None):
        super().__init__(message)
        self.status_code = status_code
        self.litellm_response_headers = headers


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (429, LLMRateLimitError),
        (401, LLMAuthError),
        (403, LLMAuthError),
        (400, LLMBadRequestError),
        (404, LLMBadRequestError),
        (500, LLMServerError),
        (502, LLMServerError),
    ],
)
def test_translate_by_status(status, expected):
    err = translate(_HTTPError("boom", status), model="m/x")
    assert type(err) is expected
    assert err.status_code == status and err.model == "m/x"
    assert err.retryable == (expected in (LLMRateLimitError, LLMServerError))


def test_translate_timeouts_and_connection_errors():
    assert isinstance(translate(TimeoutError()), LLMTimeoutError)
    outer = _HTTPError("Connection error.", 500)
    outer.__cause__ = ConnectionRefusedError(111, "refused")
    assert isinstance(translate(outer), LLMConnectionError)


def test_missing_credentials_are_an_auth_error_not_retried():
    err = translate(
        _HTTPError("OpenAIException - Missing credentials. Please pass an `api_key`", 500)
    )
    assert isinstance(err, LLMAuthError) and not err.retryable


def test_translate_scrubs_the_api_key():
    err = translate(_HTTPError("bad key sk-abcdef123456 rejected", 401), secret="sk-abcdef123456")
    assert "sk-abcdef123456" not in str(err) and "***" in str(err)


def test_retry_after_header_forms():
    assert retry_after_seconds(_HTTPError("x", 429, {"Retry-After": "2.5"})) == 2.5
    assert retry_after_seconds(_HTTPError("x", 429, {"retry-after-ms": "1500"})) == 1.5
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    assert 25 < retry_after_seconds(_HTTPError("x", 429, {"Retry-After": later})) <= 30
    assert retry_after_seconds(_HTTPError("x", 429, {})) is None
    assert retry_after_seconds(_HTTPError("x", 429, {"Retry-After": "soon"})) is None
