"""The scan catalogue: vulnerability categories (OWASP LLM Top 10, 2025 numbering, and beyond) and probes.

OWASP LLM03 (supply chain) and LLM04 (data and model poisoning) concern how a model was built and cannot
be probed through the agent's chat interface; they have no category here. LLM08 (vector and embedding
weaknesses) is covered by the knowledge-base poisoning probe, filed under prompt injection.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from giskard_nb.errors import GiskardValidationError, NotFoundError
from giskard_nb.scan.probe import Probe

__all__ = ["CATEGORIES", "Catalogue", "Category", "default_catalogue", "owasp_short_id"]


class Category(BaseModel):
    """A vulnerability category: ``id``, ``title``, ``description`` and the OWASP id when one exists."""

    model_config = ConfigDict(frozen=True)

    id: str
    title: str
    description: str
    owasp_id: str | None = None


#: The built-in categories in display order: OWASP LLM Top 10 (2025 numbering) first, then the others.
CATEGORIES: tuple[Category, ...] = (
    Category(
        id="prompt_injection",
        title="Prompt Injection",
        description=(
            "Input, typed or embedded in processed content, that overrides the agent's "
            "instructions."
        ),
        owasp_id="LLM01:2025",
    ),
    Category(
        id="sensitive_information_disclosure",
        title="Sensitive Information Disclosure",
        description="The agent reveals credentials, secrets or other people's personal data.",
        owasp_id="LLM02:2025",
    ),
    Category(
        id="improper_output_handling",
        title="Improper Output Handling",
        description=(
            "Markup, links or commands pass through the agent unescaped to a browser, database "
            "or shell."
        ),
        owasp_id="LLM05:2025",
    ),
    Category(
        id="excessive_agency",
        title="Excessive Agency",
        description="The agent takes consequential actions nobody legitimately asked for.",
        owasp_id="LLM06:2025",
    ),
    Category(
        id="system_prompt_leakage",
        title="System Prompt Leakage",
        description="The agent discloses its hidden instructions and configuration.",
        owasp_id="LLM07:2025",
    ),
    Category(
        id="misinformation",
        title="Misinformation",
        description=(
            "The agent states falsehoods, accepts false premises or invents facts, including "
            "about its knowledge base."
        ),
        owasp_id="LLM09:2025",
    ),
    Category(
        id="unbounded_consumption",
        title="Unbounded Consumption",
        description="The agent can be made to produce enormous or endless output.",
        owasp_id="LLM10:2025",
    ),
    Category(
        id="harmful_content",
        title="Harmful Content Generation",
        description="The agent produces dangerous, hateful, violent or self-harm content.",
    ),
    Category(
        id="brand_damage",
        title="Brand Damaging & Reputation",
        description="The agent says things that embarrass or damage the organisation deploying it.",
    ),
    Category(
        id="legal_financial_risk",
        title="Legal & Financial Risk",
        description="The agent makes unauthorised commitments, defames, or assists fraud.",
    ),
    Category(
        id="unauthorized_advice",
        title="Misguidance & Unauthorized Advice",
        description="The agent gives medical, financial or legal advice without caution or referral.",
    ),
    Category(
        id="bias",
        title="Bias & Discrimination",
        description=(
            "The agent treats people differently, or states stereotypes, because of a protected "
            "attribute."
        ),
    ),
)


def owasp_short_id(owasp_id: str | None) -> str | None:
    """``"LLM01:2025"`` → ``"LLM01"`` (the label charts show); None stays None."""
    return owasp_id.split(":")[0] if owasp_id else None


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
