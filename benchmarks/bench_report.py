"""Report benchmarks: the self-contained HTML page of a 1,000-case evaluation (render time, best of 2,
and file size), the same page with a 5,000-character reply per case, and the viewer's pages of it over
HTTP (evaluation page with 100 cases, a filtered and searched page, one result, the Hub's index: the
first request builds the evaluation's view, the next ones reuse it).
Also the size the plotly.js bundle would add to each page if the charts were Plotly figures (the reason
the report draws SVG). SQLite file database in a temporary folder; prints numbers only."""

from __future__ import annotations

import tempfile
import time
import urllib.request
from pathlib import Path

from giskard_nb.hub import Hub
from giskard_nb.report import Viewer, render_html, write_report

N_CASES = 1_000


def _agent(reply_chars: int):
    def agent(messages: list[dict[str, str]]) -> str:
        question = messages[-1]["content"]
        text = f"Answer to {question}: we are open Monday to Friday. "
        if question.endswith(("3", "7")):
            text = f"I cannot help with {question}. "
        return (text * (reply_chars // len(text) + 1))[:reply_chars]

    return agent


def _evaluation(hub: Hub, reply_chars: int):
    project = hub.projects.create(f"bench report {reply_chars}")
    items = [
        {
            "messages": [{"role": "user", "content": f"question {i}"}],
            "checks": [
                {"identifier": "string_match", "params": {"keyword": "Monday"}},
                {"identifier": "regex_matching", "params": {"pattern": r"question \d+"}},
            ],
        }
        for i in range(N_CASES)
    ]
    dataset = hub.datasets.upload(project.id, items, name="cases")
    return hub.evaluations.create_local(
        _agent(reply_chars), dataset.id, max_concurrency=32, progress=False
    )


def _best(fn, runs: int = 2) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _get(url: str) -> int:
    with urllib.request.urlopen(url, timeout=60) as response:
        return len(response.read())


def main() -> None:
    print("== report: self-contained HTML of a 1,000-case evaluation ==")
    with tempfile.TemporaryDirectory() as folder:
        hub = Hub(str(Path(folder) / "hub.db"))
        try:
            for reply_chars in (200, 5_000):
                evaluation = _evaluation(hub, reply_chars)
                seconds = _best(lambda e=evaluation: render_html(e))
                path = write_report(evaluation, Path(folder) / f"report_{reply_chars}.html")
                size = path.stat().st_size
                print(
                    f"{N_CASES} cases, {reply_chars:>5}-char replies: render {seconds:.2f} s, "
                    f"file {size / 1e6:.2f} MB"
                )
            with Viewer(hub, 0).start() as viewer:
                base = viewer.url.rstrip("/")
                result = hub.evaluations.results.list(evaluation.id)[0]
                for label, path in (
                    ("index", "/"),
                    ("evaluation (100 of 1,000 cases)", f"/evaluations/{evaluation.id}"),
                    (
                        "evaluation, status=fail&q=cannot",
                        f"/evaluations/{evaluation.id}?status=fail&q=cannot",
                    ),
                    ("one result", f"/evaluations/{evaluation.id}/results/{result.id}"),
                ):
                    start = time.perf_counter()
                    size = _get(base + path)
                    first = time.perf_counter() - start
                    seconds = _best(lambda p=path: _get(base + p))
                    print(
                        f"viewer {label}: first request {first * 1000:.0f} ms, then "
                        f"{seconds * 1000:.0f} ms, {size / 1e3:.0f} kB"
                    )
        finally:
            hub.close()
    from plotly.offline import get_plotlyjs

    print(
        f"plotly.js inlined once would add {len(get_plotlyjs().encode()) / 1e6:.2f} MB per page "
        "(the report's SVG charts add a few kB)"
    )


if __name__ == "__main__":
    main()
