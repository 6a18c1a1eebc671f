"""Discovering the topics of a knowledge base: clustering its chunk embeddings, then naming clusters.

Clustering is spherical k-means (k-means++ seeding, several seeded restarts, so results are
reproducible). The number of topics, when not given, is the ``k`` between 2 and
``min(max_topics, √(2n))`` with the best silhouette (cosine distance, on a sample of at most 1500 chunks);
fewer than 4 chunks make one topic. Each cluster gets keywords by class-based TF-IDF (terms frequent in
the cluster and rare elsewhere) and a name: by the generator model when one is configured
(``name_topics_with_llm``), else from its three best keywords. A failing model falls back to keywords.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, Field

from giskard_nb.core.usage import Usage
from giskard_nb.kb.text import stem, words

__all__ = [
    "TopicDraft",
    "choose_k",
    "cluster",
    "keyword_name",
    "keywords_by_cluster",
    "name_topics_with_llm",
]

_SILHOUETTE_SAMPLE = 1500


@dataclass
class TopicDraft:
    """A topic before it is stored: its chunks, keywords, name and who named it."""

    name: str
    members: list[int]
    keywords: list[str]
    named_by: str = "keywords"  # "given" | "keywords" | "llm"


def cluster(
    embeddings: np.ndarray, *, n_topics: int | None = None, max_topics: int = 12, seed: int = 0
) -> np.ndarray:
    """A topic label per row of ``embeddings`` (unit-length rows), labels numbered by cluster size."""
    n = len(embeddings)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    k = n_topics if n_topics is not None else choose_k(embeddings, max_topics=max_topics, seed=seed)
    k = max(1, min(k, n))
    labels, _ = _kmeans(embeddings, k, seed=seed)
    sizes = Counter(labels.tolist())
    rename = {old: new for new, (old, _) in enumerate(sorted(sizes.items(), key=lambda x: -x[1]))}
    return np.array([rename[label] for label in labels.tolist()], dtype=np.int64)


def choose_k(embeddings: np.ndarray, *, max_topics: int = 12, seed: int = 0) -> int:
    """The number of clusters with the best silhouette (1 for fewer than 4 points)."""
    n = len(embeddings)
    if n < 4:
        return 1
    upper = max(2, min(max_topics, int(math.sqrt(2 * n)), n - 1))
    rng = np.random.default_rng(seed)
    sample = np.arange(n) if n <= _SILHOUETTE_SAMPLE else rng.choice(n, _SILHOUETTE_SAMPLE, False)
    distances = 1.0 - embeddings[sample] @ embeddings[sample].T
    best_k, best_score = 2, -2.0
    for k in range(2, upper + 1):
        labels, _ = _kmeans(embeddings, k, seed=seed)
        score = _silhouette(distances, labels[sample])
        if score > best_score + 1e-9:
            best_k, best_score = k, score
    return best_k


def _kmeans(
    x: np.ndarray, k: int, *, seed: int, restarts: int = 4, iterations: int = 100
) -> tuple[np.ndarray, float]:
    x = np.asarray(x, dtype=np.float64)
    best: tuple[np.ndarray, float] | None = None
    for attempt in range(restarts):
        rng = np.random.default_rng(seed * 1000 + attempt)
        centers = _plus_plus(x, k, rng)
        labels = np.full(len(x), -1)
        for _ in range(iterations):
            similarity = x @ centers.T
            new_labels = similarity.argmax(axis=1)
            if np.array_equal(new_labels, labels):
                break
            labels = new_labels
            for c in range(k):
                members = x[labels == c]
                if len(members) == 0:  # re-seed an empty cluster with the worst-served point
                    far = int(similarity.max(axis=1).argmin())
                    centers[c] = x[far]
                    labels[far] = c
                    continue
                center = members.sum(axis=0)
                norm = np.linalg.norm(center)
                centers[c] = center / norm if norm else members[0]
        inertia = float((1.0 - (x * centers[labels]).sum(axis=1)).sum())
        if best is None or inertia < best[1] - 1e-12:
            best = (labels.copy(), inertia)
    assert best is not None
    return best


def _plus_plus(x: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    centers = [x[rng.integers(len(x))]]
    closest = np.maximum(1.0 - x @ centers[0], 0.0)
    for _ in range(1, k):
        total = closest.sum()
        index = (
            int(rng.choice(len(x), p=closest / total)) if total > 0 else int(rng.integers(len(x)))
        )
        centers.append(x[index])
        closest = np.minimum(closest, np.maximum(1.0 - x @ x[index], 0.0))
    return np.array(centers, dtype=np.float64)


def _silhouette(distances: np.ndarray, labels: np.ndarray) -> float:
    clusters = np.unique(labels)
    if len(clusters) < 2:
        return -1.0
    per_cluster = np.stack([distances[:, labels == c].mean(axis=1) for c in clusters], axis=1)
    sizes = np.array([(labels == c).sum() for c in clusters])
    own = np.searchsorted(clusters, labels)
    n_own = sizes[own]
    a = np.where(
        n_own > 1, per_cluster[np.arange(len(labels)), own] * n_own / np.maximum(n_own - 1, 1), 0.0
    )
    others = per_cluster.copy()
    others[np.arange(len(labels)), own] = np.inf
    b = others.min(axis=1)
    s = np.where(n_own > 1, (b - a) / np.maximum(np.maximum(a, b), 1e-12), 0.0)
    return float(s.mean())


def keywords_by_cluster(
    texts: Sequence[str], labels: Sequence[int], *, n_keywords: int = 5
) -> dict[int, list[str]]:
    """The most distinctive words of each cluster (class-based TF-IDF), in their commonest form."""
    counts: dict[int, Counter[str]] = defaultdict(Counter)
    surface: dict[str, Counter[str]] = defaultdict(Counter)
    for text, label in zip(texts, labels, strict=True):
        for word in words(text):
            if len(word) < 3 or not word.isalpha():
                continue
            term = stem(word)
            counts[int(label)][term] += 1
            surface[term][word] += 1
    overall: Counter[str] = Counter()
    for counter in counts.values():
        overall.update(counter)
    average = sum(overall.values()) / max(len(counts), 1)
    result = {}
    for label, counter in counts.items():
        total = sum(counter.values()) or 1
        scored = sorted(
            counter,
            key=lambda t: (-(counter[t] / total) * math.log(1 + average / overall[t]), t),
        )
        result[label] = [surface[t].most_common(1)[0][0] for t in scored[:n_keywords]]
    return result


def keyword_name(keywords: Sequence[str], taken: set[str] | None = None) -> str:
    """A readable name from keywords ("Tent, rainfly, waterproof"), unique among ``taken``."""
    if not keywords:
        name = "Other"
    else:
        name = ", ".join(keywords[:3])
        name = name[0].upper() + name[1:]
    if taken is not None:
        base, i = name, 2
        while name.lower() in taken:
            extra = keywords[i + 1] if i + 1 < len(keywords) else str(i)
            name, i = f"{base}, {extra}", i + 1
        taken.add(name.lower())
    return name


class _TopicName(BaseModel):
    index: int
    name: str = Field(min_length=1)


class _TopicNames(BaseModel):
    topics: list[_TopicName]


async def name_topics_with_llm(
    generator: object,
    samples: dict[int, list[str]],
    keywords: dict[int, list[str]],
    *,
    max_chars: int = 400,
) -> tuple[dict[int, str], Usage]:
    """Short, distinct topic names written by the generator from a few excerpts of each cluster.

    Names missing, empty, duplicated or longer than 60 characters are left out (the caller keeps the
    keyword names for those)."""
    from giskard_nb.llm.structured import ask_structured
    from giskard_nb.llm.templates import TemplateReference

    clusters = [
        {
            "index": label,
            "keywords": keywords.get(label, []),
            "excerpts": [" ".join(s.split())[:max_chars] for s in samples[label]],
        }
        for label in sorted(samples)
    ]
    prompt = TemplateReference(template_name="giskard_nb.kb::topic_names.j2")
    answer = await ask_structured(generator, prompt, _TopicNames, inputs={"clusters": clusters})
    names: dict[int, str] = {}
    seen: set[str] = set()
    for item in answer.value.topics:
        name = " ".join(item.name.strip().strip("\"'`*").split())
        if item.index in samples and 0 < len(name) <= 60 and name.lower() not in seen:
            names[item.index] = name
            seen.add(name.lower())
    return names, answer.usage
