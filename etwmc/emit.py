"""Write a planned set of output files all-or-nothing, or compare them with disk.

A plan is ``{file name: bytes}``, built entirely in memory first.  :func:`write_all`

1. checks every name is a plain file name that Windows can also create (:func:`check_name`);
2. settles what an interrupted earlier write of any of these files left (below);
3. writes a journal, ``.etwmc-journal-<token>``, that lists every file with the SHA-256
   of its current content (if any) and of its new content; the journal is written
   under another name and renamed, so it is complete or absent;
4. writes each file to a temporary file ``.<name>.<token>.tmp`` in the output folder;
5. keeps a backup ``.<name>.<token>.bak`` of every file it replaces (a hard link, or a
   copy where the file system has none);
6. moves each temporary file into place with :func:`os.replace` (atomic per file);
7. deletes the backups, then the journal: from then on the new set is the current one.

If a step of 4-6 fails (a full disk, a file that cannot be replaced, Ctrl-C), every file
is put back from its backup and the new files are removed: the folder holds the old
outputs.  If the process is killed, the journal stays and says the folder may hold a
mix of old and new files: :func:`stale` (``compile --check``) reports such a folder as
stale, and the next :func:`write_all` of any file the journal names settles it first.
When every file the journal names already has its new content, the write had only its
clean-up left, which is finished; otherwise the folder is rolled back as after a
failure (a backup is restored only when its hash is the recorded one, a new file is
removed only when its hash is the new one).  Either way the folder then holds one whole
version, and no temporary file, backup or journal of that write.  Files are not synced
to disk: this protects against a process that is killed or interrupted, not against a
power cut.

:func:`stale` compares a plan with the folder for ``--check``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from .digest import sha256_hex

JOURNAL_PREFIX = ".etwmc-journal-"
_TOKEN = re.compile(r"[0-9a-f]{16}\Z")
# Device names Windows reserves in every folder, with any extension and in any case
# (Microsoft's "Naming Files, Paths, and Namespaces"; superscript digits count too).
_DEVICES = frozenset(
    {"con", "prn", "aux", "nul", "conin$", "conout$"}
    | {f"{dev}{n}" for dev in ("com", "lpt") for n in "0123456789\u00b9\u00b2\u00b3"}
)
_WINDOWS_FORBIDDEN = set('<>:"|?*')


class EmitError(Exception):
    """An output could not be written; nothing of the plan was left behind."""


def default_base(path: str | Path) -> str:
    """The outputs' base name for a manifest: its file name without the last extension
    (``x.man`` -> ``x``), as mc names them."""
    return Path(path).stem or "manifest"


def reserved_device(name: str) -> bool:
    """True for a Windows device name such as ``CON``, ``nul.txt`` or ``COM1.tar.gz``."""
    return name.split(".", 1)[0].rstrip(" ").casefold() in _DEVICES


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be an output file name, or None.  An output must be a plain
    file name (no folder) that Windows can create too: no control character, none of
    ``<>:"|?*``, no trailing dot or space, not a reserved device name."""
    if not name or name in (".", ".."):
        return "it is not a file name"
    if "/" in name or "\\" in name or os.path.isabs(name):
        return "it names a folder"
    bad = next((c for c in name if ord(c) < 0x20 or c == "\x7f" or c in _WINDOWS_FORBIDDEN), None)
    if bad is not None:
        return f"it holds {bad!r}, which Windows file names cannot"
    if name[-1] in ". ":
        return "it ends with a dot or a space, which Windows drops"
    if reserved_device(name):
        return f"{name.split('.', 1)[0]!r} is a device name reserved by Windows"
    return None


def check_name(name: str) -> None:
    """Raise :class:`EmitError` unless ``name`` is a usable output file name."""
    problem = name_problem(name)
    if problem:
        raise EmitError(f"refusing to write an output named {name!r}: {problem}")


# --------------------------------------------------------------------------- writing


@dataclass(frozen=True, slots=True)
class _Entry:
    name: str
    old: str | None  # SHA-256 of the file replaced, None when there was none
    new: str


def _token() -> str:
    """16 random hex digits naming one write's temporary files and journal.  What
    secrets.token_hex(8) returns, without importing secrets (and random with it) at
    every start."""
    return os.urandom(8).hex()


def _tmp(folder: Path, name: str, token: str) -> Path:
    return folder / f".{name}.{token}.tmp"


