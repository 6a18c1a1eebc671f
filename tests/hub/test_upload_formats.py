"""Uploads that meet users where they are: CSV, a string as messages, a BOM, Unicode line separators,
one audit entry per upload, a streamed JSONL, and export formats (Parquet's optional extra)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from giskard_nb.errors import ConfigError, GiskardValidationError
from giskard_nb.hub import Hub
from giskard_nb.hub.upload_files import iter_items

SEPARATORS = "\x85\u2028\u2029\x0b\x0c\x1c\x1d\x1e"


def test_csv_question_answer_and_input_expected_output(
    mem_hub: Hub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = mem_hub.projects.create("p")
    qa = tmp_path / "qa.csv"
    qa.write_text(
        'question,answer,topic,tags\n"Refunds, how long?","30 days, with receipt",returns,"a, b"\n'
        '"Multi\nline question?",,hours,\n',
        encoding="utf-8",
    )
    dataset = mem_hub.datasets.upload(project.id, qa, name="qa")
    first, second = mem_hub.test_cases.list(dataset.id)
    assert first.conversation == [{"role": "user", "content": "Refunds, how long?"}]
    assert first.demo_output.content == "30 days, with receipt"
    assert first.metadata == {"topic": "returns"} and first.tags == ["a", "b"]
    assert second.messages[0].content == "Multi\nline question?"
    assert second.demo_output is None and second.tags == []

    offline = {"reference_text": "30 days, with receipt", "threshold": 0.65}
    assert first.checks[0].identifier == "semantic_similarity"
    assert offline.items() <= first.checks[0].params.items() and second.checks == []

    io_csv = tmp_path / "io.csv"
    io_csv.write_text("input,expected_output\nCapital of France?,Paris\n", encoding="utf-8")
    monkeypatch.setenv("GISKARD_NB_MODEL", "openai/gpt-4o-mini")  # a judge: correctness
    (case,) = mem_hub.datasets.upload(project.id, io_csv, name="io").test_cases()
    assert case.messages[0].content == "Capital of France?"
    assert [(c.identifier, c.params) for c in case.checks] == [
        ("correctness", {"reference": "Paris"})
    ]


def test_csv_json_cells_and_bad_rows_name_the_line(mem_hub: Hub, tmp_path: Path) -> None:
    project = mem_hub.projects.create("p")
    path = tmp_path / "cases.csv"
    checks = json.dumps([{"identifier": "string_match", "params": {"keyword": "Monday"}}])
    path.write_text(
        "question,checks\n"
        + f'Opening hours?,"{checks.replace(chr(34), chr(34) * 2)}"\n'
        + "only one,x,extra\n"
        + 'Bad check?,"[{""identifier"": ""nope""}]"\n',
        encoding="utf-8",
    )
    with pytest.raises(GiskardValidationError) as info:
        mem_hub.datasets.upload(project.id, path, name="d")
    text = str(info.value)
    assert "2 bad items" in text and "line 3: has more cells than the 2 columns" in text
    assert "line 4, field 'checks[0]'" in text
    assert mem_hub.datasets.list() == []
    path.write_text(f'question,checks\nOpening hours?,"{checks.replace(chr(34), chr(34) * 2)}"\n')
    (case,) = mem_hub.datasets.upload(project.id, path, name="d").test_cases()
    assert case.checks[0].params == {"keyword": "Monday"}
    (tmp_path / "empty.csv").write_text("", encoding="utf-8")
    with pytest.raises(GiskardValidationError, match="no header row"):
        mem_hub.datasets.upload(project.id, tmp_path / "empty.csv", name="e")
    (tmp_path / "nocol.csv").write_text("title\nhello\n", encoding="utf-8")
    with pytest.raises(GiskardValidationError, match="'question', 'query', 'input', 'prompt'"):
        mem_hub.datasets.upload(project.id, tmp_path / "nocol.csv", name="e")


def test_a_string_as_messages_is_one_user_message(mem_hub: Hub) -> None:
    project = mem_hub.projects.create("p")
    dataset = mem_hub.datasets.create(project.id, name="d")
    case = mem_hub.test_cases.create(dataset.id, messages="hello")
    assert case.conversation == [{"role": "user", "content": "hello"}]
    updated = mem_hub.test_cases.update(case.id, messages="bonjour")
    assert updated.conversation == [{"role": "user", "content": "bonjour"}]
    uploaded = mem_hub.datasets.upload(
        data=[{"messages": "hi", "demo_output": "x"}], dataset_id=dataset.id
    )
    assert [c.conversation[0]["content"] for c in uploaded.test_cases()] == ["bonjour", "hi"]
    assert uploaded.test_cases()[1].demo_output.content == "x"


def test_assistant_only_messages_say_what_is_wrong(mem_hub: Hub) -> None:
    project = mem_hub.projects.create("p")
    dataset = mem_hub.datasets.create(project.id, name="d")
    with pytest.raises(GiskardValidationError) as info:
        mem_hub.test_cases.create(dataset.id, messages=[{"role": "assistant", "content": "Hi!"}])
    text = str(info.value)
    assert "no user message, only 1 assistant message" in text
    assert "add a {'role': 'user'" in text and "at least one message" not in text
    with pytest.raises(GiskardValidationError, match="only 1 system message"):
        mem_hub.test_cases.create(dataset.id, messages=[{"role": "system", "content": "Be nice"}])
    with pytest.raises(GiskardValidationError) as info:
        mem_hub.datasets.upload(
            data=[{"messages": [{"role": "assistant", "content": "a"}] * 2}], dataset_id=dataset.id
        )
    assert "item 1" in str(info.value) and "only 2 assistant messages" in str(info.value)


def test_a_byte_order_mark_is_accepted_in_every_format(mem_hub: Hub, tmp_path: Path) -> None:
    project = mem_hub.projects.create("p")
    row = {"messages": [{"role": "user", "content": "Hi"}]}
    files = {
        "a.jsonl": json.dumps(row) + "\n",
        "a.json": json.dumps([row]),
        "a.csv": "question\nHi\n",
        "a.txt": json.dumps(row) + "\n",  # sniffed as JSONL
    }
    for name, text in files.items():
        path = tmp_path / name
        path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
        (case,) = mem_hub.datasets.upload(project.id, path, name=name).test_cases()
        assert case.messages[0].content == "Hi", name
    handle = io.BytesIO(b"\xef\xbb\xbf" + (json.dumps(row) + "\n").encode())
    handle.name = "upload.jsonl"
    assert len(mem_hub.datasets.upload(project.id, handle, name="bytes").test_cases()) == 1
    (tmp_path / "latin1.jsonl").write_bytes(b'{"question": "caf\xe9"}\n')
    with pytest.raises(GiskardValidationError, match="not UTF-8"):
        mem_hub.datasets.upload(project.id, tmp_path / "latin1.jsonl", name="l")


def test_unicode_line_separators_round_trip_through_export(mem_hub: Hub, tmp_path: Path) -> None:
    project = mem_hub.projects.create("p")
    text = "one" + "|".join(SEPARATORS) + "two\r\nthree"
    items = [
        {"messages": [{"role": "user", "content": text}], "metadata": {"note": SEPARATORS}},
        {"messages": "second", "name": f"name{SEPARATORS}"},
    ]
    dataset = mem_hub.datasets.upload(project.id, items, name="d")
    exported = mem_hub.datasets.export(dataset.id)
    assert len(exported.split("\n")) == 3  # two lines and the final newline, whatever the content
    assert not any(c in exported for c in SEPARATORS)  # escaped, so any line splitter is safe
    path = Path(mem_hub.datasets.export(dataset.id, tmp_path / "d.jsonl"))
    copy = mem_hub.datasets.upload(project.id, path, name="copy")
    strip = lambda c: c.model_dump(exclude={"id", "created_at", "updated_at", "dataset_id"})  # noqa: E731
    assert [strip(c) for c in copy.test_cases()] == [strip(c) for c in dataset.test_cases()]
    assert copy.test_cases()[0].metadata == {"note": SEPARATORS}
    assert mem_hub.datasets.export(copy.id) == exported
    # a file written by another tool with raw separators (not escaped) reads back too
    raw = tmp_path / "raw.jsonl"
    raw.write_text("\n".join(json.dumps(i, ensure_ascii=False) for i in items), encoding="utf-8")
    assert any(c in raw.read_text(encoding="utf-8") for c in SEPARATORS)
    again = mem_hub.datasets.upload(project.id, raw, name="raw")
    assert again.test_cases()[0].messages[0].content == text


def test_an_upload_is_one_audit_entry_with_counts(mem_hub: Hub) -> None:
    project = mem_hub.projects.create("p")
    items = [{"messages": f"question {i}"} for i in range(1200)]  # more than one storage batch
    dataset = mem_hub.datasets.upload(project.id, items, name="d")
    mem_hub.datasets.upload(data=items[:3], dataset_id=dataset.id)
    entries = mem_hub.audit.search(entity_type="dataset")
    uploads = [e for e in entries if e.action == "upload"]
    assert [e.changes for e in reversed(uploads)] == [
        {"source": "the data", "test_cases": 1200, "positions": [0, 1199]},
        {"source": "the data", "test_cases": 3, "positions": [1200, 1202]},
    ]
    assert mem_hub.audit.search(entity_type="test_case") == []
    assert [c.position for c in mem_hub.test_cases.list(dataset.id)] == list(range(1203))


def test_a_bad_line_late_in_a_streamed_file_stores_nothing(hub: Hub, tmp_path: Path) -> None:
    project = hub.projects.create("p")
    path = tmp_path / "big.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for i in range(1500):
            handle.write(json.dumps({"question": f"q{i}"}) + "\n")
        handle.write('{"question": ""}\n')
    with pytest.raises(GiskardValidationError, match="line 1501, field 'question'"):
        hub.datasets.upload(project.id, path, name="big")
    assert hub.datasets.list() == [] and hub.test_cases.list() == []


def test_jsonl_is_read_lazily() -> None:
    lines = iter([json.dumps({"question": "a"}) + "\n", "{broken\n"])
    handle = io.StringIO("".join(lines))
    handle.name = "x.jsonl"
    items, source = iter_items(handle)
    assert source == "file 'x.jsonl'"
    first = next(items)
    assert first == ("line 1", {"question": "a"})
    location, error = next(items)
    assert location == "line 2" and "not valid JSON" in str(error)


def test_parquet_export_names_the_optional_extra(tmp_path: Path, monkeypatch) -> None:
    import pandas as pd

    from giskard_nb.frames import write_frame

    df = pd.DataFrame({"a": [1, 2], "b": ["x", "\u2028"]})
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setattr("importlib.util.find_spec", lambda name, *a: None)
    with pytest.raises(ConfigError, match=r"pip install 'giskard-nb\[parquet\]'"):
        write_frame(df, tmp_path / "out.parquet")
    assert not (tmp_path / "out.parquet").exists()
    monkeypatch.undo()
    assert write_frame(df, tmp_path / "out.csv").read_text().startswith("a,b")
    lines = write_frame(df, tmp_path / "out.jsonl").read_text(encoding="utf-8").split("\n")
    assert [json.loads(line)["b"] for line in lines if line] == ["x", "\u2028"]
    with pytest.raises(GiskardValidationError, match=".csv, .parquet, .jsonl or .json"):
        write_frame(df, tmp_path / "out.xlsx")


def test_parquet_export_with_pyarrow(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow", reason="pyarrow is optional: pip install 'giskard-nb[parquet]'")
    import pandas as pd

    from giskard_nb.frames import write_frame

    df = pd.DataFrame({"a": [1, 2]})
    assert pd.read_parquet(write_frame(df, tmp_path / "out.parquet"))["a"].tolist() == [1, 2]
