"""Positions in a document's text, as the Language Server Protocol counts them.

Rules:

* Lines end at LF, CR LF or CR, and nowhere else (``str.splitlines`` also breaks at
  U+2028, U+0085 and others, which an editor does not; so does pygls's own document
  store, which is why the server keeps its own: :func:`apply_change`).
* Inside the package a position is a line and a character offset counted in code
  points (:class:`Pos`); what the client sends and receives is counted in the code
  units of the encoding agreed at initialisation: UTF-16 unless the client offered
  another (:data:`ENCODINGS`).  Only the server converts (:func:`to_units`,
  :func:`from_units`).
* A position past the end of a line is the end of that line; past the last line, the
  end of the text.  Nothing here raises on a position a client made up.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from ..record import Record

ENCODINGS = ("utf-16", "utf-8", "utf-32")  # the protocol's default first
_BREAK = re.compile(r"\r\n|\r|\n")


class Pos(Record, order=True):
    line: int  # 0-based
    char: int  # 0-based, in code points


class Range(Record):
    start: Pos
    end: Pos


class Source:
    """A text and where its lines start, for offset <-> position conversion."""

    __slots__ = ("text", "starts")

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0, *(m.end() for m in _BREAK.finditer(text))]

    @property
    def line_count(self) -> int:
        return len(self.starts)

    def line(self, n: int) -> str:
        """Line ``n`` without its line break ('' past the end)."""
        if not 0 <= n < len(self.starts):
            return ""
        start = self.starts[n]
        end = self.starts[n + 1] if n + 1 < len(self.starts) else len(self.text)
        text = self.text[start:end]
        return text.rstrip("\r\n") if text.endswith(("\r", "\n")) else text

    def offset(self, pos: Pos) -> int:
        """The offset of ``pos`` in the text, clamped to its line and to the text."""
        if pos.line < 0:
            return 0
        if pos.line >= len(self.starts):
            return len(self.text)
        return self.starts[pos.line] + max(0, min(pos.char, len(self.line(pos.line))))

    def pos(self, offset: int) -> Pos:
        offset = max(0, min(offset, len(self.text)))
        n = bisect_right(self.starts, offset) - 1
        return Pos(n, offset - self.starts[n])

    def range(self, start: int, end: int) -> Range:
        return Range(self.pos(start), self.pos(end))

    def lines(self) -> list[str]:
        return [self.line(n) for n in range(len(self.starts))]


def units(text: str, encoding: str) -> int:
    """The number of code units ``text`` takes in ``encoding``."""
    if encoding == "utf-32":
        return len(text)
    if encoding == "utf-8":
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def to_units(line: str, char: int, encoding: str) -> int:
    """A character offset of ``line`` (code points) in the client's code units."""
    return units(line[: max(0, char)], encoding)


def from_units(line: str, count: int, encoding: str) -> int:
    """The code-point offset of ``line`` that ``count`` code units reach; a count that
    falls inside a character (half of a surrogate pair) counts that character as
    reached, and a count past the end is the end."""
    if encoding == "utf-32":
        return max(0, min(count, len(line)))
    reached = 0
    for i, c in enumerate(line):
        if reached >= count:
            return i
        reached += units(c, encoding)
    return len(line)


def apply_change(text: str, start: Pos | None, end: Pos | None, new: str) -> str:
    """``text`` with the code-point range [start, end) replaced by ``new``; the whole text
    when no range is given (a client's full-text change)."""
    if start is None or end is None:
        return new
    source = Source(text)
    a, b = source.offset(start), source.offset(end)
    if b < a:
        a, b = b, a
    return text[:a] + new + text[b:]
