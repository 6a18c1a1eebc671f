"""litellm is imported lazily, only by giskard_nb/llm/, and configured offline and quiet."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "giskard_nb"


def test_building_checks_and_generators_does_not_import_litellm():
    code = (
        "import sys, giskard_nb\n"
        "from giskard_nb import Generator, Groundedness, LLMJudge, UserSimulator, SemanticSimilarity\n"
        "from giskard_nb.testing import FakeLLMServer\n"
        "from giskard_nb.llm import render_messages\n"
        "Groundedness(context='c'); LLMJudge(prompt='p'); Generator('openai/gpt-4o-mini')\n"
        "UserSimulator(persona='helpful_user'); SemanticSimilarity(reference_text='r')\n"
        "render_messages('x {{ y }}', {'y': 1})\n"
        "print(','.join(m for m in ('litellm', 'openai', 'wordllama') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "" and out.stderr == ""


def test_only_the_llm_package_imports_litellm():
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if "llm" in path.relative_to(PACKAGE).parts[:1]:
            continue
        if re.search(r"^\s*(import litellm|from litellm)", path.read_text(), re.MULTILINE):
            offenders.append(str(path))
    assert offenders == []


def test_first_call_configures_litellm_offline_and_quiet():
    import logging
    import os

    from giskard_nb.llm._litellm import litellm

    lit = litellm()
    assert os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] == "True"  # no price-table download
    assert os.environ["LITELLM_LOG"] == "ERROR"
    assert lit.suppress_debug_info is True
    assert logging.getLogger("LiteLLM").level >= logging.ERROR


def test_litellm_is_imported_only_through_the_configuring_accessors():
    """``from litellm.utils import ...`` elsewhere would import litellm before its offline defaults are
    set (it would then download its price table): every import goes through ``_litellm.litellm()``."""
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "_litellm.py" and path.parent.name == "llm":
            continue
        if re.search(r"^\s*(import litellm|from litellm)", path.read_text(), re.MULTILINE):
            offenders.append(str(path))
    assert offenders == []
