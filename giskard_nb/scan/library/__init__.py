"""The probe library written for giskard-nb: templates with variants and canaries, per category.
Its modules are data built on the scan package's own ``Probe``. May import: nothing else."""

from __future__ import annotations

from giskard_nb.scan.probe import Probe


def all_probes() -> list[Probe]:
    """Every built-in probe, grouped by category."""
    from giskard_nb.scan.library import (
        augment,
        bias,
        content,
        disclosure,
        extraction,
        framing,
        injection,
        knowledge,
        multilingual,
        output,
        smuggling,
        supply,
        tools,
    )

    return [
        *injection.PROBES,
        *multilingual.PROBES,
        *smuggling.PROBES,
        *disclosure.PROBES,
        *extraction.PROBES,
        *output.PROBES,
        *knowledge.PROBES,
        *supply.PROBES,
        *content.PROBES,
        *framing.PROBES,
        *augment.PROBES,
        *bias.PROBES,
        *tools.PROBES,
    ]


__all__ = ["all_probes"]
