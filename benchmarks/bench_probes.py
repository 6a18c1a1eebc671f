"""Probe library figures: probes and categories (and which are decided offline), attacks in the full
library, and the time to render them all."""

from __future__ import annotations

import time
from collections import Counter


def main() -> None:
    from giskard_nb.scan.catalogue import CATEGORIES
    from giskard_nb.scan.library import all_probes

    print("== probes ==")
    start = time.perf_counter()
    probes = all_probes()
    runnable = [p for p in probes if "documents" not in p.requires]
    attacks = sum(len(p.attacks()) for p in runnable)
    elapsed = time.perf_counter() - start
    print(
        f"library: {len(probes)} probes in {len(CATEGORIES)} categories; {attacks} attacks from the "
        f"{len(runnable)} probes that need no documents, built in {elapsed * 1000:.0f} ms"
    )
    offline = Counter(p.category for p in probes if not p.needs_judge)
    judged = Counter(p.category for p in probes if p.needs_judge)
    for c in CATEGORIES:
        owasp = c.owasp_id or "beyond OWASP"
        print(
            f"  {c.id:34} {owasp:13} {offline[c.id]:2} decided offline, {judged[c.id]:2} need a judge"
        )


if __name__ == "__main__":
    main()
