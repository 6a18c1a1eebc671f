"""Dropping duplicate generated test cases: same normalized text, or embeddings nearly identical.

``Deduplicator`` remembers what it has accepted (and, optionally, the test cases a dataset already
holds), so cases generated in several batches are compared with all earlier ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import regex

from giskard_nb.kb.embedding import embed_matrix

__all__ = ["NEAR_DUPLICATE", "Deduplicator", "keep_new_cases", "normalize_case_text"]

#: Cosine similarity from which two cases count as the same question.
NEAR_DUPLICATE = 0.97
_PUNCT = regex.compile(r"[\p{P}\p{S}]+")


def normalize_case_text(text: str) -> str:
    """Lower case, no punctuation, single spaces: "Can I get a refund?!" == "can i get a refund"."""
    return " ".join(_PUNCT.sub(" ", text.casefold()).split())


class Deduplicator:
    """Accepts texts that are neither exact (normalized) nor near (embedding) duplicates of earlier ones.

    ``embedding_model=None`` compares normalized texts only."""

    def __init__(
        self,
        *,
        embedding_model: Any = None,
        threshold: float = NEAR_DUPLICATE,
        existing: Iterable[str] = (),
    ):
        self.embedding_model = embedding_model
        self.threshold = threshold
        self._seen: set[str] = set()
        self._vectors: list[np.ndarray] = []
        self._pending_existing = [t for t in existing if t]

    async def filter(self, texts: Sequence[str]) -> list[bool]:
        """For each text, whether it is new (and then remembered)."""
        if self._pending_existing:
            existing, self._pending_existing = self._pending_existing, []
            await self.filter(existing)
        keep = []
        vectors = None
        if self.embedding_model is not None and texts:
            vectors = await embed_matrix(self.embedding_model, list(texts))
        for i, text in enumerate(texts):
            key = normalize_case_text(text)
            new = bool(key) and key not in self._seen
            if new and vectors is not None and self._vectors:
                similarity = np.stack(self._vectors) @ vectors[i]
                new = float(similarity.max()) < self.threshold
            if new:
                self._seen.add(key)
                if vectors is not None:
                    self._vectors.append(vectors[i])
            keep.append(new)
        return keep


async def keep_new_cases(
    dedup: Deduplicator, cases: Sequence[Any], result: Any, limit: int
) -> list[str]:
    """Add to ``result.cases`` the ``cases`` that are not duplicates, while it holds fewer than ``limit``,
    counting the duplicates in ``result.duplicates``; the questions of the cases added."""
    keep = await dedup.filter([c.text() for c in cases])
    added = []
    for case, new in zip(cases, keep, strict=True):
        if not new:
            result.duplicates += 1
        elif len(result.cases) < limit:
            result.cases.append(case)
            added.append(case.question)
    return added
