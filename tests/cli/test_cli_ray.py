"""``giskard-nb eval/scan --ray N``: usage errors, the error naming the extra without Ray, and a Ray run
that ``giskard-nb view`` shows in progress like any other (on the tests' one Ray instance,
``ray_session`` in tests/conftest.py; the Ray tests skip without Ray).

The agent is a module written into the test's folder (the command's current folder, importable on the
actors too); a file marker opens its gate.
"""

from __future__ import annotations

import asyncio
import json
import sys
import urllib.request
from pathlib import Path

import pytest

from giskard_nb.cli import main
from giskard_nb.hub import Hub

AGENT = '''"""A test agent: upper-cases the last message; "gate" waits for the marker {marker!r}."""

import time
from pathlib import Path


def answer(messages):
    text = messages[-1]["content"]
    if text == "gate":
        for _ in range(600):
            if Path({marker!r}).exists():
                return "OPEN"
            time.sleep(0.05)
        return "CLOSED"
    return text.upper()


def make_agent():
    return answer
'''


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The command's folder: the agent's module and a dataset of three cases."""
    (tmp_path / "ray_cli_agent.py").write_text(
        AGENT.format(marker=str(tmp_path / "open")), encoding="utf-8"
    )
    cases = [
        {"messages": [{"role": "user", "content": t}], "keyword": t.upper(), "name": t}
        for t in ("gate", "hello", "world")
    ]
    cases[0]["keyword"] = "OPEN"
    with (tmp_path / "cases.jsonl").open("w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(c) + "\n" for c in cases)
    monkeypatch.chdir(tmp_path)
    sys.modules.pop("ray_cli_agent", None)
    return tmp_path


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--agent", "ray_cli_agent:answer", "--ray", "0"], "at least 1"),
        (["--agent", "ray_cli_agent:answer", "--ray-address", "auto"], "give --ray N too"),
        (["--agent", "http://127.0.0.1:9/chat", "--ray", "2"], "I/O-bound"),
        (["--agent", "a:b", "--agent-factory", "c:d", "--ray", "2"], "not both"),
    ],
)
@pytest.mark.parametrize("command", ["eval", "scan"])
def test_usage_errors_exit_2_before_anything_is_stored(folder, capsys, command, args, message):
    extra = ["--dataset", "cases.jsonl"] if command == "eval" else []
    code, _, err = run(capsys, command, *extra, *args, "--hub", "hub.db", "--no-progress")
    assert code == 2 and message in err, err
    assert not (folder / "hub.db").exists() or not _records(folder / "hub.db")


def _records(path: Path) -> list:
    hub = Hub(str(path))
    try:
        return [*hub.evaluations.list(), *hub.scans.list()]
    finally:
        hub.close()


@pytest.mark.parametrize("command", ["eval", "scan"])
def test_without_ray_the_error_names_the_extra(folder, capsys, monkeypatch, command):
    monkeypatch.setitem(sys.modules, "ray", None)  # as when giskard-nb[ray] is not installed
    extra = ["--dataset", "cases.jsonl"] if command == "eval" else []
    code, _, err = run(
        capsys, command, *extra, "--agent", "ray_cli_agent:answer", "--ray", "2", "--hub", "hub.db"
    )
    assert code == 2 and "pip install 'giskard-nb[ray]'" in err, err
    assert not _records(folder / "hub.db")  # stopped before running anything


def test_agent_factory_without_ray_builds_the_agent_here(folder, capsys):
    (folder / "open").touch()
    code, out, _ = run(
        capsys, "eval", "--dataset", "cases.jsonl", "--agent-factory", "ray_cli_agent:make_agent",
        "--hub", "hub.db", "--no-progress",
    )  # fmt: skip
    assert code == 0 and "(finished): 3 pass, 0 fail" in out, out


async def test_view_shows_a_ray_run_in_progress_like_any_other(folder, capsys, ray_session):
    """The run waits on its gated case while the viewer reads the Hub: the evaluation shows as
    running with the results stored so far; once the gate opens, as finished."""
    from giskard_nb.report import Viewer

    args = ["eval", "--dataset", "cases.jsonl", "--agent-factory", "ray_cli_agent:make_agent"]
    args += ["--ray", "2", "--hub", "hub.db", "--no-progress"]
    command = asyncio.create_task(asyncio.to_thread(main, args))
    hub_path = folder / "hub.db"
    evaluation = None
    for _ in range(1200):  # the actors start, then the two ungated cases are stored
        await asyncio.sleep(0.05)
        assert not command.done(), command.result()
        if hub_path.exists() and (found := _records(hub_path)):
            (evaluation,) = found
            hub = Hub(str(hub_path))
            stored = len(hub.evaluations.results.list(evaluation.id))
            hub.close()
            if stored == 2:
                break
    assert evaluation is not None
    hub = Hub(str(hub_path))
    try:
        with Viewer(hub, 0).start() as viewer:
            running = _page(viewer, f"/evaluations/{evaluation.id}")
            (folder / "open").touch()
            code = await command
            finished = _page(viewer, f"/evaluations/{evaluation.id}")
    finally:
        hub.close()
    assert code == 0
    assert "<th>status</th><td>running</td>" in running
    assert "<th>results</th><td>2 of 3 test cases</td>" in running
    assert "<th>status</th><td>finished</td>" in finished
    assert "<th>results</th><td>3 of 3 test cases</td>" in finished


def _page(viewer, path: str) -> str:
    with urllib.request.urlopen(viewer.url.rstrip("/") + path, timeout=10) as response:
        return response.read().decode()
