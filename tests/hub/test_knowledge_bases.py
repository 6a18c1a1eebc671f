"""hub.knowledge_bases: create from lists, files and folders; topics; search; frames; chart; audit."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from giskard_nb.errors import GiskardValidationError, NotFoundError
from giskard_nb.hub import Hub
from giskard_nb.kb import HashingEmbedder

_spec = importlib.util.spec_from_file_location(
    "giskard_nb_test_kb_search", Path(__file__).resolve().parents[1] / "kb" / "test_search.py"
)
assert _spec and _spec.loader
kb_search = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(kb_search)

DOCS = [
    {"content": "The TrailMaster X4 tent is waterproof to 2000mm.", "category": "tents", "sku": 1},
    {"content": "The Alpine tent weighs 2 kg and sleeps two.", "category": "tents", "sku": 2},
    {"content": "Refunds are issued within 30 days of purchase.", "category": "billing", "sku": 3},
]


def test_create_store_and_search_on_every_backend(hub: Hub) -> None:
    project = hub.projects.create("shop")
    kb = hub.knowledge_bases.create(
        project.id, DOCS, name="catalog", topic_column="category", description="products"
    )
    assert (kb.n_documents, kb.n_topics, kb.topics_named_by) == (3, 2, "given")
    assert kb.embedding_model == "wordllama/l2_supercat-256"
    topics = hub.knowledge_bases.list_topics(kb.id)
    assert [(t.name, t.document_count) for t in topics] == [("tents", 2), ("billing", 1)]
    documents = hub.knowledge_bases.list_documents(kb.id)
    assert [d.metadata["sku"] for d in documents] == [1, 2, 3]
    assert documents[2].topic_id == topics[1].id
    # a fresh Hub object on the same database reads the stored vectors
    results = hub.knowledge_bases.search_documents(kb.id, "how long do refunds take", limit=2)
    assert results[0].content == DOCS[2]["content"] and results[0].topic_name == "billing"
    assert results[0].document_id == documents[2].id
    only_tents = hub.knowledge_bases.search_documents(
        kb.id, "refund", limit=3, topic_ids=[topics[0].id]
    )
    assert {r.topic_name for r in only_tents} == {"tents"}
    assert hub.knowledge_bases.context_for(kb.id, "Is the X4 waterproof?", limit=1) == [
        DOCS[0]["content"]
    ]
    assert kb.search("waterproof tent", limit=1)[0].metadata["sku"] == 1
    assert [k.id for k in hub.knowledge_bases.list(project_id=project.id)] == [kb.id]


def test_files_folders_and_bad_input(mem_hub: Hub, tmp_path: Path) -> None:
    project = mem_hub.projects.create("docs")
    (tmp_path / "docs" / "billing").mkdir(parents=True)
    (tmp_path / "docs" / "billing" / "refunds.md").write_text("# Refunds\nWithin 30 days.")
    (tmp_path / "docs" / "shipping.txt").write_text("We ship worldwide in 5 days.")
    kb = mem_hub.knowledge_bases.create(project.id, tmp_path / "docs", name="folder")
    assert kb.n_documents == 2 and kb.source.endswith("docs")
    jsonl = tmp_path / "kb.jsonl"
    jsonl.write_text('{"text": "one"}\n{"text": ""}\n{"text": "two"}\n')
    kb2 = mem_hub.knowledge_bases.create(project.id, jsonl, name="lines", document_column="text")
    assert (kb2.n_documents, kb2.skipped) == (2, 1)
    with pytest.raises(GiskardValidationError, match="needs data="):
        mem_hub.knowledge_bases.create(project.id, name="nothing")
    before = len(mem_hub.knowledge_bases.list())
    with pytest.raises(GiskardValidationError, match="item 2"):
        mem_hub.knowledge_bases.create(project.id, [{"content": "a"}, {"x": 1}], name="bad")
    assert len(mem_hub.knowledge_bases.list()) == before  # nothing stored
    with pytest.raises(NotFoundError, match="hub.projects.list"):
        mem_hub.knowledge_bases.create("nope", ["a"], name="x")


def test_discovered_topics_rename_audit_and_delete(mem_hub: Hub) -> None:
    project = mem_hub.projects.create("p")
    texts = [
        "tent rainfly waterproof stakes",
        "tent poles rainfly camping",
        "waterproof tent for camping",
        "refund payment invoice card",
        "refund invoice billing payment",
        "payment card refund billing",
    ]
    mem_hub.knowledge_bases.embedding_model = HashingEmbedder()
    kb = mem_hub.knowledge_bases.create(project.id, texts, name="auto", name_topics="keywords")
    topics = kb.topics()
    assert len(topics) == 2 and kb.topics_named_by == "keywords"
    assert all(t.keywords for t in topics)
    renamed = mem_hub.knowledge_bases.update_topic(topics[0].id, name="Camping")
    assert renamed.named_by == "user"
    hits = kb.search("tent", limit=1)
    assert hits[0].topic_name in ("Camping", topics[1].name)
    kinds = [(e.action, e.entity_type) for e in mem_hub.audit.search(project_id=project.id)]
    assert ("create", "knowledge_base") in kinds and ("update", "kb_topic") in kinds
    assert not any(kind == "kb_document" for _, kind in kinds)  # chunks are not audited one by one
    document_id = kb.documents()[0].id
    assert mem_hub.knowledge_bases.retrieve_document(document_id).content in texts
    mem_hub.knowledge_bases.delete(kb.id)
    with pytest.raises(NotFoundError, match="list_documents"):
        mem_hub.knowledge_bases.retrieve_document(document_id)
    with mem_hub._db.read() as conn:  # topics, documents and vectors went with it
        for table in ("hub_kb_topics", "hub_kb_documents", "hub_kb_vectors"):
            assert conn.exec_driver_sql(f"select count(*) from {table}").scalar() == 0


def test_changed_embedding_model_re_embeds_and_stores(mem_hub: Hub) -> None:
    project = mem_hub.projects.create("p")
    kb = mem_hub.knowledge_bases.create(
        project.id, DOCS, name="c", embedding_model=HashingEmbedder(64)
    )
    assert kb.embedding_model == "hashing-64"
    mem_hub.knowledge_bases.embedding_model = HashingEmbedder(128)
    assert mem_hub.knowledge_bases.search_documents(kb.id, "refund", 1)[0].content.startswith(
        "Refunds"
    )
    assert mem_hub.knowledge_bases.retrieve(kb.id).embedding_model == "hashing-128"
    with pytest.raises(NotFoundError, match="no topic"):
        mem_hub.knowledge_bases.search_documents(kb.id, "x", topic_ids=["missing"])


def test_a_search_result_is_the_index_hit_placed_in_the_hub(mem_hub: Hub) -> None:
    project = mem_hub.projects.create("p")
    kb = mem_hub.knowledge_bases.create(
        project.id, DOCS, name="c", topic_column="category", embedding_model=HashingEmbedder(64)
    )
    (top,) = mem_hub.knowledge_bases.search_documents(kb.id, "refunds within 30 days", 1)
    hit = top.hit
    assert (top.content, top.score, top.lexical_score, top.semantic_score) == (
        hit.content,
        hit.score,
        hit.lexical_score,
        hit.semantic_score,
    )
    assert top.content == DOCS[2]["content"] and top.topic_name == hit.topic == "billing"
    dumped = top.model_dump()
    assert set(dumped) == {
        *("document_id", "knowledge_base_id", "content", "score", "lexical_score"),
        *("semantic_score", "topic_id", "topic_name", "metadata"),
    }
    assert dumped["metadata"]["sku"] == 3 and dumped["knowledge_base_id"] == kb.id
    assert "hit" not in repr(top) and "KBSearchResult" in repr(top)
    top.metadata["sku"] = "changed"  # a copy: the cached index keeps its chunk's metadata
    again = mem_hub.knowledge_bases.search_documents(kb.id, "refunds within 30 days", 1)
    assert again[0].metadata["sku"] == 3 and again[0].document_id == top.document_id


def test_frames_and_topic_chart(mem_hub: Hub) -> None:
    project = mem_hub.projects.create("p")
    evil = [{"content": "x <script>alert(1)</script> tent", "category": "<b>bold</b>"}, *DOCS]
    kb = mem_hub.knowledge_bases.create(project.id, evil, name="kb", topic_column="category")
    df = kb.to_dataframe()
    assert list(df["topic_name"]) == ["<b>bold</b>", "tents", "tents", "billing"]
    assert json.loads(df["metadata"][1])["sku"] == 1
    topics = mem_hub.knowledge_bases.topics_dataframe(kb.id)
    assert list(topics["document_count"]) == [1, 2, 1]
    kbs = mem_hub.knowledge_bases.to_dataframe(project_id=project.id)
    assert kbs.loc[0, "n_documents"] == 4 and str(kbs["created_at"].dt.tz) == "UTC"
    figure = kb.plot_topics()
    bar = figure.data[0]
    assert list(bar.x) == [1, 1, 2] and "&lt;b&gt;bold&lt;/b&gt;" in list(bar.y)
    assert "<b>bold</b>" not in list(bar.y)


def test_abcd_knowledge_base_in_the_hub(mem_hub: Hub, shared_data: Path) -> None:
    project = mem_hub.projects.create("abcd")
    kb = mem_hub.knowledge_bases.create(
        project.id, kb_search.abcd_documents(shared_data), name="abcd", topic_column="flow"
    )
    assert kb.n_topics == 10
    top = mem_hub.knowledge_bases.search_documents(kb.id, "I forgot my password", limit=3)
    assert "Recover Password" in [r.metadata["subflow"] for r in top]


def test_topics_named_by_the_configured_generator(mem_hub: Hub) -> None:
    from giskard_nb.errors import ConfigError
    from giskard_nb.llm import set_default_generator
    from giskard_nb.testing import FakeLLMServer

    texts = [
        "tent rainfly waterproof stakes",
        "tent poles rainfly camping",
        "refund payment invoice card",
        "refund invoice billing payment",
    ]
    project = mem_hub.projects.create("p")
    mem_hub.knowledge_bases.embedding_model = HashingEmbedder()
    with pytest.raises(ConfigError, match="GISKARD_NB_MODEL"):
        mem_hub.knowledge_bases.create(project.id, texts, name="x", name_topics="llm")

    def namer(request):
        blocks = request.last_user_message.split("## Cluster ")[1:]
        return {
            "topics": [
                {"index": int(b.split("\n", 1)[0]), "name": "Camping" if "tent" in b else "Billing"}
                for b in blocks
            ]
        }

    with FakeLLMServer(reply=namer) as server:
        set_default_generator(server.generator())
        try:
            kb = mem_hub.knowledge_bases.create(project.id, texts, name="named")
        finally:
            set_default_generator(None)
    assert kb.topics_named_by == "llm" and kb.usage.llm_calls == 1
    assert sorted(t.name for t in kb.topics()) == ["Billing", "Camping"]
