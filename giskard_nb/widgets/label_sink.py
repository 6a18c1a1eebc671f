"""Where the ResultsViewer's labels go: a ``LabelSink``.

A sink stores one person's verdicts on the checks of results. It has three methods:

- ``key_of(item)``: the key of a viewer row's result for this sink;
- ``label(key, check, passed, note)``: store the human verdict ``passed`` (a bool: what the check
  should have said, not "agree"/"disagree") with an optional note; returns what was stored;
- ``existing(key)``: this labeler's labels on that result, ``{check: {"passed": bool, "note": str |
  None}}``.

``FileLabelSink`` writes the core labels file (``core.labels.LabelStore``: the key is the
``ScenarioResult``); ``HubLabelSink`` writes a Hub evaluation's labels through
``hub.evaluations.results.label(result_id, check=..., passed=..., note=..., labeler=...)`` (the key
is the stored result's id). Anything with the three methods may be passed as ``labels=``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from giskard_nb.errors import GiskardValidationError

if TYPE_CHECKING:
    from giskard_nb.widgets.viewer_items import ViewerItem

__all__ = ["FileLabelSink", "HubLabelSink", "LabelSink", "label_sink"]


@runtime_checkable
class LabelSink(Protocol):
    """Stores one labeler's verdicts on the checks of results (see the module)."""

    def key_of(self, item: ViewerItem) -> Any: ...

    def label(self, key: Any, check: str, passed: bool, note: str | None) -> Any: ...

    def existing(self, key: Any) -> dict[str, dict[str, Any]]: ...


def _labeler(name: Any) -> str | None:
    if name is None:
        return None
    if not isinstance(name, str) or not name.strip() or len(name) > 200:
        raise GiskardValidationError(
            f"labeler must be your name, 1 to 200 characters (e.g. labeler='ana'), got {name!r:.80}"
        )
    return name


def _field(row: Any, name: str) -> Any:
    return row.get(name) if isinstance(row, Mapping) else getattr(row, name, None)


class FileLabelSink:
    """The core labels file (``LabelStore``) for ``labeler`` (default ``"default"``, as
    ``label()``).

    The file is read once and read again only when it changed on disk, so walking many results for
    the next unlabelled one stays quick."""

    def __init__(self, path: str | Path | None = None, labeler: str | None = None):
        from giskard_nb.core.labels import LabelStore

        self.store = LabelStore(path)
        self.labeler = _labeler(labeler) or "default"
        self._seen: tuple[int, int] | None = None
        self._by_key: dict[str, dict[str, dict[str, Any]]] = {}

    def __repr__(self) -> str:
        return f"FileLabelSink({str(self.store.path)!r}, labeler={self.labeler!r})"

    def key_of(self, item: ViewerItem) -> Any:
        return item.result

    def label(self, key: Any, check: str, passed: bool, note: str | None) -> Any:
        saved = self.store.add(key, check=check, passed=passed, note=note, labeler=self.labeler)
        self._seen = None  # read again: the file changed
        return saved

    def existing(self, key: Any) -> dict[str, dict[str, Any]]:
        from giskard_nb.core.labels import result_key

        path = self.store.path
        stat = path.stat() if path.exists() else None
        seen = (stat.st_mtime_ns, stat.st_size) if stat else (0, 0)
        if seen != self._seen:
            self._by_key = {}
            for x in self.store.list(labeler=self.labeler):
                self._by_key.setdefault(x.key, {})[x.check] = {"passed": x.passed, "note": x.note}
            self._seen = seen
        return {c: dict(v) for c, v in self._by_key.get(result_key(key), {}).items()}


class HubLabelSink:
    """A Hub evaluation's labels, through ``hub.evaluations.results.label(...)`` and
    ``.labels(result_id=...)``, for ``labeler`` (default: the Hub's actor)."""

    def __init__(self, hub: Any, labeler: str | None = None):
        self.results = hub.evaluations.results
        self.labeler = _labeler(labeler) or hub.actor

    def __repr__(self) -> str:
        return f"HubLabelSink(labeler={self.labeler!r})"

    def key_of(self, item: ViewerItem) -> Any:
        return item.extra["result_id"]

    def label(self, key: Any, check: str, passed: bool, note: str | None) -> Any:
        return self.results.label(key, check=check, passed=passed, note=note, labeler=self.labeler)

    def existing(self, key: Any) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for row in self.results.labels(result_id=key):
            if _field(row, "labeler") == self.labeler:
                passed = _field(row, "passed")
                if isinstance(passed, bool):  # a stored row is untrusted
                    out[str(_field(row, "check"))] = {"passed": passed, "note": _field(row, "note")}
        return out


def label_sink(labels: Any, labeler: str | None, hub: Any = None) -> LabelSink | None:
    """The sink a ResultsViewer writes labels through: ``labels`` itself when it is a sink; the
    labels file ``labels`` (a path); for a Hub evaluation (``hub``) its Hub; the default labels file when
    only ``labeler`` is given; else ``None`` (no labelling)."""
    if isinstance(labels, LabelSink):
        return labels
    if isinstance(labels, str | Path):
        return FileLabelSink(labels, labeler)
    if labels is not None:
        raise GiskardValidationError(
            "labels must be the path of a labels file (e.g. labels='labels.jsonl') or a LabelSink "
            f"(an object with key_of, label and existing), got {type(labels).__name__}"
        )
    if hub is not None and callable(getattr(hub.evaluations.results, "label", None)):
        return HubLabelSink(hub, labeler)
    if labeler is not None:
        return FileLabelSink(None, labeler)
    return None
