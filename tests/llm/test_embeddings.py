"""Embeddings: the offline default (no network at all) and litellm models through the fake server."""

from __future__ import annotations

import socket

import pytest

from giskard_nb.llm import (
    EmbeddingModel,
    LLMReplayMissError,
    OfflineEmbeddingModel,
    recording,
    track_usage,
)
from giskard_nb.llm import embeddings as embeddings_module
from giskard_nb.llm.embeddings import cosine_similarity


async def test_offline_model_loads_and_embeds_with_zero_network(monkeypatch):
    attempts: list[object] = []

    def refuse(self, address, *args, **kwargs):
        attempts.append(address)
        raise OSError("network is forbidden in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(embeddings_module, "_wordllama", {})  # force a fresh load
    model = OfflineEmbeddingModel()
    vectors = await model.embed(
        ["The capital of France is Paris.", "Paris is France's capital city.", "I like turtles."]
    )
    assert attempts == []
    assert len(vectors) == 3 and all(len(v) == 256 for v in vectors)
    close = cosine_similarity(vectors[0], vectors[1])
    far = cosine_similarity(vectors[0], vectors[2])
    assert close > 0.8 > far


async def test_offline_model_does_not_reconfigure_logging():
    import logging

    embeddings_module._wordllama.clear()
    before = list(logging.getLogger().handlers), logging.getLogger().level
    await OfflineEmbeddingModel().embed(["x"])
    assert (list(logging.getLogger().handlers), logging.getLogger().level) == before


async def test_litellm_embeddings_through_the_fake_server(server):
    model = server.embedding_model()
    with track_usage() as tracker:
        result = await model.embed_with_usage(["alpha beta", "alpha beta", "gamma"])
    assert len(result.vectors) == 3 and len(result.vectors[0]) == 64
    assert result.vectors[0] == result.vectors[1]
    assert result.usage.llm_calls == 1 and result.usage.prompt_tokens > 0
    assert result.usage.cost_usd > 0  # text-embedding-3-small has a price
    assert tracker.usage.llm_calls == 1
    (request,) = server.embedding_requests
    assert request.inputs == ["alpha beta", "alpha beta", "gamma"]
    assert request.model == "text-embedding-3-small"


async def test_embeddings_are_cached_per_text(server):
    model = server.embedding_model()
    await model.embed(["one", "two"])
    result = await model.embed_with_usage(["two", "three"])
    assert [r.inputs for r in server.embedding_requests] == [["one", "two"], ["three"]]
    assert result.cached == 1
    uncached = server.embedding_model(cache=False)
    await uncached.embed(["one"])
    assert len(server.embedding_requests) == 3


async def test_embedding_batches_and_dimensions(server):
    model = server.embedding_model(batch_size=2, dimensions=64, cache=False)
    vectors = await model.embed([f"text {i}" for i in range(5)])
    assert len(vectors) == 5
    assert [len(r.inputs) for r in server.embedding_requests] == [2, 2, 1]
    assert server.embedding_requests[0].body["dimensions"] == 64


async def test_embeddings_replay_without_a_server(server, tmp_path):
    path = tmp_path / "emb.jsonl"
    model = server.embedding_model(cache=False)
    with recording(path, mode="record"):
        first = await model.embed(["a b", "c"])
    server.stop()
    with recording(path, mode="replay"):
        assert await model.embed(["a b", "c"]) == first
        with pytest.raises(LLMReplayMissError):
            await model.embed(["never seen"])


def test_api_key_is_not_dumped():
    model = EmbeddingModel(model="openai/text-embedding-3-small", api_key="sk-hidden")
    assert "sk-hidden" not in repr(model) and "sk-hidden" not in model.model_dump_json()
