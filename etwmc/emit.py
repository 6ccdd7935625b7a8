"""Write a planned set of output files all-or-nothing, or compare them with disk.

A plan is ``{file name: bytes}``, built entirely in memory first.  :func:`write_all`

1. checks every name is a plain file name (no separator, no ``..``, not absolute);
2. writes each file to a temporary file in the output folder;
3. only when every temporary file is complete, moves each into place with
   :func:`os.replace` (atomic per file); if a move fails, the files already moved are
   put back as they were, so the folder holds the old outputs or all the new ones.

:func:`stale` compares a plan with the folder for ``--check``.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path


class EmitError(Exception):
    """An output could not be written; nothing of the plan was left behind."""


def check_name(name: str) -> None:
    """Raise :class:`EmitError` unless ``name`` is a plain file name."""
    bad = (
        not name
        or name in (".", "..")
        or "/" in name
        or "\\" in name
        or "\0" in name
        or os.path.isabs(name)
        or (len(name) > 1 and name[1] == ":")
    )
    if bad:
        raise EmitError(f"refusing to write an output named {name!r}: not a plain file name")


def write_all(out_dir: str | Path, files: Mapping[str, bytes]) -> list[Path]:
    """Write every file of the plan into ``out_dir``, all-or-nothing; returns the paths."""
    for name in files:
        check_name(name)
    folder = Path(out_dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise EmitError(f"cannot create the output folder {folder}: {e.strerror or e}") from None
    temps: list[tuple[Path, Path]] = []
    try:
        for name in sorted(files):
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
            temps.append((Path(tmp), folder / name))
            with os.fdopen(fd, "wb") as fh:
                fh.write(files[name])
            os.chmod(tmp, 0o666 & ~_umask())
    except OSError as e:
        _remove(t for t, _ in temps)
        raise EmitError(f"cannot write to {folder}: {e.strerror or e}") from None
    except BaseException:
        _remove(t for t, _ in temps)
        raise
    _commit(temps)
    return [final for _, final in temps]


def _umask() -> int:
    # mkstemp creates files 0600; outputs get the usual mode, as open() would give them.
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _commit(temps: list[tuple[Path, Path]]) -> None:
    previous: list[tuple[Path, bytes | None]] = []
    try:
        for tmp, final in temps:
            old = final.read_bytes() if final.is_file() else None
            os.replace(tmp, final)
            previous.append((final, old))
    except OSError as e:
        for final, old in reversed(previous):  # put the folder back as it was
            try:
                if old is None:
                    final.unlink()
                else:
                    final.write_bytes(old)
            except OSError:
                pass
        _remove(t for t, _ in temps)
        raise EmitError(f"cannot write {e.filename or 'an output'}: {e.strerror or e}") from None


def _remove(paths: Iterable[Path]) -> None:
    for p in paths:
        try:
            os.unlink(p)
        except OSError:
            pass


def stale(out_dir: str | Path, files: Mapping[str, bytes]) -> list[tuple[str, str]]:
    """``[(name, "missing" | "differs")]`` for the files of the plan not up to date."""
    folder = Path(out_dir)
    out: list[tuple[str, str]] = []
    for name in sorted(files):
        check_name(name)
        path = folder / name
        try:
            current = path.read_bytes()
        except FileNotFoundError:
            out.append((name, "missing"))
            continue
        except OSError:
            out.append((name, "unreadable"))
            continue
        if current != files[name]:
            out.append((name, "differs"))
    return out