def _bak(folder: Path, name: str, token: str) -> Path:
    return folder / f".{name}.{token}.bak"


# json is imported to read a journal back, and to write one only when a name needs
# escaping: lint imports this module for its name checks only, and a compile's names
# are plain ASCII (start-up cost).
_PLAIN_JSON = frozenset(map(chr, range(0x20, 0x7F))) - {'"', "\\"}


def _json_string(text: str | None) -> str:
    if text is None:
        return "null"
    if set(text) <= _PLAIN_JSON:
        return f'"{text}"'
    import json

    return json.dumps(text)


def _journal_json(entries: Iterable[_Entry]) -> str:
    """The journal as ``json.dumps`` writes ``{"etwmc-journal": 1, "files": [...]}``."""
    files = ", ".join(
        f'{{"name": {_json_string(e.name)}, "old": {_json_string(e.old)}, '
        f'"new": {_json_string(e.new)}}}'
        for e in entries
    )
    return f'{{"etwmc-journal": 1, "files": [{files}]}}'


def _sha(data: bytes) -> str:
    return sha256_hex(data)


def write_all(
    out_dir: str | Path, files: Mapping[str, bytes], *, skip_unchanged: bool = False
) -> list[Path]:
    """Write every file of the plan into ``out_dir``, all-or-nothing; returns the paths.

    ``skip_unchanged`` leaves a file whose content is already the planned one alone
    (its time stamp too)."""
    for name in files:
        check_name(name)
    folder = Path(out_dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise EmitError(f"cannot create the output folder {folder}: {e.strerror or e}") from None
    try:
        recover(folder, files)
    except OSError as e:
        raise EmitError(
            f"cannot recover {folder} from an interrupted write: {e.strerror or e}"
        ) from None
    todo = {n: d for n, d in files.items() if not (skip_unchanged and _same(folder / n, d))}
    if todo:
        _Transaction(folder, todo).run()
    return [folder / name for name in sorted(files)]


def write_file(path: Path, data: bytes) -> None:
    """One file the user named (a report, a decompiled manifest), replaced atomically:
    no journal is needed for one rename, and no name rule applies but the system's."""
    folder, token = path.parent, _token()
    _remove(folder / n for n in _listdir(folder) if _is_stray(n, {path.name}))
    tmp = _tmp(folder, path.name, token)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _BINARY, 0o666)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except OSError as e:
        _remove([tmp])
        raise EmitError(f"cannot write {path}: {e.strerror or e}") from None
    except BaseException:
        _remove([tmp])
        raise


def _listdir(folder: Path) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


def _same(path: Path, data: bytes) -> bool:
    try:
        return path.is_file() and path.read_bytes() == data
    except OSError:
        return False


class _Transaction:
    """One write of a plan, in the steps of the module docstring."""

    def __init__(self, folder: Path, files: Mapping[str, bytes]) -> None:
        self.folder = folder
        self.files = files
        self.token = _token()
        self.journal = folder / f"{JOURNAL_PREFIX}{self.token}"
        self.entries: list[_Entry] = []

    def run(self) -> None:
        try:
            self._write_journal()
            self._write_temporaries()
            self._back_up()
            for e in self.entries:
                self._move(e)
        except BaseException as exc:
            # Put the folder back (also on Ctrl-C), then report or re-raise.
            _roll_back(self.folder, self.token, self.entries)
            _remove([self.journal, self.journal.with_name(self.journal.name + ".tmp")])
            if isinstance(exc, OSError):
                what = exc.filename or "an output"
                raise EmitError(f"cannot write {what}: {exc.strerror or exc}") from None
            raise
        self._drop_backups()
        self._commit()

    def _write_journal(self) -> None:
        for name in sorted(self.files):
            final = self.folder / name
            old = _sha(final.read_bytes()) if final.exists() else None
            self.entries.append(_Entry(name, old, _sha(self.files[name])))
        part = self.journal.with_name(self.journal.name + ".tmp")
        part.write_text(_journal_json(self.entries), encoding="utf-8")
        os.replace(part, self.journal)

    def _write_temporaries(self) -> None:
        for e in self.entries:
            fd = os.open(
                _tmp(self.folder, e.name, self.token),
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | _BINARY,
                0o666,
            )
            with os.fdopen(fd, "wb") as fh:
                fh.write(self.files[e.name])

    def _back_up(self) -> None:
        for e in self.entries:
            if e.old is None:
                continue
            final, bak = self.folder / e.name, _bak(self.folder, e.name, self.token)
            try:
                os.link(final, bak)
            except OSError:
                bak.write_bytes(final.read_bytes())  # a file system without hard links

    def _move(self, e: _Entry) -> None:
        os.replace(_tmp(self.folder, e.name, self.token), self.folder / e.name)

    def _drop_backups(self) -> None:
        _remove(_bak(self.folder, e.name, self.token) for e in self.entries)

    def _commit(self) -> None:
        _remove([self.journal])


