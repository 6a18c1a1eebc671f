"""``giskard-nb eval --agent module:function`` follows the one agent convention: a function taking
text (``question: str``) is evaluated on the last user message, and one of the wrong shape says so."""

from __future__ import annotations

import json
from pathlib import Path

AGENTS = """
def by_text(question: str) -> str:
    return "Hello! We are open Monday to Friday." if "open" in question.lower() else "Hello!"

def by_messages(messages):
    return "Hello! We are open Monday to Friday." if "open" in messages[-1]["content"] else "Hello!"

def misread(inputs):
    return inputs[-1]["content"]
"""


def test_eval_a_module_function_of_either_convention(tmp_path: Path, capsys, monkeypatch) -> None:
    from giskard_nb.cli import main

    (tmp_path / "convention_agents.py").write_text(AGENTS, encoding="utf-8")
    cases = [
        {"messages": "When are you open?", "checks": [{"identifier": "string_match", "params": {"keyword": "Monday"}}]},
        {"question": "Hi?", "checks": [{"identifier": "string_match", "params": {"keyword": "Hello"}}]},
    ]  # fmt: skip
    (tmp_path / "cases.jsonl").write_text("\n".join(json.dumps(c) for c in cases) + "\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    args = ["eval", "--dataset", "cases.jsonl", "--memory", "--no-progress", "--agent"]
    for agent in ("by_text", "by_messages"):
        assert main([*args, f"convention_agents:{agent}"]) == 0
        assert "2 pass, 0 fail, 0 error" in capsys.readouterr().out
    assert main([*args, "convention_agents:misread"]) == 1
    out = capsys.readouterr().out
    assert "0 pass, 0 fail, 2 error" in out
    assert "received the last user message as a string" in out
    assert "string indices must be integers" in out
