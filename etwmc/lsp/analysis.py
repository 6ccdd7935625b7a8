"""One version of an open document: what ``etwmc lint`` says of it, placed in its text,
and the model the editor's requests read.

Rules:

* The diagnostics are ``etwmc lint``'s (:func:`etwmc.lint.lint_file` on the editor's
  text), with the project's selection, suppression comments and ``werror`` applied as
  the command applies them (:func:`etwmc.selection.apply`, the nearest configuration
  file: :mod:`etwmc.config`).  Each starts where lint says; it ends where the element
  name, the attribute (name to closing quote) or the word written there ends.
* The text is handed to the parser in the encoding its XML declaration names (so the
  declaration and the bytes agree, as in the file), or UTF-8.  A message text file
  (``.mc``) is linted as ``etwmc lint`` lints one: it gets diagnostics, and no model.
* A version that is not well-formed gets its own diagnostics (the XML error) plus those
  of the last well-formed version on the lines the edits since have not touched
  (:class:`LineMap`); the last well-formed version's model answers the requests too.
"""

from __future__ import annotations

import codecs
import re
import threading
from pathlib import Path

from ..codes import Severity
from ..config import ConfigFileError, find_config
from ..diagnostics import Diagnostic, Span, finalize
from ..lint import lint_file
from ..model import Manifest
from ..record import Record
from ..rulepages import url
from ..selection import Selection, SelectorError, apply
from .index import Index, build_index
from .scan import Scan, scan
from .text import Pos, Range, Source


class Settings(Record):
    """The project's lint settings for a document."""

    selection: Selection = Selection()
    werror: bool = False


def settings_for(path: str) -> tuple[Settings, str | None]:
    """The settings of the nearest configuration file above ``path``'s folder, and why
    it could not be used (then the defaults apply)."""
    try:
        config = find_config(Path(path).parent)
        werror = config.table.get("werror", False)
        if not isinstance(werror, bool):
            raise ConfigFileError(f"{config.where}: 'werror' must be true or false")
        return Settings(config.selection(), werror), None
    except (ConfigFileError, SelectorError, OSError) as e:
        return Settings(), str(e)


class Problem(Record):
    """A diagnostic placed in the text it was found in."""

    range: Range
    diagnostic: Diagnostic

    @property
    def code(self) -> str:
        return self.diagnostic.code

    @property
    def severity(self) -> Severity:
        return self.diagnostic.severity

    @property
    def message(self) -> str:
        d = self.diagnostic
        return d.message if not d.hint else f"{d.message}\n{d.hint}"

    @property
    def href(self) -> str:
        """The code's page on the documentation site (what ``etwmc rule`` prints)."""
        return url(self.diagnostic.code)


class LineMap:
    """Lines of an earlier text -> lines of the current one: the lines before and after
    the region the edits touched keep their text and move by how many lines were added
    or removed; the touched ones map nowhere."""

    __slots__ = ("prefix", "old_suffix", "new_suffix", "identity")

    def __init__(self, old: Source, new: Source) -> None:
        self.identity = old.text == new.text
        a = old.lines()
        b = a if self.identity else new.lines()
        prefix = 0
        limit = min(len(a), len(b))
        while prefix < limit and a[prefix] == b[prefix]:
            prefix += 1
        suffix = 0
        while suffix < limit - prefix and a[-1 - suffix] == b[-1 - suffix]:
            suffix += 1
        self.prefix = prefix
        self.old_suffix = len(a) - suffix  # the first old line of the common end
        self.new_suffix = len(b) - suffix

    def forward(self, line: int) -> int | None:
        if self.identity or line < self.prefix:
            return line
        if line >= self.old_suffix:
            return line - self.old_suffix + self.new_suffix
        return None

    def back(self, line: int) -> int | None:
        if self.identity or line < self.prefix:
            return line
        if line >= self.new_suffix:
            return line - self.new_suffix + self.old_suffix
        return None

    def range(self, r: Range) -> Range | None:
        a, b = self.forward(r.start.line), self.forward(r.end.line)
        if a is None or b is None:
            return None
        return Range(Pos(a, r.start.char), Pos(b, r.end.char))


class Analysis:
    """One version of a document, linted; its reading and index made on first use."""

    __slots__ = (
        "text", "source", "path", "version", "problems", "manifest", "_lock", "_scan", "_index"
    )  # fmt: skip

    def __init__(
        self,
        text: str,
        path: str,
        version: int | None,
        problems: tuple[Problem, ...],
        manifest: Manifest | None,
        source: Source | None = None,
    ) -> None:
        self.text = text
        self.source = source or Source(text)
        self.path = path
        self.version = version
        self.problems = problems
        self.manifest = manifest
        self._lock = threading.Lock()
        self._scan: Scan | None = None
        self._index: Index | None = None

    @property
    def well_formed(self) -> bool:
        return self.manifest is not None

    @property
    def scan(self) -> Scan:
        with self._lock:
            if self._scan is None:
                self._scan = scan(self.text)
            return self._scan

    @property
    def index(self) -> Index:
        found = self._index
        if found is not None:
            return found
        reading = self.scan
        with self._lock:
            if self._index is None:
                if self.manifest is None:
                    self._index = Index(())
                else:
                    self._index = build_index(self.manifest, reading, self.place)
            return self._index

    def place(self, span: Span) -> int | None:
        """The offset of a model span's start in this text (None without a column)."""
        if not span.line or not span.col:
            return None
        # The parser drops a byte-order mark before counting columns; the editor's text
        # may still start with one.
        shift = 1 if span.line == 1 and self.text.startswith("\ufeff") else 0
        return self.source.offset(Pos(span.line - 1, span.col - 1 + shift))


