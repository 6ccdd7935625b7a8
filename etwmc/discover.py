"""Which files under the given paths are instrumentation manifests.

A file named on the command line is always checked, whatever it is.  In a folder, a
file is checked when it is a manifest or a message text file.  It is a manifest when
both hold:

* its extension is ``.man``, ``.xml`` or ``.manifest`` (any case), and
* its root element is ``instrumentationManifest``, or an ``assembly`` (a Windows
  component manifest) that holds an ``instrumentation`` element.  A ``.man`` file
  whose root cannot be read is a manifest too (``.man`` is the manifest's own
  extension, and a broken one must be reported); other XML is skipped silently, so
  ``pom.xml``, ``app.config.xml`` and application manifests (``app.manifest``) are
  left alone.

It is a message text file (mc's ``.mc`` source, which ``etwmc lint`` checks as ``etwmc
mc`` reads it) when its extension is ``.mc`` (any case) and a line of its first MiB is
one of mc's statements that open a file or a message (``MessageId=``,
``MessageIdTypedef=``, ``SeverityNames=``, ``FacilityNames=``, ``LanguageNames=``,
``OutputBase=``; keywords in any case, as mc reads them), in ANSI or UTF-16LE with a
BOM; other ``.mc`` files are skipped silently.  A ``.mc`` file that cannot be read is
checked (the lint says why), as a ``.man`` one is.

Folders are skipped when they are hidden (``.git``, ``.tox``), virtual environments
(they hold ``pyvenv.cfg``), ignored by git (the ``.gitignore`` files from the walk's
root down, read with pathspec's git rules) or excluded by a glob (``--exclude``,
matched like a ``.gitignore`` line against the path relative to the folder walked).
Symbolic links to folders are not followed, so a link loop cannot send the walk round.
The walk is sorted, so the result does not depend on the file system.

What the walk cannot read is reported (ETW014, an error; :attr:`Found.problems`) and
the walk goes on with everything else: a folder it cannot list (no permission), a
symbolic link it cannot resolve (a loop), and a ``.man`` or ``.mc`` entry that is not a
regular file (a FIFO, a socket, a device, or a link to one: never opened, so nothing can
make a lint wait on it).  An entry that vanishes while the walk runs is gone and skipped,
as are dangling links; a ``.xml`` or ``.manifest`` entry that is not a regular file is
skipped silently, like other XML.

``force_exclude`` gives the files named on the command line the folder search's rules
(the path taken relative to the current folder): pre-commit names every file it
checks, so without it a repository's ``app.manifest`` would be reported as not a
manifest.  ruff's ``--force-exclude`` is the analogue.  What it leaves out is listed
in :attr:`Found.skipped`.
"""

from __future__ import annotations

import codecs
import os
import re
import stat
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lxml import etree

from .codes import E_WALK
from .diagnostics import Diagnostic, Span, diag
from .regularfile import NotRegularFile, kind_of_mode, open_regular
from .winmeta import ASM_NS, EVENTS_NS

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

MANIFEST_SUFFIXES = (".man", ".xml", ".manifest")
MESSAGE_TEXT_SUFFIX = ".mc"
# Every extension a folder search looks at (pre-commit's hook takes the same).
SEARCHED_SUFFIXES = (*MANIFEST_SUFFIXES, MESSAGE_TEXT_SUFFIX)
# Extensions whose own files are reported when they cannot be read or are not regular
# files; other XML is skipped silently.
_OWN_SUFFIXES = (".man", MESSAGE_TEXT_SUFFIX)
_MC_STATEMENT = re.compile(
    r"^[ \t]*(?:MessageId|MessageIdTypedef|SeverityNames|FacilityNames|LanguageNames"
    r"|OutputBase)[ \t]*=",
    re.IGNORECASE | re.MULTILINE,
)
_SNIFF_BYTES = 1 << 20  # how far to read for the root (and an assembly's instrumentation)
_ROOT = f"{{{EVENTS_NS}}}instrumentationManifest"
_ASSEMBLY = f"{{{ASM_NS}}}assembly"

_Ignores = list[tuple[Path, "GitIgnoreSpec"]]


class Found:
    """The manifests found (in order, without repeats), the paths that do not exist,
    what a folder search could not read (ETW014 diagnostics), and the named files that
    ``force_exclude`` left out."""

    __slots__ = ("files", "missing", "problems", "skipped")

    def __init__(self) -> None:
        self.files: list[Path] = []
        self.missing: list[str] = []
        self.problems: list[Diagnostic] = []
        self.skipped: list[str] = []


