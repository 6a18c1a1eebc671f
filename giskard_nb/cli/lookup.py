"""Finding a record from what a user typed: a full id, or at least 4 characters of its start or end
(the short id the listings show is its last 8), of any kind the Hub stores. Two or more matches are an
error that lists them."""

from __future__ import annotations

import re
from typing import Any

from giskard_nb.cli._common import UsageError

__all__ = ["KINDS", "find", "resource"]

#: kind -> the path of its resource on the Hub, in the order a match is reported.
KINDS: dict[str, tuple[str, ...]] = {
    "project": ("projects",),
    "agent": ("agents",),
    "dataset": ("datasets",),
    "test case": ("test_cases",),
    "evaluation": ("evaluations",),
    "result": ("evaluations", "results"),
    "scan": ("scans",),
    "attempt": ("scans", "attempts"),
}
_ID_PART = re.compile(r"[0-9a-fA-F-]{4,36}")
_SHOWN = 10  # candidates listed in an ambiguity error


def resource(hub: Any, kind: str) -> Any:
    """The Hub resource that stores records of ``kind`` (``"result"``: ``hub.evaluations.results``)."""
    target = hub
    for name in KINDS[kind]:
        target = getattr(target, name)
    return target


def find(
    hub: Any, ref: str, *, kinds: tuple[str, ...] | None = None, what: str = "id"
) -> tuple[str, Any]:
    """``(kind, record)`` for ``ref``: a full id, or a unique start or end of one (4+ characters).
    ``kinds`` restricts the search; ``what`` names the argument in the errors (``"--evaluation"``)."""
    from giskard_nb.errors import NotFoundError

    kinds = kinds or tuple(KINDS)
    ref = ref.strip()
    label = " or ".join(kinds)
    prefix = "" if what == "id" else f"{what}: "
    missing = f"{prefix}no record with id {ref!r} in {hub!r}"
    if not _ID_PART.fullmatch(ref):
        raise UsageError(
            f"{missing}: an id is hexadecimal (give a whole {label} id, or at least 4 characters of "
            "its start or end; see: giskard-nb hub list ...)"
        )
    if len(ref) in (32, 36):  # a whole id: one indexed look-up per kind
        for kind in kinds:
            try:
                return kind, resource(hub, kind).retrieve(ref.lower())
            except NotFoundError:
                continue
    matches = [
        (kind, record_id)
        for kind in kinds
        for record_id in resource(hub, kind).ids_matching(ref, limit=_SHOWN + 1)
    ]
    if not matches:
        raise UsageError(
            f"{missing}: no {label} id starts or ends with it (see: giskard-nb hub list ...)"
        )
    if len(matches) > 1:
        count = str(len(matches)) if len(matches) <= _SHOWN else f"more than {_SHOWN}"
        listed = "".join(f"\n  {kind:10} {record_id}" for kind, record_id in matches[:_SHOWN])
        raise UsageError(
            f"{prefix}{ref!r} is ambiguous: {count} ids start or end with it; give more of its "
            f"characters:{listed}"
        )
    kind, record_id = matches[0]
    return kind, resource(hub, kind).retrieve(record_id)
