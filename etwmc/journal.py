"""A write of a set of files that is all-or-nothing, its journal, and the folder lock.

:class:`Transaction` writes regular files spread over one or more folders (a compile's
outputs in ``-o DIR``; mc's header and resources in ``-h`` and ``-r``; the target of an
output that is a symbolic link) in these steps:

1. in each folder, a journal ``.etwmc-journal-<token>`` lists the folder's files with
   the SHA-256 of their current content (if any) and of their new content, and, for
   the write's files in the other folders, the SHA-256 of their new content ("peers");
   it is written under another name and renamed, so it is complete or absent;
2. each file is written to a temporary file ``.<name>.<token>.tmp`` beside it;
3. each file it replaces gets a backup ``.<name>.<token>.bak`` (a hard link, or a copy
   where the file system has none);
4. the caller's ``between`` step runs (the writer writes devices and FIFOs there);
5. each temporary file is moved into place with :func:`os.replace` (atomic per file);
6. the backups are deleted, then the journals: from then on the new set is current.

A failure in steps 2-5 (a full disk, a file that cannot be replaced, Ctrl-C) puts
every file back from its backup and removes the new ones.  A killed process leaves its
journals; :func:`recover` (run by the next write of a file a journal names, under the
folder's lock) settles each: when every file of the write, in every folder, already
has its new content, only the clean-up was left, and it is finished; otherwise the
folder is rolled back (a backup is restored only when its hash is the recorded one, a
new file removed only when its hash is the new one).  Every folder of a write decides
on the same facts, so they all end old or all end new.  Files are not synced to disk:
this protects against a process that is killed or interrupted, not a power cut.

:class:`FolderLock` is the advisory lock that makes two writers of one folder take
turns: the file ``.etwmc-lock``, locked with ``flock`` while a write runs and removed
when it ends (a process that dies releases it with its file descriptors).  A journal in
a folder whose lock is held belongs to a write in progress, never to an interrupted one
(:func:`writing`); only a write holding the lock settles journals.

Devices, FIFOs and sockets are never opened for reading here: :func:`read_regular` and
:func:`hash_regular` read regular files only (a device may never end, a FIFO block).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from .digest import sha256_hex, sha256_of_pieces, sha256_unless_equal
from .record import Record
from .regularfile import open_regular

JOURNAL_PREFIX = ".etwmc-journal-"
LOCK_NAME = ".etwmc-lock"
_BINARY = getattr(os, "O_BINARY", 0)
_HEX = frozenset("0123456789abcdef")
# A journal lists names and hashes: a few hundred bytes per file.  A larger file of
# that name is not one etwmc wrote.
_MAX_JOURNAL = 16 * 1024 * 1024
_PIECE = 1 << 20  # files are hashed and compared in pieces of this size


# --------------------------------------------------------------------------- reading


def read_regular(path: Path, limit: int | None = None) -> bytes | None:
    """The content of ``path`` (through symbolic links) when it is a regular file of at
    most ``limit`` bytes, else None.  Anything else is never opened for reading."""
    try:
        with open_regular(path) as f:
            if limit is not None and os.fstat(f.fileno()).st_size > limit:
                return None
            return f.read()
    except OSError:
        return None


def hash_regular(path: Path) -> str | None:
    """SHA-256 of a regular file's content (read in pieces), else None."""
    try:
        with open_regular(path) as f:
            return sha256_of_pieces(iter(lambda: f.read(_PIECE), b"")).hex()
    except OSError:
        return None


def check_regular(path: Path, data: bytes) -> tuple[bool, str | None] | None:
    """Whether a regular file holds exactly ``data``, and when it does not, the SHA-256
    of what it holds: one reading in pieces, hashed only when it differs.  None when it
    is not a regular file that can be read.  A write that leaves unchanged files alone
    learns both from it: which files to leave, and the old content's hash its journal
    records for the others."""
    try:
        with open_regular(path) as f:
            digest = sha256_unless_equal(iter(lambda: f.read(_PIECE), b""), data)
    except OSError:
        return None
    return digest is None, None if digest is None else digest.hex()


