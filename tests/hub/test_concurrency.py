"""Concurrency edges of the Hub on one SQLite file: outside write locks, two runs of one evaluation,
runs whose process died."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from giskard_nb.errors import HubError
from giskard_nb.hub import Hub


def _hold_write_lock(path: Path, seconds: float) -> tuple[threading.Thread, threading.Event]:
    """A thread holding the file's write lock (BEGIN IMMEDIATE) for ``seconds``."""
    taken = threading.Event()

    def hold() -> None:
        conn = sqlite3.connect(path, isolation_level=None)
        conn.execute("BEGIN IMMEDIATE")
        taken.set()
        time.sleep(seconds)
        conn.execute("ROLLBACK")
        conn.close()

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    assert taken.wait(10)
    return thread, taken


def test_a_write_waits_for_an_outside_lock_and_succeeds(tmp_path: Path) -> None:
    path = tmp_path / "hub.db"
    hub = Hub(path)
    hub._db.lock_timeout = 30
    thread, _ = _hold_write_lock(path, 1.5)  # longer than SQLite's own 1 s wait: retried
    project = hub.projects.create("written after the lock")
    thread.join()
    assert hub.projects.retrieve(project.id).name == "written after the lock"
    hub.close()


def test_a_lock_held_too_long_ends_in_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "hub.db"
    hub = Hub(path)
    hub._db.lock_timeout = 0.3
    thread, _ = _hold_write_lock(path, 3)
    with pytest.raises(HubError, match="is locked") as info:
        hub.projects.create("never written")
    assert str(path) in str(info.value) and "GISKARD_NB_LOCK_TIMEOUT" in str(info.value)
    thread.join()
    assert hub.projects.list() == []
    hub.projects.create("fine once released")
    hub.close()


def test_the_lock_timeout_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GISKARD_NB_LOCK_TIMEOUT", "7.5")
    hub = Hub(tmp_path / "hub.db")
    assert hub._db.lock_timeout == 7.5
    hub.close()
