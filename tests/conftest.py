"""Test-wide isolation: no test reads or writes the user's ~/.giskard_nb, and no test inherits a model
configuration from the environment."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    home = tmp_path_factory.mktemp("giskard_nb_home")
    monkeypatch.setenv("GISKARD_NB_HOME", str(home))
    for var in ("GISKARD_NB_MODEL", "GISKARD_NB_EMBEDDING_MODEL", "GISKARD_NB_HUB_URL"):
        monkeypatch.delenv(var, raising=False)
    yield home


@pytest.fixture
def shared_data() -> Path:
    """The public datasets beside the repository (``../shared/data``); skips when absent (a user's clone)."""
    if not SHARED_DATA.is_dir():
        pytest.skip(
            f"shared data not available at {SHARED_DATA} (only present in the project workspace)"
        )
    return SHARED_DATA