def holds(path: Path, data: bytes) -> bool:
    """Whether ``path`` is a regular file holding exactly ``data``; read in pieces,
    and only as far as the first difference (a size that differs reads nothing)."""
    at = 0
    try:
        with open_regular(path) as f:
            if os.fstat(f.fileno()).st_size != len(data):
                return False
            for piece in iter(lambda: f.read(_PIECE), b""):
                if not data.startswith(piece, at):
                    return False
                at += len(piece)
    except OSError:
        return False
    return at == len(data)


def plain_name(name: object) -> bool:
    """A file name without a folder in it: all a journal may name, so that it can never
    point outside its folder."""
    if not isinstance(name, str) or name in ("", ".", "..") or "\0" in name:
        return False
    return not any(sep in name for sep in (os.sep, os.altsep or os.sep, "/"))


def new_token() -> str:
    """16 random hex digits naming one write's temporary files and journals."""
    return os.urandom(8).hex()


def is_token(text: str) -> bool:
    return len(text) == 16 and set(text) <= _HEX


def temporary(folder: Path, name: str, token: str) -> Path:
    return folder / f".{name}.{token}.tmp"


def backup(folder: Path, name: str, token: str) -> Path:
    return folder / f".{name}.{token}.bak"


def remove(paths: Iterable[Path]) -> None:
    for p in paths:
        try:
            os.unlink(p)
        except OSError:
            pass


def listdir(folder: Path) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


# --------------------------------------------------------------------------- journals


class Entry(Record):
    """A file of the journal's folder."""

    name: str
    old: str | None  # SHA-256 of the file replaced, None when there was none
    new: str


class Peer(Record):
    """A file of the same write in another folder (read, never changed, on recovery)."""

    folder: str  # absolute
    name: str
    new: str


def journal_text(entries: Iterable[Entry], peers: Iterable[Peer]) -> str:
    files = [{"name": e.name, "old": e.old, "new": e.new} for e in entries]
    others = [{"folder": p.folder, "name": p.name, "new": p.new} for p in peers]
    return json.dumps({"etwmc-journal": 1, "files": files, "peers": others})


def read_journal(path: Path) -> tuple[list[Entry], list[Peer]] | None:
    """A journal's entries and peers; None when it is not one etwmc wrote."""
    data = read_regular(path, _MAX_JOURNAL)
    if data is None:
        return None
    try:
        doc = json.loads(data.decode("utf-8"))
        entries = [Entry(f["name"], f["old"], f["new"]) for f in doc["files"]]
        peers = [Peer(p["folder"], p["name"], p["new"]) for p in doc.get("peers", [])]
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    for e in entries:
        if not (plain_name(e.name) and isinstance(e.new, str)):
            return None
        if not (e.old is None or isinstance(e.old, str)):
            return None
    for p in peers:
        if not (isinstance(p.folder, str) and os.path.isabs(p.folder)):
            return None
        if not (plain_name(p.name) and isinstance(p.new, str)):
            return None
    return entries, peers


def journals(folder: Path) -> dict[str, tuple[list[Entry], list[Peer]]]:
    """Token -> (entries, peers) of every journal in ``folder``."""
    out: dict[str, tuple[list[Entry], list[Peer]]] = {}
    for n in sorted(listdir(folder)):
        token = n[len(JOURNAL_PREFIX) :]
        if n.startswith(JOURNAL_PREFIX) and is_token(token):
            found = read_journal(folder / n)
            if found is not None:
                out[token] = found
    return out


def pending(folder: Path) -> set[str]:
    """The names that journals in ``folder`` list: files a write may have left mixed."""
    return {e.name for entries, _ in journals(folder).values() for e in entries}


def recover(folder: Path, names: Iterable[str]) -> None:
    """Settle every interrupted write in ``folder`` that names one of ``names`` (see
    the module docstring), and remove journals that were never completed.  Call it
    holding the folder's lock."""
    wanted = set(names)
    for token, (entries, peers) in journals(folder).items():
        if not wanted & {e.name for e in entries}:
            continue
        done = all(hash_regular(folder / e.name) == e.new for e in entries) and all(
            hash_regular(Path(p.folder) / p.name) == p.new for p in peers
        )
        if done:  # only the clean-up was left
            remove(temporary(folder, e.name, token) for e in entries)
            remove(backup(folder, e.name, token) for e in entries)
        else:
            roll_back(folder, token, entries)
        remove([folder / f"{JOURNAL_PREFIX}{token}"])
    remove(folder / n for n in listdir(folder) if _unfinished_journal(n))


