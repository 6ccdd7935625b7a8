"""The one way etwmc writes a file: every command's outputs, reports and streams.

Three shapes of output, one behaviour:

* :func:`write_sets` (and :func:`write_set`): a set of named files into one or more
  folders (``compile -o DIR``, ``mc -h DIR -r DIR``, the build plugins), all-or-nothing
  (:mod:`etwmc.journal`: a journal and its recovery, under the folder's lock).  Output
  folders are created.
* :func:`write_file`: one file the user named (``lint -o``, ``diff -o``,
  ``decompile -o``); :func:`write_text` also takes None for standard output.
* :func:`stream`: text written piece by piece (``decode`` writes JSON Lines event by
  event) to a file, a device, a FIFO or standard output.

What a path gets, whatever the shape:

=====================  ==============================================================
a regular file, or     replaced atomically (a temporary file beside it, renamed over it
nothing yet            at the end), with the mode a new file gets under the umask; a
                       failure leaves the old file as it was
a symbolic link        followed: its target is written as above, the link stays; a
                       dangling link's target is created
a character or block   written into as a stream (as ``cat > /dev/null`` does), never
device, or a FIFO      replaced.  A FIFO with no reader: a set (compile, mc, the build
                       plugins) reports it at once and writes nothing, since a build
                       must not hang; a single output waits for a reader, as ``cat``
                       does (``mkfifo p; etwmc decode t.etl -o p & reader < p``)
a socket               connected to and written into as a stream; an error when
                       nothing listens
a folder               an error
=====================  ==============================================================

A set's regular files are committed together after its streams are written, so a
stream that fails (its reader went away) rolls the files back; what a stream received
cannot be taken back.  Devices, FIFOs and sockets are never read (``skip_unchanged``
and :func:`stale` compare regular files only, and leave the others out).

A failure is one exception, :class:`WriteError`, whose message names the user's path
(never a temporary name) and says why; for an ``-o FILE`` in a folder that does not
exist it says so (the folder is not created: only output folders are).  A reader gone
from standard output is :class:`BrokenPipeError`, which commands end quietly.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import stat
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import BinaryIO, Literal, TextIO

from .journal import (
    Failure,
    FolderLock,
    Transaction,
    check_regular,
    create_file,
    holds,
    journals,
    listdir,
    pending,
    plain_name,
    reason,
    recover,
    remove,
    stray,
    temporary,
    wait_for_writer,
)
from .journal import new_token as _token
from .record import Record

STDOUT = "standard output"
_BINARY = getattr(os, "O_BINARY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_NOCTTY = getattr(os, "O_NOCTTY", 0)


class WriteError(Exception):
    """An output could not be written; the message is one line naming the user's path.
    Nothing half written is left in place of a regular file."""

    def __init__(self, path: str, why: str, *, verb: str = "write") -> None:
        super().__init__(f"cannot {verb} {path}: {why}")
        self.path = path


# --------------------------------------------------------------------------- names

# Device names Windows reserves in every folder, with any extension and in any case
# (Microsoft's "Naming Files, Paths, and Namespaces"; superscript digits count too).
_DEVICES = frozenset(
    {"con", "prn", "aux", "nul", "conin$", "conout$"}
    | {f"{dev}{n}" for dev in ("com", "lpt") for n in "0123456789\u00b9\u00b2\u00b3"}
)
_PORTABLE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")


def reserved_device(name: str) -> bool:
    """True for a Windows device name such as ``CON``, ``nul.txt`` or ``COM1.tar.gz``."""
    return name.split(".", 1)[0].rstrip(" ").casefold() in _DEVICES


def file_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name etwmc's own outputs, or None: the rule for the names
    etwmc gives its outputs (ETW612; :mod:`etwmc.outputs`, :mod:`etwmc.mctext`), not
    for paths a user names.  It must be a plain file name of the portable set (ASCII
    letters, digits, ``_``, ``-``, ``.``) that does not start with ``-`` or ``.``, so
    that no tool reads it as an option or a hidden file and no shell a build passes it
    through (binutils' windres runs the C preprocessor through one) finds syntax in it;
    and one Windows can create: no trailing dot, no device name."""
    if not name or name in (".", ".."):
        return "it is not a file name"
    if "/" in name or "\\" in name:
        return "it names a folder"
    bad = next((c for c in name if c not in _PORTABLE), None)
    if bad is not None:
        return (
            f"it holds {bad!r}; output names take ASCII letters, digits, '_', '-' and '.' "
            "only, so that no build tool or shell misreads them"
        )
    if name[0] in "-.":
        return f"it starts with {name[0]!r}, which tools read as an option or a hidden file"
    if name[-1] == ".":
        return "it ends with a dot, which Windows drops"
    if reserved_device(name):
        return f"{name.split('.', 1)[0]!r} is a device name reserved by Windows"
    return None


