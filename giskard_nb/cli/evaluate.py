"""``giskard-nb eval``: run a dataset against an agent, print the summary, write reports.

The dataset is a file (``.jsonl``/``.json``/``.csv``, uploaded into the Hub once: a file with the same
content is reused), a Hub dataset id or name, or ``--demo`` (the bundled demo dataset). The agent is a
Python ``module:function``, an ``http(s)://`` URL (registered in the project on first use) or a
registered Hub agent's id or name. Progress goes to stderr, the summary to stdout. Exit status: 0 when
every case passed (or was skipped with a reason), 1 when any failed or errored, or when nothing was
judged (every case skipped, e.g. a file with no check column: "N cases ran no check"; pass
--allow-unchecked to accept that), 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path
from typing import Any

from giskard_nb.cli._common import UsageError, add_hub_options, open_hub, project_for, resolve_agent
from giskard_nb.cli.ray_opts import add_ray_options, factory_agent, ray_agent, ray_executor
from giskard_nb.cli.reports import RAW_CSV_HELP, print_failures, write_junit

__all__ = ["add_parser", "run"]

EXAMPLES = """examples:
  giskard-nb eval --demo --memory
  giskard-nb eval --dataset examples/faq.csv --agent giskard_nb.demo.agent:support_agent
  giskard-nb eval --dataset cases.csv --agent my_app.bot:answer --junit junit.xml --csv results.csv
  giskard-nb eval --dataset "$DATASET_ID" --agent "$AGENT_URL" --timeout 20 --max-concurrency 16
  giskard-nb eval --rescore "$EVALUATION_ID"
  giskard-nb eval --demo --memory --repeats 3
  giskard-nb eval --dataset examples/faq.csv --agent my_app.bot:answer --ray 2
