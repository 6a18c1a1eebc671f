"""``python -m giskard_nb.demo`` (``make demo``): evaluate the offline demo agent in the embedded Hub.

By default the results go to the embedded Hub database (``$GISKARD_NB_HUB_URL``, else
``$GISKARD_NB_HOME/hub.db``, else ``~/.giskard_nb/hub.db``), so every run is kept and compared with the
previous one; ``--memory`` uses a throwaway database, ``--hub URL`` another one. No key, no network:
LLM-judged checks join in only when a judge model is configured (``GISKARD_NB_MODEL``).
"""

from __future__ import annotations

import argparse
import sys

from giskard_nb.demo import judge_configured, run_demo


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m giskard_nb.demo", description=__doc__)
    parser.add_argument("--hub", help="Hub database: a path or URL (default: the embedded Hub)")
    parser.add_argument("--memory", action="store_true", help="use a throwaway in-memory Hub")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = parser.parse_args(argv)

    from giskard_nb.hub import Hub

    hub = Hub(":memory:" if args.memory else args.hub)
    llm = judge_configured()
    print(f"giskard-nb demo: evaluating the Trailhead Outfitters support agent in {hub!r}")
    print(
        "LLM judges: "
        + (
            "on (correctness, conformity, groundedness)"
            if llm
            else "off — set GISKARD_NB_MODEL "
            "(for example openai/gpt-4o-mini) to add correctness, conformity and groundedness judges"
        )
    )
    sys.stdout.flush()
    evaluation = run_demo(hub, llm=llm, progress=not args.no_progress)
    summary = evaluation.summary()
    print()
    print(summary)
    failed = hub.evaluations.results.list(evaluation.id, status="fail")
    errors = hub.evaluations.results.list(evaluation.id, status="error")
    if failed:
        print("\nFailed test cases, by failure category:")
        for result in sorted(
            failed, key=lambda r: r.failure_category.identifier if r.failure_category else ""
        ):
            category = result.failure_category.title if result.failure_category else "uncategorized"
            question = result.messages[-1].content
            reply = result.agent_output.content if result.agent_output else ""
            print(f"  [{category}] {question!r}")
            print(f"      agent: {reply!r}")
            print(
                f"      why:   {result.failure_category_reason} ({result.failure_category_source})"
            )
    for result in errors:
        print(f"  [error] {result.messages[-1].content!r}: {result.error}")
    earlier = [
        e for e in hub.evaluations.list(dataset_id=evaluation.dataset_id) if e.id != evaluation.id
    ]
    if earlier:
        print()
        print(hub.evaluations.compare(earlier[-1].id, evaluation.id))
    print(f"\nStored as evaluation {evaluation.id} in {hub!r}.")
    hub.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