_DEFAULT_SETTINGS = Settings()


def analyse(
    text: str,
    path: str,
    version: int | None = None,
    settings: Settings = _DEFAULT_SETTINGS,
    last_good: Analysis | None = None,
) -> Analysis:
    """Lint ``text`` (the document at ``path``) as ``etwmc lint`` would in its project."""
    linted = lint_file(path, encode(text, path))
    diags = finalize(
        apply(linted.diagnostics, settings.selection, {linted.path: linted.lines}),
        werror=settings.werror,
    )
    source = Source(text)
    shift = text.startswith("\ufeff")
    problems = [Problem(_place(source, d.span, shift), d) for d in diags]
    manifest = linted.manifest
    if manifest is None and last_good is not None and last_good.manifest is not None:
        lines = LineMap(last_good.source, source)
        for p in last_good.problems:
            moved = lines.range(p.range)
            if moved is not None:
                problems.append(Problem(moved, p.diagnostic))
    problems.sort(key=lambda p: (p.range.start, p.code, p.diagnostic.message))
    return Analysis(text, path, version, tuple(problems), manifest, source)


_DECLARED = re.compile(r"""\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")


def encode(text: str, path: str = "") -> bytes:
    """The bytes of ``text`` in the encoding its XML declaration names (UTF-8 when it
    names none, one Python does not know, or one that cannot hold the text).  A message
    text file's text is given as ASCII when it is, else as UTF-8 with a byte-order
    mark, the form mc reads as UTF-8 (its columns are then the editor's)."""
    body = text.removeprefix("\ufeff")
    if path.lower().endswith(".mc"):
        if body.isascii() and not text.startswith("\ufeff"):
            return body.encode("ascii")
        return codecs.BOM_UTF8 + body.encode("utf-8", "surrogatepass")
    m = _DECLARED.match(body[:512])
    if m is not None and m.group(1).lower().replace("_", "-") not in ("utf-8", "utf8"):
        try:
            return body.encode(m.group(1))
        except (LookupError, UnicodeError):
            pass
    return body.encode("utf-8", "surrogatepass")


_ATTRIBUTE = re.compile(r"""[^\s=<>"'/]+\s*=\s*(?:"[^"<]*"?|'[^'<]*'?)""")
_TAG_NAME = re.compile(r"</?[^\s=<>\"'/]*")
_WORD = re.compile(r"\S+")


def _place(source: Source, span: Span, bom: bool) -> Range:
    """Where a diagnostic goes: from lint's line and column to the end of the element
    name, attribute or word written there; a whole line without a column, the first
    line for a whole file."""
    if not span.line:
        first = source.line(0)
        return Range(Pos(0, 0), Pos(0, len(first)))
    line = span.line - 1
    text = source.line(line)
    if not span.col:
        start = len(text) - len(text.lstrip())
        return Range(Pos(line, start), Pos(line, max(len(text), start)))
    start = min(span.col - 1 + (1 if bom and line == 0 else 0), len(text))
    at = source.offset(Pos(line, start))
    if source.text.startswith("<", at):
        m = _TAG_NAME.match(source.text, at)
    else:
        m = _ATTRIBUTE.match(source.text, at) or _WORD.match(source.text, at)
    if m is not None and m.end() > at:
        return Range(Pos(line, start), source.pos(m.end()))
    return Range(Pos(line, start), Pos(line, min(start + 1, len(text))))


class View(Record):
    """What a request reads: the current text, and the analysis whose model answers it
    (of the current text, or of an earlier well-formed one), with the lines between."""

    current: Source
    basis: Analysis | None
    lines: LineMap | None

    @staticmethod
    def of(current: Source, basis: Analysis | None) -> View:
        if basis is None:
            return View(current, None, None)
        return View(current, basis, LineMap(basis.source, current))

    def to_basis(self, offset: int) -> int | None:
        """An offset of the current text as an offset of the basis' text (None where the
        edits since have changed the line)."""
        if self.basis is None or self.lines is None:
            return None
        pos = self.current.pos(offset)
        line = self.lines.back(pos.line)
        if line is None:
            return None
        return self.basis.source.offset(Pos(line, pos.char))

    def to_current(self, start: int, end: int) -> Range | None:
        """Offsets of the basis' text as a range of the current text (None where the
        edits since have changed the lines)."""
        if self.basis is None or self.lines is None:
            return None
        return self.lines.range(self.basis.source.range(start, end))
