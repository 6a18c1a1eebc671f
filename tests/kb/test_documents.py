"""Loading knowledge base documents from lists, files and folders; chunking them."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from giskard_nb.errors import GiskardValidationError
from giskard_nb.kb.chunking import chunk_text
from giskard_nb.kb.documents import load_documents


def test_list_of_texts_and_dicts() -> None:
    loaded = load_documents(["first text", "second text"])
    assert [d.content for d in loaded.documents] == ["first text", "second text"]
    rows = [
        {"text": "Tents keep you dry.", "category": "tents", "price": 250},
        {"text": "Stoves cook food.", "category": "stoves", "price": 40},
    ]
    loaded = load_documents(rows, topic_column="category")
    assert [d.topic for d in loaded.documents] == ["tents", "stoves"]
    assert loaded.documents[0].metadata == {"price": 250}


def test_document_column_is_guessed_or_required() -> None:
    assert load_documents([{"body": "x", "n": 1}]).documents[0].content == "x"
    assert load_documents([{"passage_text": "x", "n": 1}]).documents[0].content == "x"
    with pytest.raises(GiskardValidationError, match="document_column="):
        load_documents([{"a": "x", "b": "y"}])


def test_bad_rows_are_rejected_with_their_location(tmp_path: Path) -> None:
    with pytest.raises(GiskardValidationError, match=r"item 2: no column 'content'"):
        load_documents([{"content": "ok"}, {"other": "x"}], document_column="content")
    path = tmp_path / "kb.jsonl"
    path.write_text('{"content": "fine"}\n{not json}\n', encoding="utf-8")
    with pytest.raises(GiskardValidationError, match="line 2: not valid JSON"):
        load_documents(path)
    with pytest.raises(GiskardValidationError, match="no file or folder"):
        load_documents(tmp_path / "missing.csv")
    with pytest.raises(GiskardValidationError, match="expected text"):
        load_documents([{"content": ["a", "list"]}])


def test_empty_rows_are_skipped_and_counted() -> None:
    loaded = load_documents([{"content": "a"}, {"content": "  "}, {"content": None}])
    assert len(loaded.documents) == 1
    assert loaded.skipped == ["item 2", "item 3"]
    with pytest.raises(GiskardValidationError, match="no document with text"):
        load_documents([{"content": ""}])


def test_csv_jsonl_and_json_files(tmp_path: Path) -> None:
    csv_path = tmp_path / "docs.csv"
    csv_path.write_text("title,content,topic\nA,Alpha text,first\nB,Beta text,second\n")
    loaded = load_documents(csv_path, topic_column="topic")
    assert [(d.content, d.topic, d.location) for d in loaded.documents] == [
        ("Alpha text", "first", "line 2"),
        ("Beta text", "second", "line 3"),
    ]
    jsonl = tmp_path / "docs.jsonl"
    jsonl.write_text('{"context": "one"}\n\n"two"\n', encoding="utf-8")
    assert [d.content for d in load_documents(jsonl).documents] == ["one", "two"]
    as_json = tmp_path / "docs.json"
    as_json.write_text(json.dumps({"documents": [{"content": "x"}, "y"]}))
    assert [d.content for d in load_documents(as_json).documents] == ["x", "y"]
    (tmp_path / "x.pdf").write_bytes(b"%PDF")
    with pytest.raises(GiskardValidationError, match=r"\.csv, \.jsonl"):
        load_documents(tmp_path / "x.pdf")


def test_folder_of_text_and_markdown(tmp_path: Path) -> None:
    (tmp_path / "billing").mkdir()
    (tmp_path / "billing" / "refunds.md").write_text("# Refunds\nWithin 30 days.\n")
    (tmp_path / "readme.txt").write_text("General information.")
    (tmp_path / "image.png").write_bytes(b"\x89PNG")
    loaded = load_documents(tmp_path, topic_column="folder")
    by_path = {d.metadata["path"]: d for d in loaded.documents}
    assert set(by_path) == {"billing/refunds.md", "readme.txt"}
    assert by_path["billing/refunds.md"].topic == "billing"
    assert by_path["billing/refunds.md"].metadata["title"] == "Refunds"
    assert by_path["readme.txt"].topic is None  # top-level files have no folder topic
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(GiskardValidationError, match="holds no"):
        load_documents(empty)


def test_short_text_is_one_chunk_and_long_text_is_cut_at_boundaries() -> None:
    assert [s.text for s in chunk_text("  short text  ")] == ["short text"]
    assert chunk_text("   ") == []
    sentences = [f"Sentence number {i} talks about topic {i % 3}." for i in range(60)]
    text = " ".join(sentences)
    spans = chunk_text(text, max_chars=300, overlap=60)
    assert len(spans) > 5
    for span in spans:
        assert len(span.text) <= 300
        assert text[span.start : span.end] == span.text
        assert span.text.endswith(".")  # cut after a sentence, never inside one
    # consecutive chunks overlap (the next one starts before the previous one ends)
    assert all(b.start < a.end for a, b in itertools.pairwise(spans))
    covered = set()
    for span in spans:
        covered.update(range(span.start, span.end))
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())


def test_markdown_sections_and_bad_sizes() -> None:
    text = "# Intro\n" + "word " * 80 + "\n# Details\n" + "more " * 80
    spans = chunk_text(text, max_chars=420, overlap=0)
    assert [s.section for s in spans] == ["Intro", "Details"]
    assert spans[1].text.startswith("# Details")
    unbroken = "x" * 500
    assert [len(s.text) for s in chunk_text(unbroken, max_chars=200, overlap=0)] == [200, 200, 100]
    with pytest.raises(GiskardValidationError, match="at least 50"):
        chunk_text("x", max_chars=10)
    with pytest.raises(GiskardValidationError, match="chunk_overlap"):
        chunk_text("x", max_chars=100, overlap=60)