_BINARY = getattr(os, "O_BINARY", 0)


def _journal_entries(path: Path) -> list[_Entry] | None:
    """A journal's entries; None when it is not one etwmc wrote (only plain output
    names and hashes are taken from it, so it can never point outside its folder)."""
    import json

    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        entries = [_Entry(f["name"], f["old"], f["new"]) for f in doc["files"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    for e in entries:
        if not (isinstance(e.name, str) and name_problem(e.name) is None):
            return None
        if not (isinstance(e.new, str) and (e.old is None or isinstance(e.old, str))):
            return None
    return entries


def journals(folder: Path) -> dict[str, list[_Entry]]:
    """Token -> entries of every journal of an interrupted write in ``folder``."""
    out: dict[str, list[_Entry]] = {}
    for n in sorted(_listdir(folder)):
        token = n[len(JOURNAL_PREFIX) :]
        if n.startswith(JOURNAL_PREFIX) and _TOKEN.match(token):
            entries = _journal_entries(folder / n)
            if entries is not None:
                out[token] = entries
    return out


def recover(folder: Path, files: Iterable[str]) -> None:
    """Settle every interrupted write that names one of ``files`` (see the module
    docstring), and remove journals that were never completed."""
    wanted = set(files)
    for token, entries in journals(folder).items():
        if wanted & {e.name for e in entries}:
            if all(_hash_of(folder / e.name) == e.new for e in entries):
                _remove(_tmp(folder, e.name, token) for e in entries)  # only clean-up was left
                _remove(_bak(folder, e.name, token) for e in entries)
            else:
                _roll_back(folder, token, entries)
            _remove([folder / f"{JOURNAL_PREFIX}{token}"])
    _remove(folder / n for n in _listdir(folder) if _is_stray(n, set()))


def _hash_of(path: Path) -> str | None:
    try:
        return _sha(path.read_bytes()) if path.is_file() else None
    except OSError:
        return None


def _is_stray(n: str, wanted: set[str]) -> bool:
    """A journal that was never completed, or a temporary file or backup of a file in
    ``wanted`` (only :func:`write_file`, which keeps no journal, leaves those)."""
    if n.startswith(JOURNAL_PREFIX) and n.endswith(".tmp"):
        return bool(_TOKEN.match(n[len(JOURNAL_PREFIX) : -4]))
    if not (n.startswith(".") and (n.endswith(".tmp") or n.endswith(".bak"))):
        return False
    name, _, token = n[1:-4].rpartition(".")
    return name in wanted and bool(_TOKEN.match(token))


def _roll_back(folder: Path, token: str, entries: Iterable[_Entry]) -> None:
    """Put each file back as it was before the write the entries describe."""
    for e in entries:
        final, bak = folder / e.name, _bak(folder, e.name, token)
        try:
            if e.old is not None:
                if _hash_of(bak) == e.old:
                    os.replace(bak, final)
            elif _hash_of(final) == e.new:
                final.unlink()
        except OSError:
            pass  # best effort: what cannot be restored is reported by the caller
        _remove([_tmp(folder, e.name, token), bak])


def _remove(paths: Iterable[Path]) -> None:
    for p in paths:
        try:
            os.unlink(p)
        except OSError:
            pass


# --------------------------------------------------------------------------- checking


def stale(out_dir: str | Path, files: Mapping[str, bytes]) -> list[tuple[str, str]]:
    """``[(name, why)]`` for the files of the plan not up to date: ``missing``,
    ``differs``, ``unreadable``, or ``interrupted`` when a write of it was interrupted
    (its folder may hold a mix of two versions until the next write)."""
    folder = Path(out_dir)
    for name in files:
        check_name(name)
    interrupted = {e.name for entries in journals(folder).values() for e in entries}
    out: list[tuple[str, str]] = []
    for name in sorted(files):
        if name in interrupted:
            out.append((name, "interrupted"))
            continue
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
