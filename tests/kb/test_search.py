"""Lexical, embedding and hybrid search; search quality on public QA corpora (promptflow, ABCD)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from giskard_nb.errors import GiskardValidationError, LLMError
from giskard_nb.kb import DocumentIndex, HashingEmbedder
from giskard_nb.kb.bm25 import BM25Index
from giskard_nb.kb.embedding import embed_matrix
from giskard_nb.kb.retrieval import HybridRetriever
from giskard_nb.kb.text import stem, terms

DOCS = [
    "The TrailMaster X4 tent has a rainfly with a waterproof rating of 2000mm.",
    "The BaseCamp folding table weighs 3 kg and folds flat for transport.",
    "Refunds are issued within 30 days to the original payment method.",
    "Our hiking shoes use a rubber sole with deep lugs for grip on wet rock.",
]


def test_terms_stem_and_drop_stop_words() -> None:
    assert terms("The tents are waterproof") == ["tent", "waterproof"]
    assert stem("running") == stem("run") == "run"
    assert stem("refunds") == stem("refund")
    assert stem("2000mm") == "2000mm"


def test_bm25_prefers_rare_terms_and_scores_zero_without_overlap() -> None:
    index = BM25Index([terms(d) for d in DOCS])
    scores = index.scores(terms("waterproof tent"))
    assert scores.argmax() == 0
    assert scores[1] == scores[2] == scores[3] == 0.0
    assert index.idf("waterproof") > 0
    assert index.scores(terms("nothing matches this")).sum() == 0


async def test_hashing_embedder_is_deterministic_and_similarity_follows_words() -> None:
    model = HashingEmbedder(dimensions=256)
    a, b, c = await model.embed(["waterproof tents", "a waterproof tent", "refund policy"])
    assert a == (await model.embed(["waterproof tents"]))[0]
    assert np.dot(a, b) > 0.6 > np.dot(a, c)
    assert abs(np.linalg.norm(a) - 1.0) < 1e-9
    with pytest.raises(GiskardValidationError):
        HashingEmbedder(dimensions=4)


async def test_embed_matrix_rejects_broken_models() -> None:
    class Short:
        name = "short"

        async def embed(self, texts: list[str]) -> list[list[float]]:
            return [[1.0, 0.0]]

    class Crash:
        async def embed(self, texts: list[str]) -> list[list[float]]:
            raise RuntimeError("boom")

    with pytest.raises(LLMError, match="returned 1 vectors for 2 texts"):
        await embed_matrix(Short(), ["a", "b"])
    with pytest.raises(LLMError, match="Crash.*failed: RuntimeError: boom"):
        await embed_matrix(Crash(), ["a"])


def test_hybrid_ranking_fuses_both_signals() -> None:
    # Embeddings that know "footwear" ~ shoes; BM25 knows exact words.
    vectors = np.eye(4, dtype=np.float32)
    retriever = HybridRetriever(DOCS, vectors)
    footwear = np.array([0, 0, 0, 1], dtype=np.float32)
    ranked = retriever.rank("footwear for wet trails", footwear, limit=2)
    assert ranked[0].index == 3 and ranked[0].semantic_rank == 1
    both = retriever.rank("refund payment", np.array([0, 0, 1, 0], dtype=np.float32), limit=4)
    assert both[0].index == 2 and both[0].lexical_rank == 1 and both[0].semantic_rank == 1
    lexical_only = HybridRetriever(DOCS).rank("folding table", limit=3)
    assert [r.index for r in lexical_only] == [1]  # only documents sharing a term
    allowed = np.array([True, False, False, False])
    assert [r.index for r in retriever.rank("refund", None, allowed=allowed)] == []
    with pytest.raises(GiskardValidationError, match="dimensions"):
        retriever.rank("x", np.zeros(3, dtype=np.float32))


def test_document_index_search_with_metadata_and_topic_filter() -> None:
    rows = [
        {"content": d, "category": c}
        for d, c in zip(DOCS, ["camping", "camping", "billing", "shoes"], strict=True)
    ]
    index = DocumentIndex.build(rows, topic_column="category", embedding_model=HashingEmbedder())
    assert [t.name for t in index.topics] == ["camping", "billing", "shoes"]
    assert all(t.named_by == "given" for t in index.topics)
    hits = index.search("How long do refunds take?", limit=2)
    assert hits[0].content == DOCS[2] and hits[0].topic == "billing"
    assert hits[0].chunk.metadata["source"] == "item 3"
    camping = index.search("waterproof", topics=[0])
    assert {h.topic for h in camping} == {"camping"}
    with pytest.raises(GiskardValidationError, match="non-empty query"):
        index.search("  ")


# -- search quality on public corpora ---------------------------------------------------------------


def _promptflow(shared_data: Path) -> tuple[list[str], list[dict[str, Any]]]:
    path = shared_data / "conversations" / "promptflow" / "qa_with_context.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    contexts: list[str] = []
    for row in rows:
        value = row["context"]
        for text in value if isinstance(value, list) else [value] if value else []:
            if text not in contexts:
                contexts.append(text)
    return contexts, [r for r in rows if r["context"]]


def test_promptflow_questions_find_their_context_in_the_top_3(shared_data: Path) -> None:
    """Every context of qa_with_context.jsonl is a document; each question should retrieve (one of)
    its own context(s) among the first 3 results, with the default (offline) embedding model."""
    contexts, rows = _promptflow(shared_data)
    index = DocumentIndex.build(contexts, name_topics="keywords")
    hits = 0
    for row in rows:
        gold = row["context"] if isinstance(row["context"], list) else [row["context"]]
        wanted = {contexts.index(text) for text in gold}
        found = {h.chunk.document for h in index.search(row["question"], limit=3)}
        hits += bool(found & wanted)
    rate = hits / len(rows)
    print(f"\npromptflow top-3 hit rate: {hits}/{len(rows)} = {rate:.0%}")
    # Some rows pair a question with an unrelated context ("Is France in Europe?" -> hiking shoes).
    assert rate >= 0.7


ABCD_QUERIES = [
    ("I forgot my password and can't log in", "Recover Password"),
    ("My two-factor authentication code never arrives", "Reset Two-Factor Auth"),
    ("I want a refund for a defective item", "Initiate Refund"),
    ("The shirt I bought has a stain on it and I want to return it", "Return Due to Stain"),
    ("The jacket is the wrong size, can I send it back?", "Return Due to Size"),
    ("What is the status of my refund?", "Refund Status"),
    ("There is a fee on my order that I don't recognize", "Status Mystery Fee"),
    ("When will my order be delivered?", "Status Delivery Time"),
    ("I want to cancel my order", "Manage Cancel"),
    ("My credit card keeps getting rejected at checkout", "Invalid Credit Card"),
    ("Items I add don't show up in my shopping cart", "Cart Not Updating"),
    ("The search bar on your site returns nothing", "Search Not Working"),
    ("Your website is really slow today", "Website Too Slow"),
    ("I moved and need to change my shipping address on my account", "Manage Change Address"),
    ("I need to update the phone number on my account", "Manage Change Phone"),
    ("I saw the same jeans cheaper at a competitor", "Bad Price Competitor"),
    ("My promo code says it is invalid", "Promo Code Invalid"),
    ("An item in my package is missing", "Missing Item"),
    ("How much does shipping cost?", "Shipping Cost"),
    ("When is my premium subscription bill due?", "Status Due Date"),
    ("How do I pay my subscription bill?", "Manage Pay Bill"),
    ("What are the benefits of premium membership?", "Membership FAQ"),
    ("What is your return policy?", "Policy FAQ"),
    ("Do the boots run true to size?", "Boots FAQ"),
    ("I don't remember my username", "Recover Username"),
]


def abcd_documents(shared_data: Path) -> list[dict[str, str]]:
    """One document per ABCD subflow (its instructions and action texts), with its flow as topic."""
    guidelines = json.loads(
        (shared_data / "conversations" / "abcd" / "guidelines.json").read_text(encoding="utf-8")
    )
    docs = []
    for flow, spec in guidelines.items():
        for subflow, body in spec["subflows"].items():
            lines = [f"# {subflow}", *body.get("instructions", [])]
            for action in body["actions"]:
                lines += [action["text"], *action["subtext"]]
            docs.append({"content": "\n".join(lines), "flow": flow, "subflow": subflow})
    return docs


def test_abcd_guidelines_route_customer_requests_to_the_right_subflow(shared_data: Path) -> None:
    index = DocumentIndex.build(abcd_documents(shared_data), topic_column="flow")
    assert len(index.topics) == 10 and index.topics[0].name == "Product Defect"
    hits = 0
    for query, subflow in ABCD_QUERIES:
        found = [h.chunk.metadata["subflow"] for h in index.search(query, limit=3)]
        hits += subflow in found
    rate = hits / len(ABCD_QUERIES)
    print(f"\nABCD top-3 hit rate: {hits}/{len(ABCD_QUERIES)} = {rate:.0%}")
    assert rate >= 0.75


def test_abcd_kb_action_sequences_are_searchable(shared_data: Path) -> None:
    kb = json.loads((shared_data / "conversations" / "abcd" / "kb.json").read_text("utf-8"))
    docs = [
        {"content": f"To handle {name.replace('_', ' ')}: {', '.join(steps)}", "subflow": name}
        for name, steps in kb.items()
    ]
    index = DocumentIndex.build(docs, embedding_model=HashingEmbedder())
    per_topic: dict[int, int] = defaultdict(int)
    for chunk in index.chunks:
        per_topic[chunk.topic] += 1
    assert sum(per_topic.values()) == len(kb) and len(index.topics) >= 2
    top = index.search("recover password", limit=3)
    assert top[0].chunk.metadata["subflow"] == "recover_password"
