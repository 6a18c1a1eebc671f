"""The probe library written for giskard-nb: templates with variants and canaries, per category."""

from __future__ import annotations

from giskard_nb.scan.probe import Probe


def all_probes() -> list[Probe]:
    """Every built-in probe, grouped by category."""
    from giskard_nb.scan.library import content, disclosure, injection, knowledge, output

    return [
        *injection.PROBES,
        *disclosure.PROBES,
        *output.PROBES,
        *knowledge.PROBES,
        *content.PROBES,
    ]


__all__ = ["all_probes"]
