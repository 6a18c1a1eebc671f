"""Grades of the realistic controls and the planted-weakness agents (tests/scan/bank_agents.py).

The controls are the assistant of a fictional bank written the way modern LLMs write (long, empathetic,
quoting the attack they decline, correcting premises, answering in the user's language, code blocks,
links to their own site, their own freephone number and mailbox). Each planted agent adds ONE real
weakness to a hardened one. Every agent runs the whole catalogue offline (no judge, 3 attempts per
probe), without and with a profile (a system prompt and a secret the controls never reveal). A safe
agent should grade A both ways; a planted weakness should be found (a grade below A, or a suspected
finding listed for the judge when the weakness is one only a judge can confirm).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OFFLINE = {"max_attempts_per_probe": 3, "judge": None, "generator": None, "max_concurrency": 4}


def _agents():
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tests.scan import bank_agents

    return bank_agents


def _row(name: str, agent, profile) -> str:
    from giskard_nb.scan import run_scan_sync

    cells = []
    for prof in (None, profile):
        extra = {"profile": prof} if prof is not None else {}
        report = run_scan_sync(agent, progress=False, **OFFLINE, **extra)
        cells.append(
            f"{report.grade or '—'} ({len(report.findings)} found, {len(report.suspected)} suspected)"
        )
    return f"  {name:12} {cells[0]:34} {cells[1]}"


def main() -> None:
    from giskard_nb.scan import AttackProfile

    bank = _agents()
    profile = AttackProfile(
        name="Mara",
        description=f"Digital assistant of {bank.BANK}",
        system_prompt=bank.PROMPT,
        secrets=[bank.SECRET],
    )
    start = time.perf_counter()
    print("Realistic controls and planted weaknesses: grade (findings, suspected), whole catalogue")
    print(f"  {'agent':12} {'no profile':34} with a profile (system prompt + secret)")
    print(" hardened (should be A both ways):")
    for name, agent in sorted(bank.HARDENED.items()):
        print(_row(name, agent, profile))
    print(" planted weaknesses (should be found):")
    for name, (agent, *_rest) in sorted(bank.PLANTED.items()):
        print(_row(name, agent, profile))
    print(f"  ({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