def discover(
    paths: Iterable[str], exclude: Sequence[str] = (), *, force_exclude: bool = False
) -> Found:
    found = Found()
    seen: set[Path] = set()
    for raw in paths:
        p = Path(raw)
        try:
            os.lstat(p)
        except (FileNotFoundError, NotADirectoryError):
            found.missing.append(raw)
            continue
        except OSError:
            pass  # named explicitly: reading it says why it cannot be read (ETW001)
        candidates: Iterable[Path]
        if os.path.isdir(p):
            candidates = walk(p, exclude, found.problems)
        elif force_exclude:
            candidates = _as_searched(p, exclude, found.problems)
            if not candidates:
                found.skipped.append(raw)
        else:
            candidates = [p]  # named explicitly: always checked
        for f in candidates:
            if f not in seen:
                seen.add(f)
                found.files.append(f)
    return found


def walk(
    root: Path, exclude: Sequence[str] = (), problems: list[Diagnostic] | None = None
) -> Iterator[Path]:
    """Manifests under ``root``, depth first in sorted order; what cannot be read is
    added to ``problems``."""
    # Loaded when a folder is walked: 11 ms, a tenth of linting a small manifest by name.
    import pathspec

    excluded = pathspec.GitIgnoreSpec.from_lines(exclude)
    yield from _walk(root, root, excluded, [], problems if problems is not None else [])


# What an entry is, as far as the search cares.
_FOLDER, _FILE, _LINKED_FOLDER, _GONE = "folder", "file", "linked folder", "gone"


def _walk(
    root: Path,
    folder: Path,
    excluded: GitIgnoreSpec,
    ignores: _Ignores,
    problems: list[Diagnostic],
) -> Iterator[Path]:
    ignores = _with_gitignore(folder, ignores)
    try:
        with os.scandir(folder) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except FileNotFoundError:
        return  # removed while the walk ran
    except OSError as e:
        problems.append(_unreadable(folder, f"cannot search this folder: {_reason(e)}"))
        return
    for entry in entries:
        path = Path(entry.path)
        kind = _entry_kind(entry)
        if _skipped(root, path, kind == _FOLDER, excluded, ignores):
            continue
        if kind == _FOLDER:
            if entry.name.startswith(".") or os.path.exists(path / "pyvenv.cfg"):
                continue
            yield from _walk(root, path, excluded, ignores, problems)
        else:
            yield from _candidate(path, kind, problems)


def _candidate(path: Path, kind: str | OSError, problems: list[Diagnostic]) -> Iterator[Path]:
    """``path`` when it is a manifest; a problem when it cannot be told."""
    suffix = path.suffix.lower()
    if isinstance(kind, OSError):
        problems.append(_unreadable(path, f"cannot read this entry: {_reason(kind)}"))
    elif suffix not in SEARCHED_SUFFIXES or kind in (_GONE, _LINKED_FOLDER):
        return
    elif kind == _FILE:
        if _sniffed(path, suffix):
            yield path
    elif suffix in _OWN_SUFFIXES:
        problems.append(_unreadable(path, f"this is {kind}, not a regular file: not read"))


def _entry_kind(entry: os.DirEntry[str]) -> str | OSError:
    """The kind of a listed entry: folder, file, linked folder, gone, a special file's
    description, or the error that stopped us telling.  A folder's or a file's kind
    comes with the listing; only links and special files cost a ``stat``."""
    try:
        if entry.is_dir(follow_symlinks=False):
            return _FOLDER
        if entry.is_file(follow_symlinks=False):
            return _FILE
    except FileNotFoundError:
        return _GONE
    except OSError as e:
        return e
    return _kind_of(entry.path)


