"""``giskard-nb eval --estimate``: the preflight of an evaluation printed, nothing run, nothing stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from giskard_nb.cli import main
from giskard_nb.hub import Hub


@pytest.fixture
def work(bots_folder) -> Path:
    return bots_folder("estimate_bots")


def _stored(hub_path: str) -> dict[str, int]:
    hub = Hub(hub_path)
    try:
        return {
            "projects": len(hub.projects.list()),
            "datasets": len(hub.datasets.list()),
            "agents": len(hub.agents.list()),
            "evaluations": len(hub.evaluations.list()),
        }
    finally:
        hub.close()


def test_estimate_prints_and_stores_nothing_then_times_by_the_last_run(
    work: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    hub_path = str(work / "hub.db")
    base = ["eval", "--hub", hub_path, "--no-progress", "--dataset", "cases.jsonl"]
    local = [*base, "--agent", "estimate_bots:answer"]
    monkeypatch.setenv("AGENT_DOWN", "1")  # an estimate never calls the agent
    code = main([*local, "--estimate", "--repeats", "3"])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert "2 test cases × 3 repeats: 6 agent calls" in out and "no judge call" in out
    assert "time unknown (no finished evaluation of this dataset by agent 'answer' yet)" in out
    assert "is not in" in err and "estimated from the file (nothing stored)" in err
    url = [*base, "--agent", "http://127.0.0.1:9/chat", "--estimate"]
    assert main(url) == 0 and "2 test cases: 2 agent calls" in capsys.readouterr().out
    assert _stored(hub_path) == {"projects": 0, "datasets": 0, "agents": 0, "evaluations": 0}

    monkeypatch.delenv("AGENT_DOWN")
    assert main(local) == 1  # a real run: one case fails
    capsys.readouterr()
    monkeypatch.setenv("AGENT_DOWN", "1")
    code = main([*local, "--estimate", "--repeats", "3", "--max-concurrency", "2"])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    hub = Hub(hub_path)
    try:
        (run,) = hub.evaluations.list()
    finally:
        hub.close()
    assert "at 2 concurrent cases: ~" in out and f"({run.id}), 3 waves of 2" in out
    assert "not in" not in err  # the uploaded dataset is the Hub's
    assert _stored(hub_path) == {"projects": 1, "datasets": 1, "agents": 0, "evaluations": 1}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--estimate", "--rescore", "abcd1234"], "--estimate previews a run"),
        (["--estimate", "--demo", "--repeats", "0"], "--repeats must be at least 1"),
        (["--estimate", "--demo", "--max-concurrency", "0"], "--max-concurrency must be at least"),
    ],
)
def test_bad_estimate_arguments_exit_2(args: list[str], message: str, capsys) -> None:
    assert main(["eval", "--memory", "--no-progress", *args]) == 2
    assert message in capsys.readouterr().err
