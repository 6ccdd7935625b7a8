"""A tolerant reading of XML text that keeps where everything is written.

The compiler's parser (:mod:`etwmc.parse`) is strict, as it must be, and keeps only
where each element starts.  An editor needs more: where an attribute's value begins
and ends, where an element ends, and what surrounds the cursor while the text is
half-typed and not well-formed.  This module reads any text into elements with
offsets and never fails.  It validates nothing: what the text means is the model's
business (:mod:`etwmc.lower`), and what is wrong with it the validator's.

Rules of the reading:

* Comments, CDATA sections, processing instructions and declarations are skipped; one
  that is not closed runs to the end of what is read.
* A start tag's attributes are ``name="value"`` or ``name='value'``; a value stops at
  its closing quote, or, unclosed, before the next ``<`` (which no value may hold).
* A start tag that is not closed by ``>`` or ``/>`` before the next ``<`` (or the end)
  is read as an empty element: a tag being typed does not swallow what follows it.
* An end tag closes the innermost open element of its name and those opened inside it;
  an end tag that closes nothing is ignored.  Elements still open at the end end there.
* Offsets count code points of the text; nothing is decoded (``&amp;`` stays as written).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from ..record import Record

_NAME = re.compile(r"[^\s/>=\"'<]+")
_SPACE = re.compile(r"\s+")
_END_TAG = re.compile(r"</\s*([^\s/>=\"'<]*)\s*(>)?")
_UNQUOTED = re.compile(r"[^\s/>\"'<]*")
# A whole start tag of quoted attributes, the form nearly every tag has: read with one
# match, its attributes with another, before the step-by-step reading of the rest.
_ATTR_AT = re.compile(r"""([^\s/>="'<]+)\s*=\s*(?:"([^"<]*)"|'([^'<]*)')""")
_WHOLE_TAG = re.compile(r"""((?:\s+[^\s/>="'<]+\s*=\s*(?:"[^"<]*"|'[^'<]*'))*)\s*(/?)>""")


class Attr(Record):
    name: str
    start: int  # where the name is written
    value_start: int  # the value's first character (after the quote); -1: no value
    value_end: int  # the closing quote, or where an unclosed value stops
    value: str  # as written, references not expanded
    closed: bool  # the closing quote was found

    @property
    def end(self) -> int:
        """Where the attribute ends (after its closing quote)."""
        if self.value_start < 0:
            return self.start + len(self.name)
        return self.value_end + (1 if self.closed else 0)

    def tokens(self) -> Iterator[tuple[int, str]]:
        """The whitespace-separated tokens of the value, with their offsets."""
        if self.value_start < 0:
            return
        for m in re.finditer(r"\S+", self.value):
            yield self.value_start + m.start(), m.group()


class Element(Record):
    name: str  # as written, with its prefix
    start: int  # the '<'
    tag_end: int  # after the start tag's '>' (or where an unclosed start tag stops)
    end: int  # after the end tag or '/>' (or where reading stopped)
    attrs: tuple[Attr, ...] = ()
    children: tuple[Element, ...] = ()
    empty: bool = False  # written <name/> (or an unclosed start tag)
    closed: bool = True  # its end tag or '/>' was found
    end_tag: int = -1  # where its end tag starts, if it has one

    @property
    def local(self) -> str:
        return self.name.rpartition(":")[2]

    @property
    def name_end(self) -> int:
        return self.start + 1 + len(self.name)

    def attr(self, name: str) -> Attr | None:
        for a in self.attrs:
            if a.name == name:
                return a
        return None

    def get(self, name: str) -> str | None:
        a = self.attr(name)
        return a.value if a is not None and a.value_start >= 0 else None

    def elements(self, local: str | None = None) -> Iterator[Element]:
        for c in self.children:
            if local is None or c.local == local:
                yield c


@dataclass(slots=True)
class _Open:
    """An element whose end tag has not been read yet."""

    name: str
    start: int
    tag_end: int
    attrs: tuple[Attr, ...]
    children: list[Element] = field(default_factory=list)


Inside = Literal["text", "tag", "comment", "end-tag"]


class Scan(Record):
    """What a reading found: the top-level elements, and (for a reading stopped at a
    cursor) what the cursor is inside."""

    roots: tuple[Element, ...]
    open: tuple[Element, ...]  # elements still open where reading stopped, outermost first
    inside: Inside = "text"
    tag: Element | None = None  # the start tag the reading stopped in ("tag")

    def walk(self) -> Iterator[Element]:
        stack = list(reversed(self.roots))
        while stack:
            e = stack.pop()
            yield e
            stack.extend(reversed(e.children))

    def at(self, offset: int) -> list[Element]:
        """The elements whose extent holds ``offset``, outermost first."""
        out: list[Element] = []
        level = self.roots
        while True:
            starts = [e.start for e in level]
            i = bisect_right(starts, offset) - 1
            if i < 0 or not (level[i].start <= offset < max(level[i].end, level[i].start + 1)):
                return out
            out.append(level[i])
            level = level[i].children

    def starting_at(self) -> dict[int, Element]:
        """Every element by the offset of its '<'."""
        return {e.start: e for e in self.walk()}


def scan(text: str, limit: int | None = None) -> Scan:
    """Read ``text`` (up to ``limit``, a cursor, when given)."""
    stop = len(text) if limit is None else max(0, min(limit, len(text)))
    stack: list[_Open] = []
    roots: list[Element] = []

    def add(e: Element) -> None:
        (stack[-1].children if stack else roots).append(e)

    pos = 0
    inside: Inside = "text"
    last_tag: Element | None = None
    while True:
        i = text.find("<", pos, stop)
        if i < 0:
            break
        skipped = _skip(text, i, stop)
        if skipped is not None:
            if skipped < 0:
                inside = "comment"
                break
            pos = skipped
            continue
        if text.startswith("</", i, stop):
            m = _END_TAG.match(text, i, stop)
            assert m is not None  # the pattern matches any "</"
            if m.group(2) is None and m.end() >= stop:
                inside = "end-tag"
                break
            _close(stack, m.group(1), i, m.end(), roots)
            pos = m.end()
            continue
        m = _NAME.match(text, i + 1, stop)
        if m is None:
            if i + 1 >= stop:  # a '<' just typed
                last_tag = Element("", i, stop, stop, empty=True, closed=False)
                inside = "tag"
                break
            pos = i + 1  # a stray '<': not markup
            continue
        attrs, tag_end, how = _attributes(text, m.end(), stop)
        name = m.group()
        if how == "open":
            stack.append(_Open(name, i, tag_end, attrs))
        else:
            e = Element(name, i, tag_end, tag_end, attrs, empty=True, closed=how == "empty")
            add(e)
            if how == "cut" and tag_end >= stop:
                last_tag = e
                inside = "tag"
                break
        pos = tag_end
    open_elements = tuple(
        Element(o.name, o.start, o.tag_end, stop, o.attrs, tuple(o.children), closed=False)
        for o in stack
    )
    # What is still open ends where reading stopped, innermost first.
    while stack:
        o = stack.pop()
        add(Element(o.name, o.start, o.tag_end, stop, o.attrs, tuple(o.children), closed=False))
    return Scan(tuple(roots), open_elements, inside, last_tag)


def start_tag(text: str, start: int) -> Element | None:
    """The start tag written at ``start``, read to its end whatever follows a cursor in
    it (its children are not read)."""
    m = _NAME.match(text, start + 1) if text.startswith("<", start) else None
    if m is None:
        return None
    attrs, tag_end, how = _attributes(text, m.end(), len(text))
    return Element(
        m.group(), start, tag_end, tag_end, attrs, empty=how != "open", closed=how != "cut"
    )


def _skip(text: str, i: int, stop: int) -> int | None:
    """Where a comment, CDATA section, processing instruction or declaration starting at
    ``i`` ends; -1 when it runs past ``stop``; None when ``i`` starts none of them."""
    for opener, closer in (("<!--", "-->"), ("<![CDATA[", "]]>"), ("<?", "?>"), ("<!", ">")):
        if text.startswith(opener, i, stop):
            j = text.find(closer, i + len(opener), stop)
            return -1 if j < 0 else j + len(closer)
    return None


def _attributes(text: str, pos: int, stop: int) -> tuple[tuple[Attr, ...], int, str]:
    """The attributes of a start tag from ``pos``, where the tag ends, and how: "open"
    (``>``), "empty" (``/>``) or "cut" (not closed before the next '<' or ``stop``)."""
    whole = _WHOLE_TAG.match(text, pos, stop)
    if whole is not None:
        found = []
        for a in _ATTR_AT.finditer(text, pos, whole.end(1)):
            quoted = 2 if a.group(2) is not None else 3
            value = a.group(quoted)
            found.append(Attr(a.group(1), a.start(), a.start(quoted), a.end(quoted), value, True))
        return tuple(found), whole.end(), "empty" if whole.group(2) else "open"
    attrs: list[Attr] = []
    while True:
        pos = _space(text, pos, stop)
        if pos >= stop or text[pos] == "<":
            return tuple(attrs), pos, "cut"
        if text[pos] == ">":
            return tuple(attrs), pos + 1, "open"
        if text.startswith("/>", pos, stop):
            return tuple(attrs), pos + 2, "empty"
        m = _NAME.match(text, pos, stop)
        if m is None:  # a stray quote, '=' or '/': step over it
            pos += 1
            continue
        name, name_at = m.group(), pos
        after = _space(text, m.end(), stop)
        if after >= stop or text[after] != "=":
            attrs.append(Attr(name, name_at, -1, -1, "", False))
            pos = m.end()
            continue
        pos = _space(text, after + 1, stop)
        if pos < stop and text[pos] in "\"'":
            quote = text[pos]
            close = text.find(quote, pos + 1, stop)
            lt = text.find("<", pos + 1, close if close >= 0 else stop)
            if close >= 0 and lt < 0:
                attrs.append(Attr(name, name_at, pos + 1, close, text[pos + 1 : close], True))
                pos = close + 1
                continue
            end = lt if lt >= 0 else stop
            attrs.append(Attr(name, name_at, pos + 1, end, text[pos + 1 : end], False))
            pos = end
            continue
        v = _UNQUOTED.match(text, pos, stop)
        assert v is not None  # the pattern matches the empty string
        attrs.append(Attr(name, name_at, pos, v.end(), v.group(), False))
        pos = max(v.end(), pos)


def _space(text: str, pos: int, stop: int) -> int:
    m = _SPACE.match(text, pos, stop)
    return m.end() if m is not None else pos


def _close(stack: list[_Open], name: str, at: int, end: int, roots: list[Element]) -> None:
    """An end tag: close the innermost open element named ``name`` and everything opened
    inside it (those end where it ends, unclosed); close nothing if none is."""
    match = next((k for k in range(len(stack) - 1, -1, -1) if stack[k].name == name), None)
    if match is None:
        return
    while len(stack) > match:
        o = stack.pop()
        done = len(stack) == match
        e = Element(
            o.name,
            o.start,
            o.tag_end,
            end if done else at,
            o.attrs,
            tuple(o.children),
            closed=done,
            end_tag=at if done else -1,
        )
        (stack[-1].children if stack else roots).append(e)
