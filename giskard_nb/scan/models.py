"""The models a scan uses: the judge (judged detectors) and the generator (written attacks, variants,
the adaptive attacker), with their one default.

``run_scan``, ``estimate_scan`` and the Hub's ``hub.scans.run()``/``resume()`` all call
``resolve_models``: a model not given (``MISSING``) is the configured default generator
(``giskard_nb.llm.set_default_generator`` or ``GISKARD_NB_MODEL``), or None when none is configured;
``None`` given means none; ``use_judge=False`` drops the judge whatever was given.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from giskard_nb.core.missing import MISSING

if TYPE_CHECKING:
    from giskard_nb.scan.plan import ScanOptions

__all__ = ["default_model", "resolve_models"]


def default_model() -> Any:
    """The configured default generator (``giskard_nb.llm``), or None when no model is configured."""
    from giskard_nb.llm import get_default_generator

    return get_default_generator(required=False)


def resolve_models(
    options: ScanOptions, *, judge: Any = MISSING, generator: Any = MISSING
) -> tuple[Any, Any]:
    """``(judge, generator)`` for a scan with ``options``: each not given is the default model (looked
    up once, and only when one is missing); the judge is None when ``options.use_judge`` is False."""
    model = default_model() if MISSING in (judge, generator) else None
    judge = model if judge is MISSING else judge
    generator = model if generator is MISSING else generator
    if options.use_judge is False:
        judge = None
    return judge, generator
