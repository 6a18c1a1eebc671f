"""The scan catalogue: vulnerability categories (OWASP LLM Top 10, 2025 numbering, and beyond) and probes.

OWASP LLM03 (supply chain) and LLM04 (data and model poisoning) concern how a model was built and cannot
be probed through the agent's chat interface; they have no category here. LLM08 (vector and embedding
weaknesses) is covered by the knowledge-base poisoning probe, filed under prompt injection.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from giskard_nb.errors import GiskardValidationError, NotFoundError
from giskard_nb.palette import SCAN_CATEGORIES
from giskard_nb.scan.probe import Probe

__all__ = ["CATEGORIES", "Catalogue", "Category", "default_catalogue"]


class Category(BaseModel):
    """A vulnerability category: ``id``, ``title``, ``description`` and the OWASP id when one exists."""

    model_config = ConfigDict(frozen=True)

    id: str
    title: str
    description: str
    owasp_id: str | None = None


#: The built-in categories, built from the plain catalogue every view reads (``giskard_nb.palette``).
CATEGORIES: tuple[Category, ...] = tuple(Category(**c._asdict()) for c in SCAN_CATEGORIES)


class Catalogue:
    """Categories and probes, looked up by id. ``default_catalogue()`` holds the built-in library."""

    def __init__(self, categories: Iterable[Category], probes: Iterable[Probe] = ()):
        self._categories = {c.id: c for c in categories}
        self._probes: dict[str, Probe] = {}
        for p in probes:
            self.add(p)

    def add(self, probe: Probe, *, replace: bool = False) -> Probe:
        """Add a probe (its category must exist); an existing id is an error unless ``replace``."""
        if probe.category not in self._categories:
            raise GiskardValidationError(
                f"probe {probe.id!r} has unknown category {probe.category!r}; categories: "
                f"{', '.join(self._categories)}"
            )
        if probe.id in self._probes and not replace:
            raise GiskardValidationError(
                f"a probe with id {probe.id!r} already exists; pass replace=True to replace it"
            )
        self._probes[probe.id] = probe
        return probe

    def categories(self) -> list[Category]:
        return list(self._categories.values())

    def category(self, category_id: str) -> Category:
        try:
            return self._categories[category_id]
        except KeyError:
            raise NotFoundError(
                f"no scan category {category_id!r}; known: {', '.join(self._categories)}"
            ) from None

    def probes(self, category: str | None = None) -> list[Probe]:
        return [p for p in self._probes.values() if category is None or p.category == category]

    def probe(self, probe_id: str) -> Probe:
        try:
            return self._probes[probe_id]
        except KeyError:
            raise NotFoundError(
                f"no probe {probe_id!r}; list them with list_probes() (known: {len(self._probes)})"
            ) from None

    def select(
        self, *, categories: Iterable[str] | None = None, probe_ids: Iterable[str] | None = None
    ) -> list[Probe]:
        """Probes by id (in the order given) or by category; neither means every probe."""
        if probe_ids is not None and categories is not None:
            raise GiskardValidationError("give categories=... or probe_ids=..., not both")
        if probe_ids is not None:
            return [self.probe(pid) for pid in dict.fromkeys(probe_ids)]
        if categories is not None:
            wanted = list(dict.fromkeys(categories))
            unknown = [c for c in wanted if c not in self._categories]
            if unknown:
                raise GiskardValidationError(
                    f"unknown scan categories {unknown}; known: {', '.join(self._categories)}"
                )
            return [p for p in self._probes.values() if p.category in wanted]
        return list(self._probes.values())

    def __len__(self) -> int:
        return len(self._probes)

    def __repr__(self) -> str:
        return f"<Catalogue {len(self._categories)} categories, {len(self._probes)} probes>"


_DEFAULT: Catalogue | None = None


def default_catalogue() -> Catalogue:
    """The built-in catalogue: every category and the probe library shipped with giskard-nb."""
    global _DEFAULT
    if _DEFAULT is None:
        from giskard_nb.scan.library import all_probes

        _DEFAULT = Catalogue(CATEGORIES, all_probes())
    return _DEFAULT
