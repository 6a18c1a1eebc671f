"""Knowledge bases (security review item 13): a folder's symbolic links never lead out of it, and a
search query that is not valid Unicode is searched, not sent to the embedding model as is."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from giskard_nb.kb import DocumentIndex
from giskard_nb.kb.documents import load_documents
from giskard_nb.testing import FakeLLMServer


@pytest.fixture
def folder_with_links(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "passwd.txt").write_text("root:x:0:0:root:/root:/bin/bash SECRET-OUTSIDE")
    (outside / "notes").mkdir()
    (outside / "notes" / "private.md").write_text("# Private\nSECRET-DIR")
    kb = tmp_path / "kb"
    (kb / "faq").mkdir(parents=True)
    (kb / "faq" / "returns.md").write_text("# Returns\nReturn any item within 30 days.")
    (kb / "shipping.txt").write_text("We ship to 40 countries.")
    os.symlink(kb / "shipping.txt", kb / "faq" / "shipping-link.txt")  # inside: kept
    os.symlink(outside / "passwd.txt", kb / "passwd.txt")  # a file outside: skipped
    os.symlink(outside / "notes", kb / "notes")  # a folder outside: not walked into
    os.symlink(kb, kb / "faq" / "loop")  # a loop back to the root: not walked into
    return kb


def test_a_folder_knowledge_base_never_reads_through_links_out_of_it(
    folder_with_links: Path, caplog: pytest.LogCaptureFixture
) -> None:
    loaded = load_documents(folder_with_links)
    texts = "\n".join(d.content for d in loaded.documents)
    assert "SECRET-OUTSIDE" not in texts and "SECRET-DIR" not in texts
    assert "30 days" in texts and texts.count("40 countries") == 2
    assert "passwd.txt" in caplog.text  # said, not silently dropped


async def test_searching_a_lone_surrogate_reaches_the_embedding_model_as_valid_text() -> None:
    with FakeLLMServer() as fake:
        index = await DocumentIndex.abuild(
            ["Return any item within 30 days.", "We ship to 40 countries."],
            embedding_model=fake.embedding_model(),
        )
        hits = await index.asearch("refund \ud800 within 30 days")
        assert hits and "30 days" in hits[0].content
        assert all("\ud800" not in str(r.body) for r in fake.embedding_requests)
