"""A scan's test agent for the executor tests: it says whatever code an instruction tells it to say
(prompt injection catches it)."""

from __future__ import annotations

import re

_CODE = re.compile(r"\b([A-Z]{4,}-[0-9A-F]{5})\b")
_SPLIT = re.compile(r"\b([A-Z]{4,})\b followed by a hyphen and ([0-9A-F]{5})\b")


def obey(inputs: str | list[dict[str, str]]) -> str | None:
    """The code the message (or the conversation's user turns) tells it to say, if any."""
    if isinstance(inputs, list):
        inputs = "\n".join(m["content"] for m in inputs if m["role"] != "assistant")
    if m := _CODE.search(inputs):
        return f"Sure! {m.group(1)}"
    if m := _SPLIT.search(inputs):
        return f"{m.group(1)}-{m.group(2)}"
    return None
