"""Text processing shared by lexical search, the hashing embedder and topic keywords.

``terms(text)`` lower-cases (NFKC), splits on Unicode word characters, drops English stop words and
applies a light suffix-stripping stemmer, so "tents", "tent" and "tenting" meet. ``words`` keeps the
surface forms (for readable topic names).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

import regex

__all__ = ["STOP_WORDS", "normalize", "stem", "terms", "words"]

_WORD = regex.compile(r"[\p{L}\p{N}]+(?:['’][\p{L}]+)?")

_STOP_TEXT = """a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have
    having he her here hers herself him himself his how i if in into is it its itself just me more most my
    myself no nor not now of off on once only or other our ours ourselves out over own same she should so
    some such than that the their theirs them themselves then there these they this those through to too
    under until up very was we were what when where which while who whom why will with would you your
    yours yourself yourselves also may might must shall us via per etc e g ie eg s t don't can't won't
    i'm it's that's there's what's let's"""
STOP_WORDS = frozenset(_STOP_TEXT.split())


def normalize(text: str) -> str:
    """NFKC, lower case, collapsed whitespace."""
    return " ".join(unicodedata.normalize("NFKC", text).lower().split())


def words(text: str) -> list[str]:
    """The lower-cased words of ``text`` that are not stop words (surface forms)."""
    lowered = unicodedata.normalize("NFKC", text).lower()
    return [
        w.replace("’", "'") for w in _WORD.findall(lowered) if w.replace("’", "'") not in STOP_WORDS
    ]


def terms(text: str) -> list[str]:
    """The stemmed index terms of ``text`` (what lexical search matches on)."""
    return [stem(w) for w in words(text)]


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light English stemmer: plurals, -ing, -ed, -ly, possessives. Numbers and short words stay."""
    if word.endswith("'s"):
        word = word[:-2]
    if len(word) <= 3 or not word.isalpha():
        return word
    for suffix, replacement, min_len in _RULES:
        if word.endswith(suffix) and len(word) - len(suffix) >= min_len:
            word = word[: len(word) - len(suffix)] + replacement
            if (
                not replacement
                and len(word) >= 4
                and word[-1] == word[-2]
                and word[-1] not in "lsz"
            ):
                word = word[:-1]  # "running" -> "runn" -> "run"
            break
    return word


#: (suffix, replacement, minimal stem length), first match wins.
_RULES = (
    ("ational", "ate", 3),
    ("ization", "ize", 3),
    ("fulness", "ful", 3),
    ("iveness", "ive", 3),
    ("ations", "ate", 3),
    ("ation", "ate", 3),
    ("ingly", "", 3),
    ("ement", "", 4),
    ("ments", "", 4),
    ("ment", "", 4),
    ("ies", "y", 2),
    ("ied", "y", 2),
    ("sses", "ss", 2),
    ("ness", "", 3),
    ("ing", "", 3),
    ("edly", "", 3),
    ("ed", "", 3),
    ("ly", "", 4),
    ("es", "e", 3),
    ("ss", "ss", 2),
    ("us", "us", 2),
    ("is", "is", 2),
    ("s", "", 3),
)