# --------------------------------------------------------------------------- paths

Kind = Literal["file", "stream", "socket"]


class Target(Record):
    """Where the bytes for a path go: ``real`` is absolute with symbolic links followed
    for a file, the path as given for a stream (what opening it follows)."""

    shown: str  # the path as the user gave it, for messages
    real: Path
    kind: Kind


def resolve(path: str | os.PathLike[str]) -> Target:
    """What writing ``path`` means (the table of the module docstring);
    :class:`WriteError` for a folder, a link loop or a missing parent folder."""
    shown = os.fspath(path)
    try:
        st: os.stat_result | None = os.lstat(shown)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise WriteError(shown, reason(e)) from None
    linked = st is not None and stat.S_ISLNK(st.st_mode)
    if linked:
        real = Path(os.path.realpath(shown))
        try:
            st = os.stat(shown)
        except FileNotFoundError:
            st = None  # dangling: its target is created
        except OSError as e:  # a loop, a component that is not a folder
            raise WriteError(shown, reason(e)) from None
    else:
        here = Path(shown)
        real = Path(os.path.realpath(here.parent)) / here.name
    if st is None:
        if not real.parent.is_dir():
            where = str(real.parent) if linked else os.path.dirname(shown) or "."
            why = "is not a folder" if os.path.lexists(real.parent) else "does not exist"
            raise WriteError(shown, f"the folder {where} {why}")
        return Target(shown, real, "file")
    if stat.S_ISREG(st.st_mode):
        return Target(shown, real, "file")
    if stat.S_ISDIR(st.st_mode):
        raise WriteError(shown, "it is a folder")
    # A stream is opened through the path as given: a link such as /dev/stdout leads
    # to a pipe that no file name reaches.
    if stat.S_ISSOCK(st.st_mode):
        return Target(shown, Path(shown), "socket")
    return Target(shown, Path(shown), "stream")


# --------------------------------------------------------------------------- one file


def write_file(path: str | os.PathLike[str], data: bytes) -> None:
    """Write one output the user named (the module docstring's table)."""
    target = resolve(path)
    if target.kind == "file":
        _replace(target, data)
        return
    with _open_stream(target, wait=True) as f:
        _guarded(target.shown, lambda: f.write(data))


def write_text(path: str | os.PathLike[str] | None, text: str) -> None:
    """A report to ``path``, or to standard output for None; UTF-8, and a file name
    that is not valid text (held as surrogates) is written as its bytes."""
    if path is None:
        with stream(None) as out:
            out.write(text)
    else:
        write_file(path, text.encode("utf-8", "surrogateescape"))


def _temporary(target: Target) -> Path:
    """A new temporary name beside ``target``, after removing what a killed write of
    it left (a temporary file no journal owns)."""
    folder, name = target.real.parent, target.real.name
    live = set(journals(folder))
    remove(folder / n for n in listdir(folder) if stray(n, name, live))
    return temporary(folder, name, _token())


def _replace(target: Target, data: bytes) -> None:
    tmp = _temporary(target)
    try:
        create_file(tmp, data)
        os.replace(tmp, target.real)
    except OSError as e:
        remove([tmp])
        raise WriteError(target.shown, reason(e)) from None
    except BaseException:
        remove([tmp])
        raise


def _guarded(shown: str, step: Callable[[], object]) -> None:
    try:
        step()
    except OSError as e:
        raise WriteError(shown, reason(e)) from None


@contextlib.contextmanager
def _open_stream(target: Target, *, wait: bool) -> Iterator[BinaryIO]:
    """A device, FIFO or socket opened for writing.  ``wait``: a FIFO without a reader
    is waited for; otherwise it is an error."""
    if target.kind == "socket":
        with _connect(target) as f:
            yield f
        return
    flags = os.O_WRONLY | _BINARY | _NOCTTY
    try:
        fd = os.open(target.real, flags if wait else flags | _NONBLOCK)
    except OSError as e:
        if e.errno == errno.ENXIO:  # O_NONBLOCK on a FIFO nobody reads
            raise WriteError(target.shown, "no process is reading from the FIFO") from None
        raise WriteError(target.shown, reason(e)) from None
    if not wait and _NONBLOCK:  # opened without waiting: its writes may wait
        os.set_blocking(fd, True)
    f = os.fdopen(fd, "wb")
    try:
        yield f
        _guarded(target.shown, f.close)  # what is still buffered goes out here
    finally:
        with contextlib.suppress(OSError):
            f.close()


