"""``giskard-nb eval --rescore EVALUATION_ID``: the stored replies re-scored with the dataset's current
checks, without calling the agent, reported and exiting like any evaluation."""

from __future__ import annotations

from pathlib import Path

import pytest

from giskard_nb.cli import main
from giskard_nb.hub import Hub


@pytest.fixture
def work(bots_folder) -> Path:
    return bots_folder("rescore_bots")


def test_rescore_reports_a_new_evaluation_without_calling_the_agent(
    work: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    hub_path = str(work / "hub.db")
    base = ["eval", "--hub", hub_path, "--no-progress"]
    assert main([*base, "--dataset", "cases.jsonl", "--agent", "rescore_bots:answer"]) == 1
    capsys.readouterr()
    hub = Hub(hub_path)
    try:
        (original,) = hub.evaluations.list()
        failed = hub.evaluations.results.list(original.id, status="fail")[0]
        hub.test_cases.update(  # the check is fixed: the re-score passes
            failed.test_case_id,
            checks=[{"identifier": "string_match", "params": {"keyword": "Monday"}}],
        )
    finally:
        hub.close()
    monkeypatch.setenv("AGENT_DOWN", "1")
    code = main([*base, "--rescore", original.id[-6:], "--name", "fixed check"])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert f"re-scoring {original.name!r}" in err and "2 pass, 0 fail, 0 error" in out
    hub = Hub(hub_path)
    try:
        rescored = next(e for e in hub.evaluations.list() if e.rescored_from == original.id)
        assert rescored.name == "fixed check" and rescored.counts["pass"] == 2
    finally:
        hub.close()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--judge", "openai/gpt-4o"], "--judge goes with --rescore"),
        (["--rescore", "abcd1234", "--dataset", "x.csv"], "drop --dataset"),
        (["--rescore", "abcd1234"], "--rescore: no record with id 'abcd1234'"),
    ],
)
def test_bad_rescore_arguments_exit_2(args: list[str], message: str, capsys) -> None:
    assert main(["eval", "--memory", "--no-progress", *args]) == 2
    assert message in capsys.readouterr().err
