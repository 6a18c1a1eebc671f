"""One table (``core.registry.LAZY_KINDS``) names the module of every lazy built-in kind: a saved spec
loads by kind in a fresh process, without its module imported first, and nothing else is imported."""

from __future__ import annotations

import subprocess
import sys

import pytest

from giskard_nb import BaseEmbeddingModel, Check, Generator, InputGenerator, InteractionSpec
from giskard_nb.core import registry
from giskard_nb.core.registry import LAZY_KINDS
from giskard_nb.errors import ConfigError, UnknownKindError

ROOTS = (Check, Generator, BaseEmbeddingModel, InputGenerator, InteractionSpec)


def _fresh(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stderr == ""
    return out.stdout.strip()


def test_every_entry_names_a_family_and_the_module_registering_the_kind():
    families = {root._family: root for root in ROOTS}
    assert set(LAZY_KINDS) <= set(families), sorted(set(LAZY_KINDS) - set(families))
    for family, kinds in LAZY_KINDS.items():
        root = families[family]
        for kind, module in kinds.items():
            assert kind in root.kinds()
            assert root.registered_class(kind).__module__ == module, (family, kind)


def test_saved_specs_load_by_kind_importing_only_their_module():
    code = (
        "import sys\n"
        "from giskard_nb import BaseEmbeddingModel, Check, Generator\n"
        "mods = ('giskard_nb.scan', 'giskard_nb.testing', 'giskard_nb.kb', 'numpy')\n"
        "print('loaded:', ','.join(m for m in mods if m in sys.modules))\n"
        "print('scan_vulnerability' in Check.kinds(), 'fake_model' in Generator.kinds(),\n"
        "      'hashing' in BaseEmbeddingModel.kinds())\n"
        "model = Generator.model_validate({'kind': 'fake_model', 'replies': ['hi']})\n"
        "print(type(model).__module__, model.replies, 'giskard_nb.scan' in sys.modules)\n"
        "emb = BaseEmbeddingModel.model_validate({'kind': 'hashing', 'dimensions': 32})\n"
        "print(type(emb).__name__, emb.dimensions)\n"
        "print(Check.registered_class('scan_vulnerability').__name__)\n"
    )
    lines = _fresh(code).splitlines()
    assert lines == [
        "loaded: ",
        "True True True",
        "giskard_nb.testing.fake_model ['hi'] False",
        "HashingEmbedder 32",
        "Vulnerability",
    ]


def test_a_hub_check_spec_of_a_lazy_kind_resolves_without_the_scan_package():
    code = (
        "import sys\n"
        "from giskard_nb.hub.check_specs import known_identifiers, resolve_kind\n"
        "print('giskard_nb.scan.regression' in sys.modules, 'scan_vulnerability' in "
        "known_identifiers())\n"
        "print(resolve_kind('scan_vulnerability'), resolve_kind('string_match'))\n"
    )
    assert _fresh(code).splitlines() == ["False True", "scan_vulnerability string_matching"]


def test_a_lazy_module_that_cannot_be_imported_is_a_clear_error(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setitem(LAZY_KINDS["check"], "test_lazy_missing", "giskard_nb_no_such_module")
    assert "test_lazy_missing" in Check.kinds()
    with pytest.raises(ConfigError, match="check kind 'test_lazy_missing'.*giskard_nb_no_such_mod"):
        Check.model_validate({"kind": "test_lazy_missing"})


def test_a_kind_of_another_family_is_not_looked_up_in_this_one():
    assert "hashing" not in Check.kinds() and "scan_vulnerability" not in Generator.kinds()
    with pytest.raises(UnknownKindError):
        Generator.registered_class("scan_vulnerability")
    assert registry.LAZY_KINDS is LAZY_KINDS
