"""The page frame every report and viewer page shares: the jinja2 environment (autoescape on, bidi
controls made visible), the inline stylesheet and script, the Content-Security-Policy and its nonce.

Everything a page shows from an agent, a dataset or a stored row goes through ``{{ }}``: jinja2 escapes
it, and ``visible`` first turns the invisible characters that reorder text (Unicode bidi controls, the
"Trojan Source" trick) into a visible ``<U+202E>``."""

from __future__ import annotations

import re
import secrets
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from giskard_nb.core.sanitize import valid_unicode
from giskard_nb.llm.sandbox import sandbox
from giskard_nb.palette import GRADE_COLORS, NO_GRADE_COLOR, STATUS_COLORS, STATUSES

__all__ = ["MAX_TEXT", "clip", "csp", "render_page", "visible"]

TEMPLATES = Path(__file__).parent / "templates"
#: The longest text a page shows whole (a reply, a message, a reason); the rest is cut with a note.
MAX_TEXT = 20_000
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def visible(value: Any) -> Any:
    """``value`` with each bidi control replaced by its visible code (``<U+202E>``) and each lone
    surrogate by U+FFFD (a page must encode as UTF-8); other values, and the page's own markup, as
    they are."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return _BIDI.sub(lambda m: f"<U+{ord(m.group()):04X}>", valid_unicode(value))
    return value


def clip(value: Any, limit: int = MAX_TEXT) -> str:
    """``value`` as text, at most ``limit`` characters (then how many were left out)."""
    text = "" if value is None else str(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters not shown)"


def csp(nonce: str) -> str:
    """The policy of every page: nothing loaded from anywhere, only the page's own style and script
    (``nonce``) run, forms submit to the page's origin only."""
    return (
        f"default-src 'none'; style-src 'nonce-{nonce}'; script-src 'nonce-{nonce}'; "
        "img-src data:; form-action 'self'; base-uri 'none'"
    )


@cache
def _environment() -> jinja2.Environment:
    # the package's hardened sandbox (giskard_nb.llm.sandbox), like every jinja2 environment of giskard-nb
    env = sandbox(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        finalize=visible,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["clip"] = clip
    env.filters["pct"] = lambda v: "—" if v is None else f"{v:.0%}"
    env.globals.update(
        STATUSES=STATUSES,
        STATUS_OPTIONS=[(s, s) for s in STATUSES],
        STATUS_COLORS=STATUS_COLORS,
        GRADE_COLORS=GRADE_COLORS,
        NO_GRADE_COLOR=NO_GRADE_COLOR,
    )
    return env


@cache
def _asset(name: str) -> Markup:
    return Markup((TEMPLATES / name).read_text(encoding="utf-8"))  # our own file, not input


def render_page(
    template: str, *, title: str, live: bool = False, **context: Any
) -> tuple[str, str]:
    """The page ``template`` renders, and its nonce (the viewer sends the same policy as a header).

    ``live``: served by the viewer (filters and links go to the server); else a standalone file
    (filters run in the page's small script, links stay within the page)."""
    nonce = secrets.token_urlsafe(16)
    html = (
        _environment()
        .get_template(template)
        .render(
            title=title,
            live=live,
            nonce=nonce,
            csp=csp(nonce),
            css=_asset("report.css"),
            script=_asset("report.js"),
            **context,
        )
    )
    return html, nonce