@contextlib.contextmanager
def _connect(target: Target) -> Iterator[BinaryIO]:
    # Imported here: only an output that is a socket needs it, and it costs every
    # command that writes a report a tenth of its start-up.
    import socket

    family = getattr(socket, "AF_UNIX", None)
    if family is None:
        raise WriteError(target.shown, "it is a socket, which this system cannot connect to")
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        try:
            sock.connect(os.fspath(target.real))
        except OSError as e:
            why = f"nothing takes a stream on the socket ({reason(e)})"
            raise WriteError(target.shown, why) from None
        with sock.makefile("wb") as f:
            yield f
    finally:
        sock.close()


# --------------------------------------------------------------------------- streams


class TextOutput:
    """A text stream whose failed writes are :class:`WriteError` naming the user's path
    (a reader gone from standard output stays :class:`BrokenPipeError`); ``f`` None is
    a standard output that was closed before etwmc started."""

    def __init__(self, f: TextIO | None, shown: str) -> None:
        self._f = f
        self.shown = shown

    def write(self, text: str) -> int:
        return self._do(lambda f: f.write(text))

    def flush(self) -> None:
        self._do(lambda f: f.flush())

    def isatty(self) -> bool:
        return self._f is not None and self._f.isatty()

    def fileno(self) -> int:
        if self._f is None:
            raise OSError("standard output is closed")
        return self._f.fileno()

    def _do(self, step: Callable[[TextIO], int | None]) -> int:
        if self._f is None:
            raise WriteError(self.shown, "it is closed")
        try:
            return step(self._f) or 0
        except BrokenPipeError:
            if self.shown == STDOUT:
                raise
            raise WriteError(self.shown, "the reader closed it") from None
        except OSError as e:
            raise WriteError(self.shown, reason(e)) from None


def guarded_stdout() -> TextOutput:
    """Standard output as a :class:`TextOutput` (what the command line prints through)."""
    out = sys.stdout
    return out if isinstance(out, TextOutput) else TextOutput(out, STDOUT)


@contextlib.contextmanager
def stream(path: str | os.PathLike[str] | None, *, errors: str = "strict") -> Iterator[TextOutput]:
    """Text to ``path`` piece by piece (UTF-8, ``\\n`` line ends; ``errors`` as for
    :func:`open`), or to standard output for None.  A regular file is written to a
    temporary file renamed over it when the block ends without an exception (and
    removed if it raises); a device, FIFO or socket is written into as it comes."""
    if path is None:
        guarded = guarded_stdout()
        yield guarded
        guarded.flush()
        return
    target = resolve(path)
    if target.kind != "file":
        with _open_stream(target, wait=True) as raw:
            text = _text(raw, errors)
            guarded = TextOutput(text, target.shown)
            yield guarded
            guarded.flush()
            text.detach()
        return
    tmp = _temporary(target)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _BINARY, 0o666)
    except OSError as e:
        raise WriteError(target.shown, reason(e)) from None
    text = _text(os.fdopen(fd, "wb"), errors)
    try:
        yield TextOutput(text, target.shown)
        _guarded(target.shown, text.close)
        _guarded(target.shown, lambda: os.replace(tmp, target.real))
    finally:
        with contextlib.suppress(OSError):
            text.close()
        remove([tmp])


def _text(raw: BinaryIO, errors: str) -> io.TextIOWrapper:
    return io.TextIOWrapper(raw, encoding="utf-8", errors=errors, newline="\n")


# --------------------------------------------------------------------------- sets


def write_set(
    folder: str | os.PathLike[str],
    files: Mapping[str, bytes],
    *,
    skip_unchanged: bool = False,
    on_wait: Callable[[str], None] | None = None,
) -> list[Path]:
    """:func:`write_sets` for one folder."""
    return write_sets({os.fspath(folder): files}, skip_unchanged=skip_unchanged, on_wait=on_wait)


