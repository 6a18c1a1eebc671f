"""Hybrid retrieval: BM25 and embedding similarity, fused by reciprocal rank.

Each signal ranks the chunks on its own: BM25 ranks the chunks sharing at least one query term, cosine
similarity ranks them all. The fused score is ``Σ weight / (k + rank)`` over the signals (reciprocal
rank fusion), which needs no calibration between BM25's unbounded scores and cosines and is robust when
one signal is weak: exact names and numbers are found by BM25, paraphrases by embeddings. ``k`` is 5
rather than the customary 60: a small ``k`` favours each signal's first results, so the top three
usually hold both BM25's best and the embedding's best (it scored best on the promptflow and ABCD
search tests in ``tests/kb``).
Without embeddings the ranking is BM25 alone (then cosine-free ties keep index order).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from giskard_nb.errors import GiskardValidationError
from giskard_nb.kb.bm25 import BM25Index
from giskard_nb.kb.text import terms

__all__ = ["RRF_K", "HybridRetriever", "Ranked"]

RRF_K = 5


@dataclass(frozen=True)
class Ranked:
    """One retrieved item: its ``index``, fused ``score`` and each signal's score and rank (1-based;
    ``None`` when that signal did not rank it)."""

    index: int
    score: float
    lexical_score: float
    semantic_score: float | None
    lexical_rank: int | None
    semantic_rank: int | None


class HybridRetriever:
    """Ranks ``texts`` for a query. ``embeddings`` are unit-length rows aligned with ``texts``."""

    def __init__(
        self,
        texts: Sequence[str],
        embeddings: np.ndarray | None = None,
        *,
        lexical_weight: float = 1.0,
        semantic_weight: float = 1.0,
    ):
        if embeddings is not None and len(embeddings) != len(texts):
            raise GiskardValidationError(
                f"{len(embeddings)} embeddings for {len(texts)} texts: they must be aligned"
            )
        if lexical_weight < 0 or semantic_weight < 0 or lexical_weight + semantic_weight == 0:
            raise GiskardValidationError("search weights are non-negative and not both zero")
        self.bm25 = BM25Index([terms(t) for t in texts])
        self.embeddings = embeddings
        self.lexical_weight, self.semantic_weight = lexical_weight, semantic_weight

    def __len__(self) -> int:
        return len(self.bm25)

    def rank(
        self,
        query: str,
        query_embedding: np.ndarray | None = None,
        *,
        limit: int = 5,
        allowed: np.ndarray | None = None,
    ) -> list[Ranked]:
        """The best ``limit`` items for ``query``; ``allowed`` is a boolean mask restricting them."""
        n = len(self)
        if limit <= 0 or n == 0:
            return []
        mask = np.ones(n, dtype=bool) if allowed is None else np.asarray(allowed, dtype=bool)
        lexical = self.bm25.scores(terms(query))
        lexical_rank = _ranks(lexical, mask & (lexical > 0))
        fused = np.zeros(n, dtype=np.float64)
        has_lexical = lexical_rank > 0
        fused[has_lexical] += self.lexical_weight / (RRF_K + lexical_rank[has_lexical])
        semantic = None
        semantic_rank = np.zeros(n, dtype=np.int64)
        if query_embedding is not None and self.embeddings is not None and self.semantic_weight:
            vector = np.asarray(query_embedding, dtype=np.float32).reshape(-1)
            if vector.shape[0] != self.embeddings.shape[1]:
                raise GiskardValidationError(
                    f"the query embedding has {vector.shape[0]} dimensions, the index "
                    f"{self.embeddings.shape[1]}: embed queries with the model that built the index"
                )
            semantic = (self.embeddings @ vector).astype(np.float64)
            semantic_rank = _ranks(semantic, mask)
            ranked = semantic_rank > 0
            fused[ranked] += self.semantic_weight / (RRF_K + semantic_rank[ranked])
        candidates = np.flatnonzero(mask & (fused > 0))
        # Ties (equal fused scores) break on the lexical score, then on the index.
        order = sorted(candidates, key=lambda i: (-fused[i], -lexical[i], i))[:limit]
        return [
            Ranked(
                index=int(i),
                score=float(fused[i]),
                lexical_score=float(lexical[i]),
                semantic_score=None if semantic is None else float(semantic[i]),
                lexical_rank=int(lexical_rank[i]) or None,
                semantic_rank=int(semantic_rank[i]) or None,
            )
            for i in order
        ]


def _ranks(scores: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """1-based rank of each masked item by descending score (0 for items not ranked)."""
    ranks = np.zeros(len(scores), dtype=np.int64)
    eligible = np.flatnonzero(mask)
    if len(eligible):
        order = eligible[np.argsort(-scores[eligible], kind="stable")]
        ranks[order] = np.arange(1, len(order) + 1)
    return ranks
