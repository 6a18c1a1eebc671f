"""Uploads are bounded (security review item 10): deep nesting, huge numbers, huge lines and files,
large CSV cells and duplicate keys give an error naming the line, never a raw library error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from giskard_nb.cli import main
from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub import Hub

DEEP = "[" * 200_000 + "]" * 200_000
CASE = {"messages": [{"role": "user", "content": "q"}], "checks": []}


@pytest.fixture
def hub():
    h = Hub(":memory:")
    yield h, h.projects.create("uploads")
    h.close()


def _upload(hub, data, name="d"):
    h, project = hub
    return h.datasets.upload(project.id, data, name=name)


def _line(case: dict, tail: str = "") -> str:
    return json.dumps(case) + tail


@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".csv"])
def test_json_nested_200k_deep_is_an_error_naming_the_line(hub, tmp_path: Path, suffix) -> None:
    path = tmp_path / f"deep{suffix}"
    if suffix == ".jsonl":
        path.write_text(_line(CASE) + "\n" + '{"messages": "q", "metadata": ' + DEEP + "}\n")
        where = "line 2"
    elif suffix == ".json":
        path.write_text(DEEP)
        where = "nested deeper than"
    else:
        path.write_text('question,metadata\nq,"' + DEEP + '"\n')
        where = "line 2"
    with pytest.raises(GiskardValidationError, match="nested deeper than") as raised:
        _upload(hub, path)
    assert where in str(raised.value)


def test_nesting_within_the_limit_is_kept_and_beyond_it_refused_in_memory_too(hub) -> None:
    nested: list = []
    for _ in range(200):
        nested = [nested]
    with pytest.raises(GiskardValidationError, match="item 1: nested deeper than 64 levels"):
        _upload(hub, [{**CASE, "metadata": {"deep": nested}}])
    ok: list = []
    for _ in range(20):
        ok = [ok]
    dataset = _upload(hub, [{**CASE, "metadata": {"deep": ok}}], name="ok")
    assert len(hub[0].test_cases.list(dataset.id)) == 1


def test_a_5000_digit_number_and_duplicate_keys_are_named(hub, tmp_path: Path) -> None:
    path = tmp_path / "numbers.jsonl"
    path.write_text(
        _line(CASE)
        + "\n"
        + '{"messages": "q", "metadata": {"n": '
        + "9" * 5000
        + "}}\n"
        + '{"messages": "first", "messages": "second"}\n'
    )
    with pytest.raises(GiskardValidationError) as raised:
        _upload(hub, path)
    text = str(raised.value)
    assert "line 2" in text and "more than 4,300 digits" in text
    assert "line 3" in text and "'messages' appears twice" in text


def test_an_honest_long_answer_fits_in_a_csv_cell(hub, tmp_path: Path) -> None:
    answer = "A long and honest answer. " * 8_000  # ~200 KB, over the csv module's 128 KiB default
    path = tmp_path / "long.csv"
    path.write_text(f'question,reference\nWhat is it?,"{answer}"\n', encoding="utf-8")
    dataset = _upload(hub, path)
    (case,) = hub[0].test_cases.list(dataset.id)
    assert len(json.dumps(case.model_dump(mode="json"))) > 200_000


def test_a_line_over_the_item_limit_is_skipped_unread_and_named(
    hub, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("GISKARD_NB_UPLOAD_MAX_ITEM_MB", "1")
    path = tmp_path / "huge.jsonl"
    with path.open("w") as f:
        f.write(_line(CASE) + "\n")
        f.write('{"messages": "' + "x" * (3 * 1024 * 1024) + '"}\n')
        f.write(_line(CASE) + "\r\n" + _line(CASE) + "\r" + _line(CASE))
    with pytest.raises(GiskardValidationError) as raised:
        _upload(hub, path)
    text = str(raised.value)
    assert "line 2: longer than 1 MB" in text and "GISKARD_NB_UPLOAD_MAX_ITEM_MB" in text
    assert "line 3" not in text and "line 5" not in text  # the lines after it are read as usual


def test_a_json_file_over_the_limit_is_refused_before_it_is_read(
    hub, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("GISKARD_NB_UPLOAD_MAX_JSON_MB", "1")
    path = tmp_path / "big.json"
    path.write_text(json.dumps([CASE] * 30_000))
    with pytest.raises(GiskardValidationError, match="write it as .jsonl"):
        _upload(hub, path)
    with path.open("rb") as handle, pytest.raises(GiskardValidationError, match="at most 1 MB"):
        _upload(hub, handle)


def test_giskard_nb_eval_on_a_hostile_file_exits_2_without_a_traceback(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "deep.jsonl"
    path.write_text('{"messages": "q", "metadata": ' + DEEP + "}\n")
    agent = "giskard_nb.demo.agent:support_agent"
    code = main(["eval", "--dataset", str(path), "--agent", agent, "--memory", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "nested deeper than" in err and "Traceback" not in err
