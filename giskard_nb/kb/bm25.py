"""Okapi BM25 over an inverted index (numpy; no extra dependency).

``BM25Index(documents_terms)`` indexes lists of terms (from ``giskard_nb.kb.text.terms``);
``scores(query_terms)`` gives one score per document (0 where no query term occurs). The IDF is the
non-negative ``log(1 + (N - df + 0.5) / (df + 0.5))`` so a term present everywhere never counts against
a document; repeated query terms count once per occurrence, as in the original formulation.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np

__all__ = ["BM25Index"]


class BM25Index:
    """A BM25 index over ``documents`` (each a list of terms). ``k1`` saturates term frequency, ``b``
    normalizes by document length."""

    def __init__(self, documents: Sequence[Sequence[str]], *, k1: float = 1.2, b: float = 0.75):
        self.k1, self.b = k1, b
        self.n_documents = len(documents)
        lengths = np.array([len(d) for d in documents], dtype=np.float64)
        self._lengths = lengths
        average = float(lengths.mean()) if len(lengths) and lengths.sum() else 1.0
        self._norm = k1 * (1.0 - b + b * lengths / average)
        postings: dict[str, tuple[list[int], list[int]]] = {}
        for index, document in enumerate(documents):
            for term, count in Counter(document).items():
                ids, tfs = postings.setdefault(term, ([], []))
                ids.append(index)
                tfs.append(count)
        self._postings = {
            term: (np.array(ids, dtype=np.int64), np.array(tfs, dtype=np.float64))
            for term, (ids, tfs) in postings.items()
        }
        self._idf = {term: self._idf_of(len(ids)) for term, (ids, _) in postings.items()}

    def _idf_of(self, df: int) -> float:
        return math.log(1.0 + (self.n_documents - df + 0.5) / (df + 0.5))

    @property
    def vocabulary_size(self) -> int:
        return len(self._postings)

    def idf(self, term: str) -> float:
        """The IDF of a term (that of a term seen in no document if unknown)."""
        return self._idf.get(term, self._idf_of(0))

    def scores(self, query: Sequence[str]) -> np.ndarray:
        """The BM25 score of every document for the query terms."""
        result = np.zeros(self.n_documents, dtype=np.float64)
        for term, repeat in Counter(query).items():
            posting = self._postings.get(term)
            if posting is None:
                continue
            ids, tfs = posting
            weight = self._idf[term] * repeat
            result[ids] += weight * tfs * (self.k1 + 1.0) / (tfs + self._norm[ids])
        return result

    def __len__(self) -> int:
        return self.n_documents

    def __repr__(self) -> str:
        return f"<BM25Index documents={self.n_documents} terms={self.vocabulary_size}>"