def _unfinished_journal(n: str) -> bool:
    return (
        n.startswith(JOURNAL_PREFIX)
        and n.endswith(".tmp")
        and is_token(n[len(JOURNAL_PREFIX) : -4])
    )


def stray(n: str, name: str, live: set[str]) -> bool:
    """A temporary file or backup of ``name`` whose write has no journal in ``live``
    (a killed single-file write leaves those)."""
    if not (n.startswith(f".{name}.") and (n.endswith(".tmp") or n.endswith(".bak"))):
        return False
    token = n[len(name) + 2 : -4]
    return is_token(token) and token not in live


def roll_back(folder: Path, token: str, entries: Iterable[Entry]) -> None:
    """Put each file back as it was before the write the entries describe."""
    for e in entries:
        final, bak = folder / e.name, backup(folder, e.name, token)
        try:
            if e.old is not None:
                if hash_regular(bak) == e.old:
                    os.replace(bak, final)
            elif hash_regular(final) == e.new:
                os.unlink(final)
        except OSError:
            pass  # best effort: what cannot be restored shows in the error reported
        remove([temporary(folder, e.name, token), bak])


# --------------------------------------------------------------------------- writing


class Failure(Exception):
    """A step failed on ``path``: a file's final name (never a temporary one), or the
    folder itself (``folder``) when its journal could not be written."""

    def __init__(self, path: Path, reason: str, *, folder: bool = False) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason
        self.folder = folder


def reason(e: OSError) -> str:
    return e.strerror or str(e)


class _Part:
    """One folder's share of a write: its files, and their entries once the journal
    is written (working state, not a record)."""

    __slots__ = ("entries", "files", "folder")

    def __init__(self, folder: Path, files: dict[str, bytes]) -> None:
        self.folder = folder
        self.files = files
        self.entries: list[Entry] = []


class Transaction:
    """One all-or-nothing write of regular files in one or more folders (folder ->
    file name -> bytes), in the steps of the module docstring."""

    def __init__(
        self,
        folders: Mapping[Path, Mapping[str, bytes]],
        old: Mapping[Path, str] | None = None,
    ) -> None:
        self.token = new_token()
        self.parts = [_Part(f, dict(files)) for f, files in sorted(folders.items()) if files]
        # The hashes of files the caller has already read (check_regular), under the
        # folders' locks: they are not read again.
        self.old = old or {}

    def journal(self, part: _Part) -> Path:
        return part.folder / f"{JOURNAL_PREFIX}{self.token}"

    def run(self, between: Callable[[], None] | None = None) -> None:
        try:
            self.write_journals()
            self.write_temporaries()
            self.back_up()
            if between is not None:
                between()
            for part in self.parts:
                for e in part.entries:
                    self.move(part, e)
        except BaseException:
            # Put the folders back (also on Ctrl-C), then report or re-raise.
            for part in self.parts:
                roll_back(part.folder, self.token, part.entries)
                journal = self.journal(part)
                remove([journal, journal.with_name(journal.name + ".tmp")])
            raise
        self.drop_backups()
        self.commit()

    def write_journals(self) -> None:
        for part in self.parts:
            for name in sorted(part.files):
                final = part.folder / name
                data = part.files[name]
                new = sha256_hex(data)
                old = self.old.get(final)
                if old is None and os.path.lexists(final):
                    # A file rewritten as it was (a compile run again) is only compared.
                    found = check_regular(final, data)
                    if found is not None:
                        same, digest = found
                        old = new if same else digest
                if old is None and os.path.lexists(final):
                    # No backup could be checked on the way back: refuse before writing.
                    raise Failure(final, "it cannot be read back to keep a copy")
                part.entries.append(Entry(name, old, new))
        for part in self.parts:
            peers = [
                Peer(str(other.folder), e.name, e.new)
                for other in self.parts
                if other is not part
                for e in other.entries
            ]
            journal = self.journal(part)
            scratch = journal.with_name(journal.name + ".tmp")
            try:
                create_file(scratch, journal_text(part.entries, peers).encode("utf-8"))
                os.replace(scratch, journal)
            except OSError as e:
                remove([scratch])
                raise Failure(part.folder, reason(e), folder=True) from None

    def write_temporaries(self) -> None:
        for part in self.parts:
            for e in part.entries:
                try:
                    create_file(temporary(part.folder, e.name, self.token), part.files[e.name])
                except OSError as exc:
                    raise Failure(part.folder / e.name, reason(exc)) from None

    def back_up(self) -> None:
        for part in self.parts:
            for e in part.entries:
                if e.old is None:
                    continue
                final, bak = part.folder / e.name, backup(part.folder, e.name, self.token)
                try:
                    try:
                        os.link(final, bak)
                    except OSError:  # a file system without hard links
                        data = read_regular(final)
                        if data is None:
                            raise OSError(0, "it cannot be read back") from None
                        create_file(bak, data)
                except OSError as exc:
                    raise Failure(final, reason(exc)) from None

    def move(self, part: _Part, e: Entry) -> None:
        try:
            os.replace(temporary(part.folder, e.name, self.token), part.folder / e.name)
        except OSError as exc:
            raise Failure(part.folder / e.name, reason(exc)) from None

    def drop_backups(self) -> None:
        for part in self.parts:
            remove(backup(part.folder, e.name, self.token) for e in part.entries)

    def commit(self) -> None:
        remove(self.journal(part) for part in self.parts)


