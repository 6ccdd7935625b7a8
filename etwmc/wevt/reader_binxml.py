"""Bounded reading primitives and the BinXML fragment parser used by the WEVT reader.

Rules (see the binary-formats spec, section 2):

- Every read is checked against the end of the buffer; a read past it raises
  :class:`WevtError` naming what was being read and the absolute offset.
- BinXML names are inline: ``u16 hash, u16 length, UTF-16LE chars, u16 NUL``.
- Element tokens: 0x01/0x41 open (0x41 = has attributes), 0x02 close start,
  0x03 close empty, 0x04 end element, 0x05/0x45 value text, 0x06/0x46 attribute,
  0x0D/0x0E substitution, 0x00 end of fragment; 0x0F is the fragment header.
- Nesting is limited to :data:`MAX_DEPTH` elements so hostile input cannot exhaust
  the stack; every token consumes at least one byte, so parsing always ends.
- Every string is well-formed UTF-16 holding only XML characters, and every BinXML name
  is a qualified name (:mod:`etwmc.wevt.xmltext`); anything else is a :class:`WevtError`
  at the offset of the offending character.
"""

from __future__ import annotations

import struct
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..record import Record
from .crim import (
    BX_ATTRIBUTE,
    BX_CLOSE_EMPTY,
    BX_CLOSE_START,
    BX_END_ELEMENT,
    BX_END_OF_FRAGMENT,
    BX_FRAGMENT,
    BX_FRAGMENT_HEADER,
    BX_MORE,
    BX_OPEN_START,
    BX_OPTIONAL_SUBSTITUTION,
    BX_STRING,
    BX_SUBSTITUTION,
    BX_VALUE,
)
from .xmltext import describe, first_bad_char, is_qname, is_uri_reference, utf16_offset

MAX_DEPTH = 64
_BASE = 0xFF & ~BX_MORE  # a token without its "more" bit


class WevtError(ValueError):
    """A WEVT_TEMPLATE blob (or a message table) is malformed.  The message says what
    was being read and at which absolute offset."""


