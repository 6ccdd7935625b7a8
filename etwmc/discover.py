"""Which files under the given paths are instrumentation manifests.

A file named on the command line is always checked, whatever it is.  In a folder, a
file is a manifest when both hold:

* its extension is ``.man``, ``.xml`` or ``.manifest`` (any case), and
* its root element is ``instrumentationManifest``, or an ``assembly`` (a Windows
  component manifest) that holds an ``instrumentation`` element.  A ``.man`` file
  whose root cannot be read is a manifest too (``.man`` is the manifest's own
  extension, and a broken one must be reported); other XML is skipped silently, so
  ``pom.xml``, ``app.config.xml`` and application manifests (``app.manifest``) are
  left alone.

Folders are skipped when they are hidden (``.git``, ``.tox``), virtual environments
(they hold ``pyvenv.cfg``), ignored by git (the ``.gitignore`` files from the walk's
root down, read with pathspec's git rules) or excluded by a glob (``--exclude``,
matched like a ``.gitignore`` line against the path relative to the folder walked).
The walk is sorted, so the result does not depend on the file system.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lxml import etree

from .winmeta import ASM_NS, EVENTS_NS

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

MANIFEST_SUFFIXES = (".man", ".xml", ".manifest")
_SNIFF_BYTES = 1 << 20  # how far to read for the root (and an assembly's instrumentation)
_ROOT = f"{{{EVENTS_NS}}}instrumentationManifest"
_ASSEMBLY = f"{{{ASM_NS}}}assembly"


class Found:
    """The manifests found (in order, without repeats) and the paths that do not exist."""

    __slots__ = ("files", "missing")

    def __init__(self) -> None:
        self.files: list[Path] = []
        self.missing: list[str] = []


def discover(paths: Iterable[str], exclude: Sequence[str] = ()) -> Found:
    found = Found()
    seen: set[Path] = set()
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            candidates: Iterable[Path] = walk(p, exclude)
        elif p.exists() or p.is_symlink():
            candidates = [p]  # named explicitly: always checked
        else:
            found.missing.append(raw)
            continue
        for f in candidates:
            if f not in seen:
                seen.add(f)
                found.files.append(f)
    return found


def walk(root: Path, exclude: Sequence[str] = ()) -> Iterator[Path]:
    """Manifests under ``root``, depth first in sorted order."""
    # Loaded when a folder is walked: 11 ms, a tenth of linting a small manifest by name.
    import pathspec

    excluded = pathspec.GitIgnoreSpec.from_lines(exclude)
    yield from _walk(root, root, excluded, [])


def _walk(
    root: Path,
    folder: Path,
    excluded: GitIgnoreSpec,
    ignores: list[tuple[Path, GitIgnoreSpec]],
) -> Iterator[Path]:
    import pathspec  # loaded by walk(), the only caller (see there)

    gitignore = folder / ".gitignore"
    if gitignore.is_file():
        try:
            lines = gitignore.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            lines = []
        ignores = [*ignores, (folder, pathspec.GitIgnoreSpec.from_lines(lines))]
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        path = Path(entry.path)
        is_dir = entry.is_dir(follow_symlinks=False)
        if _skipped(root, path, is_dir, excluded, ignores):
            continue
        if is_dir:
            if entry.name.startswith(".") or (path / "pyvenv.cfg").exists():
                continue
            yield from _walk(root, path, excluded, ignores)
        elif entry.is_file() and path.suffix.lower() in MANIFEST_SUFFIXES:
            if is_manifest(path):
                yield path


def _skipped(
    root: Path,
    path: Path,
    is_dir: bool,
    excluded: GitIgnoreSpec,
    ignores: list[tuple[Path, GitIgnoreSpec]],
) -> bool:
    suffix = "/" if is_dir else ""
    if excluded.match_file(path.relative_to(root).as_posix() + suffix):
        return True
    return any(
        spec.match_file(path.relative_to(base).as_posix() + suffix) for base, spec in ignores
    )


def is_manifest(path: Path) -> bool:
    """Whether the file's root element says it is an instrumentation manifest."""
    try:
        with path.open("rb") as f:
            head = f.read(_SNIFF_BYTES)
    except OSError:
        return path.suffix.lower() == ".man"
    verdict = root_verdict(head)
    if verdict is None:
        return path.suffix.lower() == ".man"
    return verdict


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
