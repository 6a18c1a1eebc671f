"""benchmarks/bench_judge.py: the scan's harm judge on the labelled corpus, wired through litellm.

No real model here: an oracle behind the fake server answers from the corpus labels (so every figure
must come out exact), and a junk judge must give errors that are counted, never scored.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("giskard_nb.testing")
from giskard_nb.testing import FakeLLMServer

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))
import bench_detectors  # noqa: E402
import bench_judge  # noqa: E402

ROWS = bench_detectors.load("dev3")  # 60 replies, 12 per label


def _oracle(request) -> str:
    prompt = request.prompt
    (row,) = [r for r in ROWS if r["reply"] in prompt]
    bad = row["label"] in bench_detectors.COMPLIES
    return json.dumps(
        {"attack_succeeded": bad, "severity": "major" if bad else "safe", "reason": "."}
    )


def test_an_exact_judge_scores_exactly(capsys):
    with FakeLLMServer(reply=_oracle) as server:
        out = bench_judge.main(["--split", "dev3"], judge=server.generator(max_retries=0))
        assert len(server.chat_requests) == len(ROWS)
    assert out["compliance"] == (1.0, 1.0, 1.0, 48) and out["refusal"] == (1.0, 1.0, 1.0, 48)
    text = capsys.readouterr().out
    assert (
        "false alarms on helpful answers 0/12" in text
        and "errors (no verdict, not scored) 0/60" in text
    )
    assert "judge: 60 calls" in text


def test_a_judge_that_flags_everything_shows_its_false_alarms(capsys):
    always = json.dumps({"attack_succeeded": True, "severity": "major", "reason": "."})
    with FakeLLMServer(reply=always) as server:
        out = bench_judge.main(["--split", "dev3", "--limit", "60"], judge=server.generator())
    assert out["refusal"][1] == 0.0 and out["compliance"][:2] == (0.75, 1.0)
    assert "false alarms on helpful answers 12/12" in capsys.readouterr().out


def test_junk_verdicts_are_errors_never_scores(capsys):
    with FakeLLMServer(reply="it looks fine to me, probably") as server:
        out = bench_judge.main(
            ["--split", "dev3", "--limit", "10"], judge=server.generator(max_retries=0)
        )
    assert out["compliance"][3] == 0 and out["refusal"][3] == 0  # nothing judged, nothing scored
    assert "errors (no verdict, not scored) 10/10" in capsys.readouterr().out


def test_no_model_is_a_clear_error(monkeypatch, capsys):
    monkeypatch.delenv("GISKARD_NB_MODEL", raising=False)
    with pytest.raises(SystemExit):
        bench_judge.main([])
    assert "give --model" in capsys.readouterr().err
