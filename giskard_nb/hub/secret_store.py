"""Where the Hub keeps secrets: outside its database, so the database file holds none of them.

When a record is written, every secret value in it (agent header values, and any secret-named value such
as a check's ``generator.api_key``: see ``giskard_nb.secrets``) is moved to the Hub's **secrets file** and
replaced by a reference ``${secret:<id>}``. The Hub resolves references only when it calls an agent or
builds a check, so a restarted Hub still calls its agents. The database, its backups, exports,
DataFrames and the audit log hold references or ``***``, never the value.

- SQLite file ``hub.db``: the secrets file is ``hub.db.secrets.json`` next to it (created ``0600``,
  written through a fresh temporary file made with ``O_EXCL``, synced and renamed; a folder every user
  may write to, such as ``/tmp``, is refused with a ``ConfigError``).
- PostgreSQL: ``$GISKARD_NB_HOME/secrets/<hash of the URL>.json`` on the machine that stored the secret;
  a teammate's machine has its own, so for a shared Hub prefer environment references
  (``"Bearer ${MY_TOKEN}"``), which are never moved (nothing secret in them).
- ``Hub(":memory:")``: in memory, gone with the Hub.

``GISKARD_NB_SECRETS_FILE`` overrides the file. Values already referencing the environment (``${NAME}``)
are left as written. Writing back ``***`` (a masked dump) where a secret is kept keeps it; ``***`` for a new
secret (a re-uploaded export) is refused with a ``GiskardValidationError``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from giskard_nb.core.files import atomic_write
from giskard_nb.errors import ConfigError, GiskardValidationError
from giskard_nb.secrets import MASK, is_reference, is_secret_name, mask_url

__all__ = ["SecretStore", "resolve_secret_refs"]

_REF = re.compile(r"\$\{secret:([0-9a-f]{32})\}")
_open: list[SecretStore] = []
_open_lock = threading.Lock()


class SecretStore:
    """A small JSON file of ``id -> secret`` (or a dict, for an in-memory Hub)."""

    def __init__(self, path: Path | None):
        self.path = path
        self._values: dict[str, str] = {}
        self._lock = threading.Lock()
        self._loaded = False
        with _open_lock:
            _open.append(self)

    @classmethod
    def for_database(cls, url: str, *, is_memory: bool) -> SecretStore:
        override = os.environ.get("GISKARD_NB_SECRETS_FILE")
        if override:
            return cls(Path(override).expanduser())
        if is_memory:
            return cls(None)
        if url.startswith("sqlite:///"):
            return cls(Path(url.removeprefix("sqlite:///") + ".secrets.json"))
        from giskard_nb.config import home_dir

        digest = hashlib.sha256(mask_url(url).encode()).hexdigest()[:16]
        return cls(home_dir() / "secrets" / f"{digest}.json")

    def close(self) -> None:
        with _open_lock, contextlib.suppress(ValueError):
            _open.remove(self)

    # -- values ------------------------------------------------------------------------------------

    def put(self, value: str) -> str:
        """Keep ``value``; return the reference that stands for it."""
        ref_id = uuid.uuid4().hex
        with self._lock, self._file_lock():
            self._read(force=True)  # another process may have added secrets since
            self._values[ref_id] = value
            self._write()
        return f"${{secret:{ref_id}}}"

    def forget(self, data: Any) -> int:
        """Remove the secrets that ``data`` (JSON-like) refers to; the number removed."""
        ids = set(_REF.findall(json.dumps(data, default=str)))
        if not ids:
            return 0
        with self._lock, self._file_lock():
            self._read(force=True)
            removed = [self._values.pop(i) for i in ids if i in self._values]
            if removed:
                self._write()
        return len(removed)

    def get(self, ref_id: str) -> str | None:
        with self._lock:
            if ref_id not in self._values:
                self._read(force=True)
            return self._values.get(ref_id)

    def seal(self, data: Any, previous: Any = None, *, secret: bool = False) -> Any:
        """``data`` (JSON-like) with each secret value replaced by a reference; a value equal to the
        one ``previous`` held at the same place keeps its reference (an unchanged secret is unchanged)."""
        if isinstance(data, dict):
            prev = previous if isinstance(previous, dict) else {}
            return {
                k: self.seal(v, prev.get(k), secret=secret or is_secret_name(k))
                for k, v in data.items()
            }
        if isinstance(data, list):
            prev = previous if isinstance(previous, list) else []
            return [
                self.seal(v, prev[i] if i < len(prev) else None, secret=secret)
                for i, v in enumerate(data)
            ]
        if not secret or not isinstance(data, str) or not data or is_reference(data):
            return data
        known = isinstance(previous, str) and is_reference(previous)
        if known and (data == MASK or resolve_secret_refs(previous, strict=False) == data):
            return previous  # unchanged (``***`` is how a dump shows the value it keeps)
        if data == MASK:
            raise GiskardValidationError(
                f"a secret value is {MASK!r}, the mask shown in dumps and exports (they never hold "
                "secrets): give the value itself again, or an environment reference such as "
                "'${MY_API_KEY}'"
            )
        return self.put(data)

    # -- file --------------------------------------------------------------------------------------

    def _read(self, force: bool = False) -> None:
        if self.path is None or (self._loaded and not force):
            return
        try:
            self._values.update(json.loads(self.path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            pass
        except (OSError, ValueError) as exc:
            raise ConfigError(
                f"cannot read the Hub's secrets file {self.path}: {exc}. Restore it from a backup, "
                "or delete it and set the agents' headers and checks' keys again"
            ) from None
        self._loaded = True

    @contextlib.contextmanager
    def _file_lock(self) -> Iterator[None]:
        """An exclusive lock on ``<file>.lock`` across processes (where ``fcntl`` exists)."""
        if self.path is None:
            yield
            return
        try:
            import fcntl
        except ImportError:  # Windows: writes are still atomic, concurrent adds may race
            yield
            return
        self._folder()
        lock = self.path.with_name(self.path.name + ".lock")
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except OSError as exc:  # a symlink planted at the lock's name, a read-only folder
            raise ConfigError(
                f"cannot lock the Hub's secrets file {self.path} ({lock}: {exc.strerror}): remove "
                "what is at that path if you did not put it there, or keep the Hub in another folder"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def _write(self) -> None:
        """Write the file atomically: a fresh temporary file (``O_EXCL``, random name, ``0600``) in the
        same folder, synced, then renamed over the file; a name planted in advance is never opened."""
        if self.path is None:
            return
        self._folder()
        with atomic_write(self.path, mode=0o600) as handle:
            json.dump(self._values, handle)

    def _folder(self) -> Path:
        """The secrets file's folder (created ``0700``); a folder anyone may write to is refused."""
        assert self.path is not None
        folder = self.path.parent
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        if os.name != "nt" and os.stat(folder).st_mode & stat.S_IWOTH:
            raise ConfigError(
                f"the Hub's secrets file {self.path} would be kept in {folder}, a folder every user of "
                "this machine may write to (another user could plant or swap the file): keep the Hub "
                "database in a private folder, or set GISKARD_NB_SECRETS_FILE to a path in one "
                "(for example ~/.giskard-nb/secrets/hub.json)"
            )
        return folder

    def __repr__(self) -> str:
        where = str(self.path) if self.path else "in memory"
        return f"<SecretStore {where}>"


def resolve_secret_refs(value: Any, *, strict: bool = True, what: str = "a value") -> Any:
    """``value`` (a string, or JSON-like data) with every ``${secret:<id>}`` replaced by the secret."""
    if isinstance(value, dict):
        return {k: resolve_secret_refs(v, strict=strict, what=what) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve_secret_refs(v, strict=strict, what=what) for v in value]
    if not isinstance(value, str) or "${secret:" not in value:
        return value

    def sub(match: re.Match[str]) -> str:
        with _open_lock:
            stores = list(_open)
        for store in reversed(stores):
            found = store.get(match.group(1))
            if found is not None:
                return found
        if not strict:
            return match.group(0)
        raise ConfigError(
            f"{what} refers to a secret that is not in this Hub's secrets file (it was stored on "
            "another machine, or the file was removed): set the value again, or use an environment "
            "reference such as 'Bearer ${MY_TOKEN}'"
        )

    return _REF.sub(sub, value)