def _kind_of(path: str | Path) -> str | OSError:
    """The kind of what ``path`` leads to (a link is followed)."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return _GONE  # a dangling link, or removed while the walk ran
    except OSError as e:
        return e  # a link loop, no permission, an I/O error
    if stat.S_ISDIR(mode):
        return _LINKED_FOLDER
    if stat.S_ISREG(mode):
        return _FILE
    return kind_of_mode(mode)


def _as_searched(path: Path, exclude: Sequence[str], problems: list[Diagnostic]) -> list[Path]:
    """``[path]`` when a search of the current folder would find it (of the folder that
    holds it, for a path outside), else ``[]``; problems as the search reports them."""
    # Loaded with --force-exclude only: 11 ms, a tenth of linting a small manifest by name.
    import pathspec

    absolute = Path(os.path.abspath(path))
    base = Path.cwd()
    try:
        parts = absolute.relative_to(base).parts
    except ValueError:
        base, parts = absolute.parent, (absolute.name,)
    excluded = pathspec.GitIgnoreSpec.from_lines(exclude)
    ignores: _Ignores = []
    folder = base
    for part in parts[:-1]:
        ignores = _with_gitignore(folder, ignores)
        folder = folder / part
        if part.startswith(".") or os.path.exists(folder / "pyvenv.cfg"):
            return []
        if _skipped(base, folder, True, excluded, ignores):
            return []
    ignores = _with_gitignore(folder, ignores)
    if _skipped(base, absolute, False, excluded, ignores):
        return []
    # Reported under the name it was given, as every other diagnostic of a named file.
    return list(_candidate(path, _kind_of(path), problems))


def _with_gitignore(folder: Path, ignores: _Ignores) -> _Ignores:
    """``ignores`` and the patterns of ``folder``'s .gitignore, when it has one."""
    gitignore = folder / ".gitignore"
    if not os.path.isfile(gitignore):
        return ignores
    import pathspec  # already loaded by the caller

    try:
        lines = gitignore.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        lines = []
    return [*ignores, (folder, pathspec.GitIgnoreSpec.from_lines(lines))]


def _skipped(
    root: Path,
    path: Path,
    is_dir: bool,
    excluded: GitIgnoreSpec,
    ignores: _Ignores,
) -> bool:
    suffix = "/" if is_dir else ""
    if excluded.match_file(path.relative_to(root).as_posix() + suffix):
        return True
    return any(
        spec.match_file(path.relative_to(base).as_posix() + suffix) for base, spec in ignores
    )


def _unreadable(path: Path, message: str) -> Diagnostic:
    return diag(
        E_WALK,
        Span(str(path)),
        message,
        hint="every other file was checked; fix the entry, or leave it out with --exclude",
    )


def _reason(e: OSError) -> str:
    return e.strerror or str(e)


def _sniffed(path: Path, suffix: str) -> bool:
    """Whether a searched file is what its suffix promises: a manifest by its root
    element (the undecided ``.man`` by its name), a message text file by its text (see
    the module docstring).  A file that cannot be read counts when its suffix is one of
    etwmc's own, so that the lint says why it cannot be read."""
    try:
        head = _head(path)
    except _NotThere:
        return False
    except OSError:
        return suffix in _OWN_SUFFIXES
    if suffix == MESSAGE_TEXT_SUFFIX:
        return looks_like_message_text(head)
    verdict = root_verdict(head)
    return suffix == ".man" if verdict is None else verdict


def looks_like_message_text(data: bytes) -> bool:
    """Whether a line of ``data`` is a statement of mc's that opens a file or a message."""
    if data.startswith(codecs.BOM_UTF16_LE):
        text = data[2:].decode("utf-16-le", errors="replace")
    else:
        text = data.decode("latin-1")  # any code page: the keywords are ASCII
    return _MC_STATEMENT.search(text) is not None


class _NotThere(Exception):
    """The file is gone, or is no longer a regular file."""


def _head(path: Path) -> bytes:
    """The first bytes of a regular file (never waiting on a FIFO put in its place)."""
    try:
        f = open_regular(path)
    except (FileNotFoundError, NotADirectoryError, NotRegularFile):
        raise _NotThere from None
    with f:
        return f.read(_SNIFF_BYTES)


def root_verdict(data: bytes) -> bool | None:
    """True or False when the root element can be read from ``data``, else None.

    The parser is the safe one (no DTD, no entities, no network); reading stops at the
    root, or for an ``assembly`` at its ``instrumentation`` child."""
    parser = etree.XMLPullParser(
        events=("start",),
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
    )
    depth_one: str | None = None
    try:
        parser.feed(data)
        for _, elem in parser.read_events():
            if depth_one is None:
                if elem.tag == _ROOT:
                    return True
                if elem.tag != _ASSEMBLY:
                    return False
                depth_one = elem.tag
                continue
            if isinstance(elem.tag, str) and elem.tag.endswith("}instrumentation"):
                parent = elem.getparent()
                if parent is not None and parent.tag == _ASSEMBLY:
                    return True
    except etree.XMLSyntaxError:
        pass
    return False if depth_one is not None else None