class Buf:
    """Little-endian reads from an immutable byte string, each one bounds-checked."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data

    def __len__(self) -> int:
        return len(self.data)

    def need(self, off: int, n: int, what: str) -> None:
        if off < 0 or n < 0 or off + n > len(self.data):
            raise WevtError(
                f"{what} at offset 0x{off:x} needs {n} bytes but the blob has {len(self.data)}"
            )

    def u8(self, off: int, what: str) -> int:
        self.need(off, 1, what)
        return self.data[off]

    def u16(self, off: int, what: str) -> int:
        self.need(off, 2, what)
        v: int = struct.unpack_from("<H", self.data, off)[0]
        return v

    def u32(self, off: int, what: str) -> int:
        self.need(off, 4, what)
        v: int = struct.unpack_from("<I", self.data, off)[0]
        return v

    def u64(self, off: int, what: str) -> int:
        self.need(off, 8, what)
        v: int = struct.unpack_from("<Q", self.data, off)[0]
        return v

    def guid(self, off: int, what: str) -> uuid.UUID:
        self.need(off, 16, what)
        return uuid.UUID(bytes_le=self.data[off : off + 16])

    def sig(self, off: int, expected: bytes, what: str) -> None:
        self.need(off, 4, what)
        got = self.data[off : off + 4]
        if got != expected:
            raise WevtError(
                f"{what} at offset 0x{off:x}: expected signature {expected.decode()!r}, "
                f"found {got!r}"
            )

    def count(self, off: int, n: int, size: int, what: str) -> None:
        """Check that ``n`` entries of ``size`` bytes fit from ``off`` before looping."""
        if n < 0 or off < 0 or n * size > len(self.data) - off:
            raise WevtError(
                f"{what} at offset 0x{off:x}: {n} entries of {size} bytes do not fit "
                f"in the {len(self.data)}-byte blob"
            )

    def text(self, off: int, end: int, what: str) -> str:
        """The UTF-16LE text in ``[off, end)``; it must be XML text."""
        try:
            text = self.data[off:end].decode("utf-16-le")
        except UnicodeDecodeError as e:
            raise WevtError(
                f"{what} at offset 0x{off:x}: invalid UTF-16 at offset 0x{off + e.start:x} "
                f"({e.reason})"
            ) from None
        bad = first_bad_char(text)
        if bad is not None:
            raise WevtError(
                f"{what} at offset 0x{off:x}: character {describe(text[bad])} at offset "
                f"0x{off + utf16_offset(text, bad):x} is not allowed in XML text"
            )
        return text

    def utf16(self, off: int, nchars: int, what: str) -> str:
        self.need(off, 2 * nchars, what)
        return self.text(off, off + 2 * nchars, what)

    def sized_string(self, off: int, what: str) -> str:
        """A u32 total size (including itself and padding), UTF-16LE text, NUL, padding."""
        size = self.u32(off, what)
        if size < 4 or size % 2:
            raise WevtError(f"{what} at offset 0x{off:x}: bad string size {size}")
        self.need(off, size, what)
        nul = self._nul(off + 4, off + size)
        if nul is None:
            raise WevtError(f"{what} at offset 0x{off:x}: string is not NUL-terminated")
        return self.text(off + 4, nul, what)

    def qname(self, off: int, what: str) -> str:
        """A sized string that a manifest types ``xs:QName`` (level, task, opcode,
        keyword and filter names)."""
        name = self.sized_string(off, what)
        if not is_qname(name):
            raise WevtError(f"{what} {name!r} at offset 0x{off:x} is not an XML qualified name")
        return name

    def _nul(self, off: int, end: int) -> int | None:
        """The offset of the first UTF-16 NUL in ``[off, end)`` on a code-unit boundary."""
        pos = self.data.find(b"\0\0", off, end)
        while pos >= 0 and (pos - off) % 2:
            pos = self.data.find(b"\0\0", pos + 1, end)
        return pos if pos >= 0 else None

    def zstring(self, off: int, end: int, what: str) -> tuple[str, int]:
        """A UTF-16LE NUL-terminated string starting at ``off`` ending before ``end``;
        returns the text and the offset after the NUL."""
        nul = self._nul(off, min(end, len(self.data)))
        if nul is not None:
            return self.text(off, nul, what), nul + 2
        raise WevtError(f"{what} at offset 0x{off:x}: no NUL terminator before 0x{end:x}")


# --------------------------------------------------------------------------- BinXML


class Subst(Record):
    """A ``%n`` substitution: 0-based index and the BinXML value type."""

    index: int
    value_type: int
    optional: bool = False


class Text(Record):
    """Character data of a BinXML fragment."""

    text: str


@dataclass(slots=True)
class Element:
    """An element of a BinXML fragment, filled in as the fragment is read."""

    name: str
    attrs: list[tuple[str, list[Text | Subst]]] = field(default_factory=list)
    children: list[Element | Text | Subst] = field(default_factory=list)


def parse_fragment(buf: Buf, off: int, end: int) -> tuple[Element | None, int]:
    """Parse the BinXML fragment in ``[off, end)``; return the root element (None for an
    empty fragment) and the offset after the end-of-fragment token."""
    p = _Parser(buf, end)
    return p.fragment(off)


class _Parser:
    def __init__(self, buf: Buf, end: int) -> None:
        self.buf = buf
        self.end = min(end, len(buf))

    def _tok(self, off: int) -> int:
        if off >= self.end:
            raise WevtError(f"BinXML token at offset 0x{off:x} runs past the end at 0x{self.end:x}")
        return self.buf.data[off]

    def fragment(self, off: int) -> tuple[Element | None, int]:
        tok = self._tok(off)
        if tok == BX_FRAGMENT_HEADER:
            off += len(BX_FRAGMENT)  # header: token, major, minor, flags
        root: Element | None = None
        while True:
            tok = self._tok(off)
            if tok == BX_END_OF_FRAGMENT:
                return root, off + 1
            if tok & _BASE == BX_OPEN_START and root is None:
                root, off = self.element(off, 0)
            else:
                raise WevtError(f"unexpected BinXML token 0x{tok:02x} at offset 0x{off:x}")

    def name(self, off: int) -> tuple[str, int]:
        n = self.buf.u16(off + 2, "BinXML name length")
        if 4 + 2 * n + 2 > self.end - off:
            raise WevtError(f"BinXML name at offset 0x{off:x} runs past the end")
        text = self.buf.utf16(off + 4, n, "BinXML name")
        if not is_qname(text):
            raise WevtError(f"BinXML name {text!r} at offset 0x{off:x} is not an XML name")
        return text, off + 4 + 2 * n + 2

    def element(self, off: int, depth: int) -> tuple[Element, int]:
        if depth >= MAX_DEPTH:
            raise WevtError(f"BinXML at offset 0x{off:x} nests deeper than {MAX_DEPTH} elements")
        tok = self._tok(off)
        has_attrs = bool(tok & BX_MORE)
        size = self.buf.u32(off + 3, "BinXML element size")
        elem_end = off + 7 + size
        if elem_end > self.end:
            raise WevtError(f"BinXML element at offset 0x{off:x} claims {size} bytes past the end")
        name, pos = self.name(off + 7)
        elem = Element(name)
        if has_attrs:
            pos += 4  # byte size of the attribute list
            while True:
                tok = self._tok(pos)
                if tok & _BASE != BX_ATTRIBUTE:
                    raise WevtError(f"expected a BinXML attribute at offset 0x{pos:x}")
                aname, pos = self.name(pos + 1)
                at = pos
                value, pos = self.content(pos, depth, in_attr=True)
                if aname == "xmlns" or aname.startswith("xmlns:"):
                    self.namespace(aname, value, at)
                elem.attrs.append((aname, value))  # type: ignore[arg-type]
                if not tok & BX_MORE:
                    break
        tok = self._tok(pos)
        if tok == BX_CLOSE_EMPTY:
            return elem, pos + 1
        if tok != BX_CLOSE_START:
            raise WevtError(
                f"expected BinXML close-start token at offset 0x{pos:x}, got 0x{tok:02x}"
            )
        children, pos = self.content(pos + 1, depth, in_attr=False)
        tok = self._tok(pos)
        if tok != BX_END_ELEMENT:
            raise WevtError(
                f"expected BinXML end-element token at offset 0x{pos:x}, got 0x{tok:02x}"
            )
        elem.children = children
        return elem, pos + 1

    @staticmethod
    def namespace(aname: str, value: Sequence[Element | Text | Subst], at: int) -> None:
        """A namespace declaration must be plain text and a URI reference."""
        if any(not isinstance(v, Text) for v in value):
            raise WevtError(f"BinXML {aname} at offset 0x{at:x} holds a substitution")
        uri = "".join(v.text for v in value if isinstance(v, Text))
        if not is_uri_reference(uri):
            raise WevtError(f"BinXML {aname} at offset 0x{at:x}: {uri!r} is not a URI")

    def content(
        self, pos: int, depth: int, *, in_attr: bool
    ) -> tuple[list[Element | Text | Subst], int]:
        out: list[Element | Text | Subst] = []
        while True:
            tok = self._tok(pos)
            base = tok & _BASE
            if base == BX_VALUE:
                vtype = self.buf.u8(pos + 1, "BinXML value type")
                if vtype != BX_STRING:
                    raise WevtError(
                        f"BinXML value at offset 0x{pos:x} has unsupported type {vtype}"
                    )
                n = self.buf.u16(pos + 2, "BinXML value length")
                if 4 + 2 * n > self.end - pos:
                    raise WevtError(f"BinXML value at offset 0x{pos:x} runs past the end")
                out.append(Text(self.buf.utf16(pos + 4, n, "BinXML value")))
                pos += 4 + 2 * n
            elif base in (BX_SUBSTITUTION, BX_OPTIONAL_SUBSTITUTION):
                idx = self.buf.u16(pos + 1, "BinXML substitution index")
                vtype = self.buf.u8(pos + 3, "BinXML substitution type")
                if pos + 4 > self.end:
                    raise WevtError(f"BinXML substitution at offset 0x{pos:x} runs past the end")
                out.append(Subst(idx, vtype, base == BX_OPTIONAL_SUBSTITUTION))
                pos += 4
            elif base == BX_OPEN_START and not in_attr:
                child, pos = self.element(pos, depth + 1)
                out.append(child)
            else:
                return out, pos
