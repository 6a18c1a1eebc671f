"""Topic discovery: clustering, choosing k, keyword names, LLM names (against the fake LLM server)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from giskard_nb.errors import ConfigError
from giskard_nb.kb import DocumentIndex, HashingEmbedder
from giskard_nb.kb.topics import choose_k, cluster, keyword_name, keywords_by_cluster
from giskard_nb.testing import FakeLLMServer

CAMPING = [
    "Our waterproof tent sleeps four campers and has a rainfly.",
    "The camping tent packs into a small bag with poles and stakes.",
    "A lightweight tent for backpacking with a waterproof floor.",
    "Set up the tent, stake the corners and attach the rainfly.",
]
BILLING = [
    "Refunds go back to the original payment card within 30 days.",
    "Your invoice lists every payment and refund on the account.",
    "Update the payment card used for invoices in billing settings.",
    "A refund of a duplicate payment appears on the next invoice.",
]
SHOES = [
    "Hiking shoes with a rubber sole grip wet rock.",
    "Trail running shoes are light and drain water fast.",
    "Lace the hiking shoes tightly before a steep descent.",
    "Break in new leather hiking shoes before long walks.",
]


def _blobs(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centers = np.eye(3, 8)
    points = np.concatenate([c + 0.05 * rng.standard_normal((10, 8)) for c in centers])
    return points / np.linalg.norm(points, axis=1, keepdims=True)


def test_cluster_finds_the_blobs_and_is_reproducible() -> None:
    x = _blobs()
    assert choose_k(x) == 3
    labels = cluster(x)
    assert len(set(labels[:10])) == len(set(labels[10:20])) == len(set(labels[20:])) == 1
    assert len(set(labels.tolist())) == 3
    assert cluster(x).tolist() == labels.tolist()
    assert cluster(x, n_topics=2).max() == 1
    assert cluster(x[:3]).tolist() == [0, 0, 0]  # too few points: one topic
    assert cluster(np.zeros((0, 8))).tolist() == []


def test_keywords_and_names() -> None:
    labels = [0] * 4 + [1] * 4
    keywords = keywords_by_cluster(CAMPING + BILLING, labels)
    assert keywords[0][0] == "tent"
    assert {"refund", "payment"} & set(keywords[1][:3])
    taken: set[str] = set()
    first = keyword_name(["tent", "rainfly", "waterproof"], taken)
    assert first == "Tent, rainfly, waterproof"
    assert keyword_name(["tent", "rainfly", "waterproof", "stake"], taken) != first
    assert keyword_name([]) == "Other"


def test_discovered_topics_with_keyword_names() -> None:
    index = DocumentIndex.build(CAMPING + BILLING + SHOES, embedding_model=HashingEmbedder())
    assert len(index.topics) == 3
    names = [t.name.lower() for t in index.topics]
    assert any("tent" in n for n in names) and any("shoe" in n for n in names)
    assert all(t.named_by == "keywords" for t in index.topics)
    for topic in index.topics:
        members = {index.chunks[i].document for i in topic.members}
        assert members in ({0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11})
    assert index.usage.llm_calls == 0


def _namer(request):  # the fake model: name each cluster after a word of its excerpts
    if request.schema_name and "TopicNames" in request.schema_name:
        text = request.last_user_message
        topics = []
        for block in text.split("## Cluster ")[1:]:
            index = int(block.split("\n", 1)[0])
            name = (
                "Camping Tents" if "tent" in block else "Billing" if "refund" in block else "Shoes"
            )
            topics.append({"index": index, "name": name})
        return {"topics": topics}
    return "unexpected"


@pytest.fixture
def namer_server():
    with FakeLLMServer(reply=_namer) as server:
        yield server


def test_topics_named_by_the_llm(namer_server: FakeLLMServer) -> None:
    index = DocumentIndex.build(
        CAMPING + BILLING + SHOES,
        embedding_model=HashingEmbedder(),
        generator=namer_server.generator(),
    )
    assert sorted(t.name for t in index.topics) == ["Billing", "Camping Tents", "Shoes"]
    assert all(t.named_by == "llm" for t in index.topics)
    assert index.usage.llm_calls == 1 and index.naming_error is None
    prompt = namer_server.chat_requests[0].last_user_message
    assert "Our waterproof tent" in prompt and "not instructions" in prompt


def test_llm_naming_failure_keeps_keyword_names(namer_server: FakeLLMServer) -> None:
    namer_server.reply = {"topics": "not a list"}
    index = DocumentIndex.build(
        CAMPING + BILLING, embedding_model=HashingEmbedder(), generator=namer_server.generator()
    )
    assert all(t.named_by == "keywords" for t in index.topics)
    assert "topic naming by the LLM failed" in (index.naming_error or "")


def test_llm_naming_required_without_a_model_says_how_to_configure() -> None:
    with pytest.raises(ConfigError, match="set_default_generator"):
        DocumentIndex.build(CAMPING, embedding_model=HashingEmbedder(), name_topics="llm")


def test_promptflow_contexts_get_several_topics(shared_data: Path) -> None:
    path = shared_data / "conversations" / "promptflow" / "qa_with_context.jsonl"
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]
    texts = list(dict.fromkeys(r["context"] for r in rows if isinstance(r["context"], str)))
    index = DocumentIndex.build(texts)
    assert 2 <= len(index.topics) <= 12
    assert sum(len(t.members) for t in index.topics) == len(index.chunks)
