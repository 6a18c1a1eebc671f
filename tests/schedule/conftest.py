"""The local SMTP server fixtures (``tests/schedule/smtp.py``)."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

if "giskard_nb_test_smtp" not in sys.modules:
    _spec = importlib.util.spec_from_file_location(
        "giskard_nb_test_smtp", Path(__file__).with_name("smtp.py")
    )
    assert _spec and _spec.loader
    _module = importlib.util.module_from_spec(_spec)
    sys.modules["giskard_nb_test_smtp"] = _module
    _spec.loader.exec_module(_module)
smtp = sys.modules["giskard_nb_test_smtp"]


@pytest.fixture
def smtp_server() -> Iterator[Any]:
    with smtp.smtp_server() as sink:
        yield sink


@pytest.fixture
def smtp_env(smtp_server: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """``GISKARD_NB_SMTP_*`` pointing at the local server (no TLS, with a login)."""
    for key, value in smtp_server.env().items():
        monkeypatch.setenv(key, value)
    return smtp_server
