"""Cutting documents into chunks that fit a prompt and are specific enough to retrieve.

A document no longer than ``max_chars`` is one chunk. A longer one is cut at the best boundary that
keeps each chunk under ``max_chars``: Markdown headings first, then blank lines, then line ends, then
sentence ends, then spaces, and only as a last resort inside a word. Consecutive chunks share up to
``overlap`` characters (whole sentences or words) so an answer spanning a cut is still found. Each chunk
remembers its character span in the document and, for Markdown, the heading it falls under.
"""

from __future__ import annotations

from dataclasses import dataclass

import regex

from giskard_nb.errors import GiskardValidationError

__all__ = ["DEFAULT_MAX_CHARS", "DEFAULT_OVERLAP", "TextSpan", "chunk_text"]

DEFAULT_MAX_CHARS = 1200
DEFAULT_OVERLAP = 150

#: Boundaries, best first: (pattern matching the separator, name). A cut is made after the separator.
_BOUNDARIES = (
    regex.compile(r"\n(?=#{1,6} )"),
    regex.compile(r"\n[ \t]*\n"),
    regex.compile(r"\n"),
    regex.compile(r"(?<=[.!?;:。！？])[\"')\]]*\s+"),
    regex.compile(r"\s+"),
)
_HEADING = regex.compile(r"^(#{1,6}) +(.+?)\s*#*\s*$", regex.MULTILINE)


@dataclass(frozen=True)
class TextSpan:
    """A chunk: ``text`` is ``document[start:end]`` (stripped); ``section`` the Markdown heading above."""

    text: str
    start: int
    end: int
    section: str | None = None


def chunk_text(
    text: str, *, max_chars: int = DEFAULT_MAX_CHARS, overlap: int = DEFAULT_OVERLAP
) -> list[TextSpan]:
    """The chunks of ``text`` (empty text gives no chunk)."""
    if max_chars < 50:
        raise GiskardValidationError(f"chunk_size must be at least 50 characters, got {max_chars}")
    if not 0 <= overlap < max_chars // 2:
        raise GiskardValidationError(
            f"chunk_overlap must be between 0 and half the chunk size ({max_chars // 2}), got {overlap}"
        )
    headings = [(m.start(), m.group(2).strip()) for m in _HEADING.finditer(text)]
    spans = []
    start = _skip_space(text, 0)
    while start < len(text):
        end = len(text) if len(text) - start <= max_chars else _cut(text, start, max_chars)
        piece = text[start:end].strip()
        if piece:
            first = start + (len(text[start:end]) - len(text[start:end].lstrip()))
            spans.append(TextSpan(piece, first, first + len(piece), _section(headings, first)))
        if end >= len(text):
            break
        start = _skip_space(text, _overlap_start(text, start, end, overlap))
    return spans


def _cut(text: str, start: int, max_chars: int) -> int:
    """The end of the chunk starting at ``start``: the best boundary in its second half, if any."""
    limit = start + max_chars
    window = text[start:limit]
    floor = max_chars // 3  # never cut so early that chunks become tiny
    for pattern in _BOUNDARIES:
        ends = [m.end() for m in pattern.finditer(window) if m.end() >= floor]
        if ends:
            return start + ends[-1]
    return limit


def _overlap_start(text: str, start: int, end: int, overlap: int) -> int:
    """Where the next chunk starts: ``end`` moved back by at most ``overlap`` to a sentence or word."""
    if overlap == 0:
        return end
    lower = max(start + (end - start) // 2, end - overlap)
    window = text[lower:end]
    for pattern in _BOUNDARIES[3:]:
        found = [m.end() for m in pattern.finditer(window)]
        if found:
            return lower + found[0]
    return end


def _skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index].isspace():
        index += 1
    return index


def _section(headings: list[tuple[int, str]], position: int) -> str | None:
    current = None
    for offset, title in headings:
        if offset > position:
            break
        current = title
    return current