def write_sets(
    groups: Mapping[str, Mapping[str, bytes]] | Mapping[Path, Mapping[str, bytes]],
    *,
    skip_unchanged: bool = False,
    on_wait: Callable[[str], None] | None = None,
) -> list[Path]:
    """Write every folder's files, all-or-nothing across the folders; returns the paths
    as given, sorted.  The folders are created.  ``skip_unchanged`` leaves a regular
    file that already holds its planned bytes alone (its time stamp too).  While
    another etwmc writes into one of the folders, ``on_wait(folder)`` is called once
    and the write waits for it to end."""
    given = {os.fspath(folder): files for folder, files in groups.items()}
    planned: list[tuple[str, bytes]] = []
    for folder, files in given.items():
        for name, data in files.items():
            shown = os.path.join(folder, name)
            if not plain_name(name):
                raise WriteError(shown, "it is not a plain file name", verb="refuse to write")
            planned.append((shown, data))
    for folder in given:
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError as e:
            raise WriteError(folder, reason(e), verb="create the output folder") from None
    files_by_folder: dict[Path, dict[str, bytes]] = {}
    shown_of: dict[Path, str] = {}
    streams: list[tuple[Target, bytes]] = []
    for shown, data in planned:
        target = resolve(shown)
        if target.kind != "file":
            streams.append((target, data))
            continue
        if target.real in shown_of and shown_of[target.real] != shown:
            raise WriteError(shown, f"it is the same file as {shown_of[target.real]}")
        shown_of[target.real] = shown
        files_by_folder.setdefault(target.real.parent, {})[target.real.name] = data
    locks = [FolderLock(f) for f in sorted(files_by_folder)]
    try:
        for lock in locks:
            _acquire(lock, shown_of, on_wait)
        old: dict[Path, str] = {}  # hashes of the files read to find the unchanged ones
        for real, named in files_by_folder.items():
            recover(real, named)
            if skip_unchanged:
                for name, data in list(named.items()):
                    found = check_regular(real / name, data)
                    if found is None:
                        continue
                    same, digest = found
                    if same:
                        del named[name]
                    elif digest is not None:
                        old[real / name] = digest
        _commit(files_by_folder, streams, shown_of, old)
    finally:
        for lock in locks:
            lock.release()
    return sorted(Path(shown) for shown, _ in planned)


def _shown_folder(folder: Path, shown_of: Mapping[Path, str]) -> str:
    """A real folder as the user named it (the folder of an output they named)."""
    return next(
        (os.path.dirname(s) or "." for real, s in shown_of.items() if real.parent == folder),
        str(folder),
    )


def _acquire(
    lock: FolderLock, shown_of: Mapping[Path, str], on_wait: Callable[[str], None] | None
) -> None:
    shown = _shown_folder(lock.path.parent, shown_of)
    try:
        lock.acquire(None if on_wait is None else lambda: on_wait(shown))
    except OSError as e:
        raise WriteError(shown, reason(e), verb="write into") from None


def _commit(
    files: Mapping[Path, Mapping[str, bytes]],
    streams: list[tuple[Target, bytes]],
    shown_of: Mapping[Path, str],
    old: Mapping[Path, str],
) -> None:
    with contextlib.ExitStack() as stack:
        opened = [(t, stack.enter_context(_open_stream(t, wait=False)), d) for t, d in streams]

        def write_streams() -> None:
            for target, f, data in opened:
                try:
                    f.write(data)
                    f.flush()
                except OSError as e:
                    raise WriteError(target.shown, reason(e)) from None

        try:
            Transaction(files, old).run(between=write_streams)
        except Failure as e:
            if e.folder:
                shown = _shown_folder(e.path, shown_of)
                raise WriteError(shown, e.reason, verb="write into") from None
            raise WriteError(shown_of.get(e.path, str(e.path)), e.reason) from None


# --------------------------------------------------------------------------- checking


def stale(
    folder: str | os.PathLike[str],
    files: Mapping[str, bytes],
    *,
    on_wait: Callable[[str], None] | None = None,
) -> list[tuple[str, str]]:
    """``[(name, why)]`` for the files of the plan that are not up to date in
    ``folder``: ``missing``, ``differs``, ``unreadable`` (a folder is in the way), or
    ``interrupted`` when a write of it was interrupted (its folder may hold a mix of
    two versions until the next write).  Devices, FIFOs and sockets are left out: there
    is nothing to compare.  A write in progress is waited for (``on_wait(folder)``)."""
    out: list[tuple[str, str]] = []
    waited: set[Path] = set()
    shown_folder = os.fspath(folder)
    wait = None if on_wait is None else lambda: on_wait(shown_folder)
    for name in sorted(files):
        shown = os.path.join(os.fspath(folder), name)
        if not plain_name(name):
            raise WriteError(shown, "it is not a plain file name", verb="refuse to check")
        try:
            target = resolve(shown)
        except WriteError:
            why = "missing" if not os.path.lexists(shown) else "unreadable"
            out.append((name, why))
            continue
        if target.kind != "file":
            continue
        if target.real.parent not in waited:
            waited.add(target.real.parent)
            wait_for_writer(target.real.parent, wait)
        if target.real.name in pending(target.real.parent):
            out.append((name, "interrupted"))
        elif not os.path.lexists(target.real):
            out.append((name, "missing"))
        elif _differs(target.real, files[name]):
            out.append((name, "differs"))
    return out


def _differs(path: Path, data: bytes) -> bool:
    return not holds(path, data)


__all__ = [
    "STDOUT",
    "Target",
    "TextOutput",
    "WriteError",
    "guarded_stdout",
    "resolve",
    "stale",
    "stream",
    "write_file",
    "write_set",
    "write_sets",
    "write_text",
    "file_name_problem",
    "reserved_device",
]
