"""No import circle inside the scan engine (``tests/test_layers.py`` checks those between packages).

The graph is ``test_layers``'s, less its allowed upward arrows (the report's lazy ``to_dataframe()``
and ``plot_*()``): planning, running, defaulting the models, the catalogue and the report's summaries,
regression checks, redaction and SARIF, the phone finder of the PII detector and of the organisation's
contacts: each sits below what uses it.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
try:
    from test_layers import GRAPH, UPWARD_ALLOWED, _allowed, _reachable
finally:
    sys.path.pop(0)


def _circles() -> set[frozenset[str]]:
    ignored = _allowed(UPWARD_ALLOWED)
    succ: dict[str, set[str]] = {m: set() for m in GRAPH.modules}
    for a, b in GRAPH.arrows:
        if (a, b) not in ignored:
            succ[a].add(b)
    reach = {m: _reachable(m, succ) for m in succ}
    return {
        frozenset(w for w in reach[m] if m in reach[w])
        for m in succ
        if m.startswith("giskard_nb.scan") and m in reach[m]
    }


def test_no_import_circle_inside_the_scan_engine():
    assert _circles() == set(), "import circles inside giskard_nb.scan: move the shared code down"
