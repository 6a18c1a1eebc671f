"""The Hub's secrets file cannot be planted or swapped by another user of a shared machine: it is
written through a fresh ``O_EXCL`` temporary file (``0600``, random name), and a folder every user may
write to is refused (security item 8)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from giskard_nb.errors import ConfigError
from giskard_nb.hub import Hub

KEY = "sk-live-0a1b2c3d4e5f"


def _store_a_secret(db: Path) -> Hub:
    hub = Hub(str(db))
    project = hub.projects.create(name="p")
    hub.agents.create(project.id, name="bot", url="http://127.0.0.1:9/", headers={"X-Api-Key": KEY})
    return hub


@pytest.mark.skipif(os.name == "nt", reason="POSIX permissions")
@pytest.mark.parametrize("kind", ["world-readable file", "symlink"])
def test_a_planted_temporary_file_is_never_written_through(tmp_path: Path, kind: str) -> None:
    secrets = tmp_path / "hub.db.secrets.json"
    # the old predictable name, pre-created by "another user"
    planted = tmp_path / f"hub.db.secrets.json.{os.getpid()}.tmp"
    elsewhere = tmp_path / "attacker-readable.json"
    if kind == "symlink":
        planted.symlink_to(elsewhere)
    else:
        planted.write_text("")
        planted.chmod(0o644)

    _store_a_secret(tmp_path / "hub.db").close()

    assert not elsewhere.exists()  # never written through
    assert planted.is_symlink() if kind == "symlink" else planted.read_text() == ""
    assert not secrets.is_symlink() and KEY in secrets.read_text()
    assert stat.S_IMODE(secrets.stat().st_mode) == 0o600  # before: the planted file's 0644
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == [planted.name]  # ours were renamed into place


@pytest.mark.skipif(os.name == "nt", reason="POSIX permissions")
@pytest.mark.parametrize("mode", [0o777, 0o1777])
def test_a_world_writable_folder_is_refused(tmp_path: Path, mode: int) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(mode)
    hub = Hub(str(shared / "hub.db"))
    try:
        project = hub.projects.create(name="p")
        with pytest.raises(ConfigError, match="every user of this machine may write to") as info:
            hub.agents.create(project.id, name="bot", url="http://x/", headers={"X-Api-Key": KEY})
        assert "GISKARD_NB_SECRETS_FILE" in str(info.value)
        assert not (shared / "hub.db.secrets.json").exists()
    finally:
        hub.close()


@pytest.mark.skipif(os.name == "nt", reason="POSIX permissions")
def test_a_symlink_planted_at_the_lock_is_refused(tmp_path: Path) -> None:
    (tmp_path / "hub.db.secrets.json.lock").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ConfigError, match="cannot lock the Hub's secrets file"):
        _store_a_secret(tmp_path / "hub.db").close()
    assert not (tmp_path / "elsewhere").exists()


def test_a_private_secrets_file_is_still_written_and_read(tmp_path: Path) -> None:
    hub = _store_a_secret(tmp_path / "hub.db")
    agent = hub.agents.list()[0]
    hub.close()
    again = Hub(str(tmp_path / "hub.db"))
    try:
        assert again.agents.retrieve(agent.id).secret_headers() == {"X-Api-Key": KEY}
    finally:
        again.close()
