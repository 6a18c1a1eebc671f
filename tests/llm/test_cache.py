"""The SQLite response cache: deterministic calls are answered from disk with zero requests."""

from __future__ import annotations

import sqlite3

import pytest
from pydantic import BaseModel

from giskard_nb.config import home_dir
from giskard_nb.llm import LLMResponseError, cache_info, clear_cache, track_usage
from giskard_nb.llm import cache as response_cache


class Verdict(BaseModel):
    reason: str
    passed: bool


async def test_temperature_zero_calls_hit_the_cache_with_zero_requests(gen, server):
    server.reply = {"reason": "fine", "passed": True}
    first = await gen.complete("Judge this", output_type=Verdict, temperature=0)
    assert first.source == "api" and len(server.requests) == 1
    server.reset()
    with track_usage() as tracker:
        second = await gen.complete("Judge this", output_type=Verdict, temperature=0)
    assert len(server.requests) == 0
    assert second.cached and second.source == "cache"
    assert second.parsed == first.parsed
    assert second.usage.llm_calls == 0 and second.usage.cost_usd == 0  # nothing was spent
    assert tracker.cached_calls == 1
    assert (home_dir() / "llm_cache.sqlite").is_file()


async def test_any_change_in_prompt_params_or_schema_is_a_miss(gen, server):
    await gen.complete("A", temperature=0)
    await gen.complete("B", temperature=0)
    await gen.complete("A", temperature=0, max_tokens=5)
    await gen.complete("A", temperature=0, output_type=Verdict)
    other = server.generator(model="openai/gpt-4o")
    await other.complete("A", temperature=0)
    assert len(server.requests) == 5
    await gen.complete("A", temperature=0)
    assert len(server.requests) == 5


async def test_non_deterministic_calls_are_not_cached_unless_asked(gen, server):
    await gen.complete("A")
    await gen.complete("A")
    await gen.complete("A", temperature=0.7)
    assert len(server.requests) == 3
    await gen.complete("A", temperature=0.7, cache=True)
    await gen.complete("A", temperature=0.7, cache=True)
    assert len(server.requests) == 4


async def test_cache_false_bypasses(server):
    gen = server.generator(cache=False, temperature=0)
    await gen.complete("A")
    await gen.complete("A")
    assert len(server.requests) == 2
    await gen.complete("A", cache=True)
    await gen.complete("A", cache=True)
    assert len(server.requests) == 3


async def test_environment_switch_disables_the_cache(gen, server, monkeypatch):
    monkeypatch.setenv("GISKARD_NB_LLM_CACHE", "0")
    await gen.complete("A", temperature=0)
    await gen.complete("A", temperature=0)
    assert len(server.requests) == 2


async def test_unparseable_replies_are_not_cached(gen, server):
    server.reply = "junk"
    for _ in range(2):
        with pytest.raises(LLMResponseError):
            await gen.complete("A", temperature=0, output_type=Verdict)
    assert len(server.requests) == 4  # 2 x (call + repair): nothing cached


async def test_info_clear_and_no_secret_on_disk(server):
    gen = server.generator(api_key="sk-do-not-store-me", temperature=0)
    await gen.complete("A")
    await gen.complete("B")
    info = cache_info()
    assert info["entries"] == 2 and info["by_kind"] == {"completion": 2}
    assert b"sk-do-not-store-me" not in (home_dir() / "llm_cache.sqlite").read_bytes()
    assert clear_cache() == 2
    await gen.complete("A")
    assert len(server.requests) == 3


def test_a_cache_of_another_format_version_is_left_alone(caplog):
    path = home_dir() / "llm_cache.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 99")
    assert response_cache.get("k") is None
    response_cache.put("k", kind="completion", model="m", value={"text": "x"})
    assert response_cache.get("k") is None
    assert "format version 99" in caplog.text


def test_an_unusable_cache_never_fails_a_call(monkeypatch, tmp_path, caplog):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    monkeypatch.setenv("GISKARD_NB_HOME", str(blocker / "home"))
    monkeypatch.setattr(response_cache, "cache_path", lambda: blocker / "cache.sqlite")
    assert response_cache.get("k") is None
    response_cache.put("k", kind="completion", model="m", value={"text": "x"})
    assert "LLM cache" in caplog.text
