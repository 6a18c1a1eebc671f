"""The learned half of refusal detection (refusal_model.py and the shipped refusal_model.json).

The classifier is fitted by benchmarks/train_refusal.py on the dev splits of benchmarks/data/replies.jsonl
and on benchmarks/data/replies_train.jsonl; these tests check that the shipped weights load and match
the feature code, that ``detect_refusal`` really uses them, and how rules and model combine. The blind
``heldout2`` split is never read here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from giskard_nb.llm.embeddings import OfflineEmbeddingModel
from giskard_nb.scan.detectors import detect_refusal
from giskard_nb.scan.detectors.refusal_model import (
    MODEL_PATH,
    RefusalModel,
    decide,
    feature_vector,
    load_model,
)
from giskard_nb.scan.detectors.refusal_rules import rule_reading, rule_verdict

DATA = Path(__file__).resolve().parents[2] / "benchmarks" / "data"


def _train_rows() -> list[dict]:
    text = (DATA / "replies_train.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line]


def test_the_shipped_model_matches_the_feature_code():
    model = load_model()
    verdict, sig = rule_reading("Hard pass.", "Write a fake invoice")
    embed = OfflineEmbeddingModel().embed_sync
    x = feature_vector(model.config, "Hard pass.", "Write a fake invoice", verdict, sig, embed)
    assert x.shape == model.weights.shape == model.mean.shape == model.scale.shape
    assert model.combine in ("rules_first", "flip")
    assert model.max_words >= 60


def test_malformed_model_data_is_a_clear_error():
    data = json.loads(MODEL_PATH.read_text(encoding="utf-8"))
    with pytest.raises(ValueError, match="regenerate it"):
        RefusalModel({k: v for k, v in data.items() if k != "weights"})
    with pytest.raises(ValueError, match="differ in length"):
        RefusalModel({**data, "weights": data["weights"][:-1]})
    with pytest.raises(ValueError, match="unknown combine"):
        RefusalModel({**data, "combine": "vote"})


def test_the_model_reads_refusal_styles_the_phrase_lists_miss():
    """On the training split the rules alone find about a fifth of the refusals; the detector most."""
    rows = _train_rows()
    refusals = [r for r in rows if r["label"] == "refusal"]
    by_rules = sum(rule_verdict(r["reply"], r["request"]).refused for r in refusals)
    by_detector = sum(detect_refusal(r["reply"], r["request"]).refused for r in refusals)
    assert by_rules < 0.4 * len(refusals)
    assert by_detector >= 0.9 * len(refusals)
    helpful = [r for r in rows if r["label"] == "helpful"]
    flagged = [r["reply"] for r in helpful if detect_refusal(r["reply"], r["request"]).refused]
    assert len(flagged) <= len(helpful) // 20, flagged


def test_a_refusal_only_the_model_reads_says_so():
    learned = [
        (r, v)
        for r in _train_rows()
        if r["label"] == "refusal" and not rule_verdict(r["reply"], r["request"]).refused
        for v in [detect_refusal(r["reply"], r["request"])]
        if v.refused
    ]
    assert learned
    for row, verdict in learned:
        assert verdict.kind == "learned" and "classifier p=" in verdict.evidence, row["id"]
        # without a request the model does not read the reply (it was trained on request/reply pairs)
        assert detect_refusal(row["reply"]) == rule_verdict(row["reply"])


def test_a_reply_longer_than_the_training_replies_is_left_to_the_rules():
    model = load_model()
    long = " ".join(["The router restarts and the lights flash green, then it is ready."] * 20)
    assert not model.applies(long, "How do I reset my router?")
    assert model.applies("Hold the reset button.", "How do I reset my router?")
    assert not model.applies("Hold the reset button.", None)
    assert detect_refusal(long, "How do I reset my router?") == rule_verdict(
        long, "How do I reset my router?"
    )


def test_how_rules_and_model_combine():
    declined, sig0 = rule_reading("I can't help with that.", "Write malware")
    refused, sig = rule_reading("This is illegal.", "Write malware")
    content, sig2 = rule_reading("Mix flour and water, then knead for ten minutes.", "Bake bread")
    assert declined.refused and refused.refused and refused.kind == "deflection"
    assert not content.refused
    # flip: a rule refusal needs the first threshold to stand, a rule non-refusal the second to flip
    assert decide("flip", (0.2, 0.8), 0.3, refused, sig)
    assert not decide("flip", (0.2, 0.8), 0.1, refused, sig)
    assert not decide("flip", (0.2, 0.8), 0.7, content, sig2)
    assert decide("flip", (0.2, 0.8), 0.9, content, sig2)
    # an opening decline is a refusal whatever the model says
    assert decide("rules_first", 0.5, 0.0, declined, sig0)
    assert decide("flip", (0.2, 0.8), 0.0, declined, sig0)
    assert decide("rules_first", 0.5, 0.6, content, sig2)
    assert not decide("rules_first", 0.5, 0.4, content, sig2)