def create_file(path: Path, data: bytes) -> None:
    """A new file with the mode the user's umask gives (0o666 masked)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _BINARY, 0o666)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
    except BaseException:
        remove([path])
        raise


# --------------------------------------------------------------------------- locking


class FolderLock:
    """The advisory lock on a folder that writers of a set take (module docstring)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / LOCK_NAME
        self.fd: int | None = None

    def acquire(self, on_wait: Callable[[], None] | None = None) -> None:
        """Lock the folder, waiting for another writer to finish (``on_wait`` is called
        once when that happens).  OSError when the lock file cannot be made."""
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | _BINARY, 0o666)
            try:
                if not _try_lock(fd, shared=False):
                    if on_wait is not None:
                        on_wait()
                        on_wait = None
                    _lock(fd, shared=False)
                if _same_file(fd, self.path):
                    self.fd = fd
                    return
            except BaseException:
                os.close(fd)
                raise
            os.close(fd)  # the holder removed the file as we waited: lock the next one

    def release(self) -> None:
        if self.fd is None:
            return
        remove([self.path])  # before unlocking: a waiter then sees a file that is gone
        os.close(self.fd)
        self.fd = None


def writing(folder: Path) -> bool:
    """True while another process holds ``folder``'s lock (a write is in progress)."""
    try:
        fd = os.open(folder / LOCK_NAME, os.O_RDONLY | _BINARY)
    except OSError:
        return False
    try:
        return not _try_lock(fd, shared=True)
    finally:
        os.close(fd)


def wait_for_writer(folder: Path, on_wait: Callable[[], None] | None = None) -> None:
    """Return once no process holds ``folder``'s lock (without taking it: a reader such
    as ``--check`` writes nothing, not even the lock file)."""
    while writing(folder):
        if on_wait is not None:
            on_wait()
            on_wait = None
        try:
            fd = os.open(folder / LOCK_NAME, os.O_RDONLY | _BINARY)
        except OSError:
            return
        try:
            _lock(fd, shared=True)
        finally:
            os.close(fd)


def _same_file(fd: int, path: Path) -> bool:
    try:
        a, b = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


if sys.platform == "win32":
    import msvcrt
    import time

    def _try_lock(fd: int, *, shared: bool) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        if shared:  # Windows has no shared byte locks here: a probe, released at once
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        return True

    def _lock(fd: int, *, shared: bool) -> None:
        while not _try_lock(fd, shared=shared):
            time.sleep(0.05)

else:
    import fcntl

    def _try_lock(fd: int, *, shared: bool) -> bool:
        try:
            fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _lock(fd: int, *, shared: bool) -> None:
        fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
