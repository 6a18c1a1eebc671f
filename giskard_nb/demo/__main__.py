"""``python -m giskard_nb.demo`` (``make demo``): evaluate and scan the offline demo agent in the Hub.

The story in five parts: an evaluation of the Trailhead Outfitters support agent on its test cases
(each failure with the message of the check that failed and its failure category), a short
vulnerability scan of the same agent with its grade card, a tool-using bank agent (scenarios that
check its tool calls, and a tool-security scan with scripted tools), where it is all stored, and
what to do next.

By default the results go to the embedded Hub database (``$GISKARD_NB_HUB_URL``, else
``$GISKARD_NB_HOME/hub.db``, else ``~/.giskard_nb/hub.db``), so every run is kept and compared with the
previous one; ``--memory`` uses a throwaway database, ``--hub PATH_OR_URL`` another one. The first line
printed says where, before anything is written. No key, no network:
LLM-judged checks and scan categories join in only when a judge model is configured
(``GISKARD_NB_MODEL``).
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import Any

from giskard_nb.demo import JUDGED_SCAN_CATEGORIES, judge_configured, run_demo, run_demo_scan

NEXT_STEPS = """\
5. Next steps
─────────────
  1. In a notebook: jupyter lab notebooks/quickstart.ipynb — the same agent as scenarios, a table,
     a chart and the results viewer (the README's five-minute path does it with your own agent);
     notebooks/tool-calling-agents.ipynb for agents that call tools.
  2. From a terminal or a CI job: `giskard-nb eval` runs a dataset file against an agent
     (module:function or an HTTP URL; exit code 1 when a case fails) and `giskard-nb scan` scans one
     (exit code 1 on a confirmed major finding: `--fail-on`; `--secret` names what it must keep);
     `giskard-nb --help` lists every command and option.
  3. Outside a notebook: `giskard-nb view` browses this Hub read-only in your browser (on
     127.0.0.1) and `giskard-nb report ID -o report.html` writes one self-contained page of the
     evaluation or the scan above (ids as printed; 4+ characters of an id's end are enough).
  4. Plug in a model: GISKARD_NB_MODEL=openai/gpt-4o-mini make demo (with OPENAI_API_KEY set; any
     litellm provider/model works) adds correctness, conformity and groundedness judges, LLM failure
     categories and the judged scan categories."""


def _section(title: str) -> None:
    print(f"\n{title}\n{'─' * len(title)}")


def print_failures(hub: Any, evaluation: Any) -> None:
    """Each failed case under its failure category, with the message of every check that failed."""
    failed = hub.evaluations.results.list(evaluation.id, status="fail")
    errors = hub.evaluations.results.list(evaluation.id, status="error")
    if failed:
        print("\nFailed test cases, by failure category:")
    for result in sorted(
        failed, key=lambda r: r.failure_category.identifier if r.failure_category else ""
    ):
        category = result.failure_category
        title = category.title if category else "uncategorized"
        reply = result.agent_output.content if result.agent_output else ""
        print(f"  [{title}] {result.messages[-1].content!r}")
        print(f"      agent:    {reply!r}")
        for check in result.checks:
            if check.status == "fail":
                print(f"      failed:   {check.name} — {check.message or 'no message'}")
        if category is not None:
            print(
                f"      category: {category.identifier} "
                f"(by {result.failure_category_source}: {result.failure_category_reason})"
            )
    if errors:
        print("\nErrored test cases (the run went on):")
    for result in errors:
        print(f"  [error] {result.messages[-1].content!r}: {result.error}")


def print_scan(hub: Any, scan: Any, *, llm: bool) -> None:
    """The grade card as text, and what the offline scan did not assess."""
    report = hub.scans.report(scan.id)
    print(report.report())
    if not llm:
        from giskard_nb.scan.catalogue import default_catalogue

        catalogue = default_catalogue()
        names = ", ".join(catalogue.category(c).title for c in JUDGED_SCAN_CATEGORIES)
        text = (
            f"Not assessed offline: {names} — these need a judge model (set GISKARD_NB_MODEL). "
            "The grade covers the categories listed above only."
        )
        print(textwrap.fill(text, width=100, subsequent_indent="  "))


def print_tools(hub: Any, project_id: str, *, progress: bool) -> Any:
    """The tool-using bank agent: its scenarios (each call it made) and a tool-security scan."""
    from giskard_nb.demo.tool_story import run_tool_scan, run_tool_scenarios

    for result in run_tool_scenarios():
        calls = [str(c) for c in result.final_trace.tool_calls] or ["no tool call"]
        print(f"  {result.status.value.upper():<5} {result.scenario_name}: {'; '.join(calls)}")
    print()
    scan = run_tool_scan(hub, project_id, progress=progress)
    print(hub.scans.report(scan.id).report())
    return scan


def storage_line(hub_arg: str | None, *, memory: bool) -> str:
    """Where the demo will store its results, said before anything is written (nothing is created
    here), and how to store them elsewhere."""
    import os
    from pathlib import Path

    from giskard_nb.config import home_dir
    from giskard_nb.hub.db import resolve_url
    from giskard_nb.hub.secrets import mask_url

    named = (hub_arg or os.environ.get("GISKARD_NB_HUB_URL") or "").strip()
    # resolve_url creates a file path's folder: ask it only about ":memory:" and URLs
    if memory or ((named == ":memory:" or "://" in named) and resolve_url(named) == "sqlite://"):
        return "Results: in a throwaway in-memory Hub (nothing is written to disk)."
    other = "--memory (nothing kept) or --hub PATH_OR_URL"
    if named:
        where = mask_url(named) if "://" in named else str(Path(named).expanduser().resolve())
        source = "--hub" if hub_arg else "$GISKARD_NB_HUB_URL"
        return f"Results: stored in {where} ({source}; kept between runs); {other} to change it."
    where = home_dir(create=False) / "hub.db"
    source = "$GISKARD_NB_HOME" if os.environ.get("GISKARD_NB_HOME") else "the default home folder"
    return (
        f"Results: stored in {where} ({source}; kept between runs). To write elsewhere: "
        f"GISKARD_NB_HOME=/a/folder make demo, or python -m giskard_nb.demo {other}."
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m giskard_nb.demo", description=__doc__)
    parser.add_argument(
        "--hub",
        metavar="PATH_OR_URL",
        help="Hub database: a path or URL (default: $GISKARD_NB_HUB_URL, else "
        "$GISKARD_NB_HOME/hub.db, else ~/.giskard_nb/hub.db)",
    )
    parser.add_argument("--memory", action="store_true", help="use a throwaway in-memory Hub")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    args = parser.parse_args(argv)

    from giskard_nb.hub import Hub
    from giskard_nb.hub.secrets import mask_url

    print(storage_line(args.hub, memory=args.memory))  # before the Hub creates anything
    sys.stdout.flush()
    hub = Hub(":memory:" if args.memory else args.hub)
    llm = judge_configured()
    print(f"giskard-nb demo: the Trailhead Outfitters support agent, in {hub!r}")
    print(
        "LLM judges: "
        + (
            "on (correctness, conformity, groundedness)"
            if llm
            else "off — set GISKARD_NB_MODEL "
            "(for example openai/gpt-4o-mini) to add correctness, conformity and groundedness judges"
        )
    )
    _section("1. Evaluation: the agent on its test cases")
    sys.stdout.flush()
    evaluation = run_demo(hub, llm=llm, progress=not args.no_progress)
    print(evaluation.summary())
    print_failures(hub, evaluation)
    earlier = [
        e for e in hub.evaluations.list(dataset_id=evaluation.dataset_id) if e.id != evaluation.id
    ]
    if earlier:
        print()
        print(hub.evaluations.compare(earlier[-1].id, evaluation.id))

    _section("2. Scan: adversarial probes against the same agent")
    sys.stdout.flush()
    scan = run_demo_scan(hub, llm=llm, progress=not args.no_progress)
    print_scan(hub, scan, llm=llm)

    _section("3. Tools: a bank agent's tool calls, checked and scanned")
    sys.stdout.flush()
    tool_scan = print_tools(hub, scan.project_id, progress=not args.no_progress)

    _section("4. Stored in the Hub")
    print(f"Evaluation {evaluation.name!r} (id {evaluation.id})")
    print(f"Scan {scan.name!r} (id {scan.id})")
    print(f"Scan {tool_scan.name!r} (id {tool_scan.id})")
    if args.memory:
        print(
            "in a throwaway in-memory Hub: gone when the demo exits (run without --memory to keep it)."
        )
    else:
        print(f"in {mask_url(hub.url)}; reopen them in Python with")
        print("  from giskard_nb import Hub")
        print(f"  hub = Hub({args.hub!r})" if args.hub else "  hub = Hub()")
        print(f"  hub.evaluations.retrieve({evaluation.id!r}).to_dataframe()")
        print(f"  hub.scans.report({scan.id!r})")
    print()
    print(NEXT_STEPS)
    hub.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