"""


def add_parser(commands: Any) -> None:
    p = commands.add_parser(
        "eval",
        help="evaluate an agent on a dataset (exit 1 if any case fails or errors)",
        description=__doc__,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--dataset", help="a .jsonl/.json/.csv file, or a Hub dataset id or name")
    p.add_argument(
        "--agent",
        help="module:function, an http(s) URL, or a registered agent's id or name "
        "(default with --demo: the demo agent)",
    )
    p.add_argument(
        "--demo", action="store_true", help="the bundled demo dataset (and agent, by default)"
    )
    p.add_argument(
        "--project", help="project for uploaded files and URLs (default: giskard-nb cli)"
    )
    p.add_argument("--name", help="the evaluation's name")
    p.add_argument(
        "--rescore",
        metavar="EVALUATION_ID",
        help="run the dataset's current checks again on that evaluation's stored replies, into a "
        "new evaluation (the agent is not called; --dataset/--agent not needed)",
    )
    p.add_argument(
        "--judge", metavar="MODEL", help="with --rescore: the judge model of the LLM checks"
    )
    p.add_argument("--junit", metavar="PATH", help="write a JUnit XML report (one testcase a case)")
    p.add_argument("--csv", metavar="PATH", help="write the results table as CSV")
    p.add_argument("--raw-csv", action="store_true", help=RAW_CSV_HELP)
    p.add_argument(
        "--parquet", metavar="PATH", help="write the results table as Parquet (needs pyarrow)"
    )
    p.add_argument("--max-concurrency", type=int, default=8, help="cases run at once (default 8)")
    p.add_argument(
        "--repeats",
        type=int,
        default=1,
        help="runs of each test case (default 1): per-case pass^k, pass@k and error bars",
    )
    p.add_argument(
        "--estimate",
        action="store_true",
        help="print the preflight (agent and judge calls, tokens, judge cost, time; x --repeats) "
        "for --dataset/--agent and run nothing",
    )
    p.add_argument("--timeout", type=float, default=None, help="seconds allowed per test case")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument(
        "--allow-unchecked",
        action="store_true",
        help="exit 0 even when no case ran a check (by default that is exit 1: nothing was tested)",
    )
    add_ray_options(p, "test cases")
    add_hub_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.max_concurrency < 1:
        raise UsageError("--max-concurrency must be at least 1")
    if args.timeout is not None and args.timeout <= 0:
        raise UsageError("--timeout must be > 0 seconds")
    if args.repeats < 1:
        raise UsageError("--repeats must be at least 1 (how many times each test case runs)")
    if args.estimate and args.rescore:
        raise UsageError("--estimate previews a run of --dataset/--agent: drop --rescore")
    if args.judge and not args.rescore:
        raise UsageError("--judge goes with --rescore EVALUATION_ID")
    if args.rescore:
        if args.dataset or args.agent or args.demo:
            raise UsageError(
                "--rescore re-scores a stored evaluation: drop --dataset/--agent/--demo"
            )
        return _with_hub(args, _rescore)
    if not args.demo and not args.dataset:
        raise UsageError("give --dataset FILE|ID|NAME (or --demo)")
    if not args.agent and not args.agent_factory and not args.demo:
        raise UsageError("give --agent module:function, an http(s) URL or a registered agent")
    if args.estimate:
        from giskard_nb.cli.eval_estimate import estimate

        return _with_hub(args, estimate)
    ray = ray_agent(args)  # before anything is stored
    if args.parquet:
        from giskard_nb.frames import require_parquet

        require_parquet()  # before running anything
    return _with_hub(args, _evaluate, ray)


def _with_hub(args: argparse.Namespace, command: Any, *extra: Any) -> int:
    hub = open_hub(args)
    try:
        return command(hub, args, *extra)
    finally:
        hub.close()


def _rescore(hub: Any, args: argparse.Namespace) -> int:
    from giskard_nb.cli.lookup import find

    _, source = find(hub, args.rescore, kinds=("evaluation",), what="--rescore")
    print(f"giskard-nb eval: re-scoring {source.name!r} ({source.id}) in {hub!r}", file=sys.stderr)
    options = {"progress": not args.no_progress, "generator": args.judge, "name": args.name}
    evaluation = hub.evaluations.rescore(source.id, **options)
    return _report(evaluation, args)


def _evaluate(hub: Any, args: argparse.Namespace, ray: Any = None) -> int:
    project, dataset = _dataset(hub, args)
    if ray is not None:
        kind, agent = "ray", ray
    elif args.agent_factory:
        kind, agent = "local", factory_agent(args)
    elif args.agent:
        kind, agent = resolve_agent(hub, project, args.agent, timeout=args.timeout)
    else:
        from giskard_nb.demo.agent import support_agent

        kind, agent = "local", support_agent
    options = {
        "max_concurrency": args.max_concurrency,
        "timeout": args.timeout,
        "progress": not args.no_progress,
        "repeats": args.repeats,
    }
    if args.name:
        options["name"] = args.name
    print(f"giskard-nb eval: {dataset.name!r} ({dataset.id}) in {hub!r}", file=sys.stderr)
    _describe(hub, dataset)
    if kind == "ray":
        with ray_executor(args) as executor:  # the actors, and the local Ray it started, stop after
            evaluation = hub.evaluations.create_local(
                agent, dataset.id, executor=executor, agent_name=agent.name, **options
            )
    elif kind == "local":
        evaluation = hub.evaluations.create_local(agent, dataset.id, **options)
    else:
        if agent.project_id != dataset.project_id:
            raise UsageError(
                f"agent {agent.name!r} and dataset {dataset.name!r} belong to different projects"
            )
        evaluation = hub.evaluations.create(agent.project_id, agent.id, dataset.id, **options)
    return _report(evaluation, args)


def _report(evaluation: Any, args: argparse.Namespace) -> int:
    """Print the summary and the failures, write the reports; the exit status."""
    sys.stderr.flush()
    print(evaluation.summary())
    results = evaluation.results()
    print_failures(results, evaluation.repeats)
    _write_reports(evaluation, results, args)
    counts = evaluation.refresh().counts
    print(f"\nevaluation {evaluation.id} ({evaluation.status}): {_counts(counts)}")
    unchecked = sum(1 for r in results if r.status == "skip" and not r.checks)
    if unchecked:
        from giskard_nb.hub.upload_columns import NO_CHECK_ADVICE

        print(f"{unchecked} case{'s' if unchecked > 1 else ''} ran no check: {NO_CHECK_ADVICE}")
    bad = counts.get("fail", 0) + counts.get("error", 0)
    judged = bad + counts.get("pass", 0)
    if not judged and len(results) and not args.allow_unchecked:
        print(
            "nothing was tested: no case ran a check that passed, failed or errored (exit 1; "
            "--allow-unchecked accepts it)"
        )
        return 1
    return 1 if bad or evaluation.status != "finished" else 0


def _describe(hub: Any, dataset: Any) -> None:
    """What the dataset holds (cases without a check, offline stand-ins), on stderr."""
    from giskard_nb.hub.upload_columns import judge_configured

    summary = hub.datasets.summary(dataset.id)
    print(f"dataset: {summary}", file=sys.stderr)
    if summary.offline_correctness and judge_configured():
        print(
            "note: a judge is configured now, but this dataset was uploaded without one: its "
            "expected answers keep the offline stand-in. To judge them with correctness, upload the "
            "file again into another project (--project NAME)",
            file=sys.stderr,
        )


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{counts.get(k, 0)} {k}" for k in ("pass", "fail", "error", "skip"))


def _dataset(hub: Any, args: argparse.Namespace) -> tuple[Any, Any]:
    from giskard_nb.demo import DATASET_PATH, setup_demo

    if args.demo:
        return setup_demo(hub)
    path = Path(args.dataset).expanduser()
    if path.is_file():
        if path.resolve() == Path(DATASET_PATH).resolve():
            return setup_demo(hub)  # the demo dataset uses the demo project's own checks
        project = project_for(hub, args.project)
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
        name = f"{path.name} ({digest.hexdigest()[:8]})"
        found = hub.datasets.list(project_id=project.id, name=name)
        dataset = found[0] if found else hub.datasets.upload(project.id, path, name=name)
        return project, dataset
    for dataset in hub.datasets.list():
        if args.dataset in (dataset.id, dataset.name):
            return hub.projects.retrieve(dataset.project_id), dataset
    raise UsageError(
        f"--dataset {args.dataset!r}: no such file, and no Hub dataset has that id or name "
        "(list them with: giskard-nb hub list datasets)"
    )


def _write_reports(evaluation: Any, results: Any, args: argparse.Namespace) -> None:
    if args.junit:
        write_junit(evaluation, results, args.junit)
        print(f"JUnit report: {args.junit}", file=sys.stderr)
    for path in (args.csv, args.parquet):
        if path:
            from giskard_nb.frames import write_frame

            fmt = "parquet" if path == args.parquet else "csv"
            written = write_frame(
                evaluation.to_dataframe(), path, format=fmt, escape_formulas=not args.raw_csv
            )
            print(f"results ({fmt}): {written}", file=sys.stderr)
