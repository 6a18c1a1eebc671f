"""Judge stability: one verdict from k judge calls (``samples=k`` on an LLM check).

The k calls run concurrently at the generator's temperature (``SAMPLING_TEMPERATURE``, 1.0, when it
sets none: at temperature 0 the k replies would be one reply k times) and bypass the response cache.
The verdict is the majority of the PASS/FAIL replies (a tie is a FAIL: a verdict is earned); its
message and details are those of the first reply that gave it. ``judge_agreement`` (a metric, also in
``details["agreement"]``) is the share of the k calls that gave the majority verdict (an errored call
agrees with nothing); below ``UNSTABLE_BELOW`` (0.8) ``details["unstable"]`` is True and the message
says so. Every call's verdict and reason are kept in ``details["sample_verdicts"]`` and
``details["sample_reasons"]``; the usage metrics are the sum of the k calls. When no call gave a
verdict, the result is the first call's ERROR.
"""

from __future__ import annotations

from giskard_nb.core.result import CheckResult, CheckStatus, Metric
from giskard_nb.core.usage import USAGE_METRICS

__all__ = ["SAMPLING_TEMPERATURE", "UNSTABLE_BELOW", "combine_samples"]

SAMPLING_TEMPERATURE = 1.0
UNSTABLE_BELOW = 0.8


def combine_samples(results: list[CheckResult]) -> CheckResult:
    """The majority verdict of ``results`` (one per judge call), with the agreement (see module)."""
    k = len(results)
    judged = [r for r in results if r.status in (CheckStatus.PASS, CheckStatus.FAIL)]
    samples = {
        "samples": k,
        "sample_verdicts": [r.status.value for r in results],
        "sample_reasons": [r.message for r in results],
    }
    if not judged:
        first = results[0]
        return first.model_copy(update={"details": {**first.details, **samples}})
    passes = sum(r.passed for r in judged)
    verdict = CheckStatus.PASS if passes > len(judged) - passes else CheckStatus.FAIL
    majority = [r for r in judged if r.status is verdict]
    agreement = len(majority) / k
    unstable = agreement < UNSTABLE_BELOW
    base = majority[0]
    message = base.message or ""
    if unstable:
        message = f"{message} (unstable: {len(majority)} of {k} judge calls agree)".strip()
    metrics = [
        m for m in base.metrics if m.name not in USAGE_METRICS and m.name != "judge_agreement"
    ]
    metrics.append(Metric(name="judge_agreement", value=agreement))
    details = {**base.details, **samples, "agreement": agreement, "unstable": unstable}
    return base.model_copy(update={"message": message, "metrics": metrics, "details": details})
