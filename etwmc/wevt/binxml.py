"""The BinXML fragment stored in a TEMP record, and the template id derived from it.

Rules (binary-formats.md §2 and §1.6, checked against mc's outputs):

* An EventData template becomes ``<EventData [Name="tmpl name"]>`` holding, per
  top-level item in order, ``<Data Name="item">%n</Data>`` (``<ComplexData ...>`` for
  a struct), n counting from 1.  A ``<binary>`` item's two fields (``__binLength``,
  then the data) become one ``<Binary>%n</Binary>`` naming the data, no attribute (as
  in Microsoft's services.wevt, whose 17 such template ids this reproduces).  A
  UserData template is the user's element tree.
* Tokens: 0x0F fragment header (1.1, flags 0); 0x01 open start element (0x41 when it
  has attributes) with dependency id 0xFFFF, a u32 size and an inline name; attribute
  list size, then 0x46/0x06 attributes whose value is a 0x05 string token without a
  NUL; 0x02 close start (mc never writes 0x03, an empty element is 0x02 0x04); 0x0D
  normal substitution (u16 index, u8 value type); 0x04 end element; 0x00 end of
  fragment; zero padding to 4 bytes.
* Inline name: u16 hash (h = h*65599 + code unit, low 16 bits), u16 length, UTF-16
  text, u16 NUL.
* Text of a UserData element contributes only its first ``%n`` (a substitution);
  other text is not stored in the BinXML.
* A substitution's value type is the item's inType (0x0E for a struct), with 0x80 set
  when the item has a count.
* Template id (mc 10.x): SHA-256 over ``b"MS-WEVT\\0"``, the UTF-16LE text of the
  template XML written without whitespace (``<EventData/>`` when empty), and one u32
  per top-level item holding its value type; the first 16 bytes with byte 7's high
  nibble set to 5.  mc 8.1 (legacy ids): MD5 of the XML text, then MD5 of the type
  array chained from that first digest.
"""

from __future__ import annotations

import functools
import math
import re
import struct
from collections.abc import Iterator, Sequence

from ..digest import sha256
from ..model import Field, Struct, Template, XmlNode
from .crim import (
    BX_ARRAY,
    BX_ATTRIBUTE,
    BX_BINARY,
    BX_CLOSE_START,
    BX_END_ELEMENT,
    BX_END_OF_FRAGMENT,
    BX_FRAGMENT,
    BX_MORE,
    BX_NO_DEPENDENCY,
    BX_OPEN_START,
    BX_STRING,
    BX_SUBSTITUTION,
    BX_VALUE,
    utf16,
)

_SUBST = re.compile(r"%(\d+)")


def name_hash(name: str) -> int:
    """mc's 16-bit hash of an element or attribute name (over UTF-16 code units)."""
    h = 0
    for (unit,) in struct.iter_unpack("<H", utf16(name)):
        h = (h * 65599 + unit) & 0xFFFFFFFF
    return h & 0xFFFF


def value_type(item: Field | Struct) -> int:
    """The BinXML value type of a template item (its substitution's type byte)."""
    if isinstance(item, Struct):
        t = BX_BINARY
    else:
        t = item.in_type.code & 0x7F if item.in_type is not None else 0
    if item.count is not None and item.count != 0:  # count="0" is no count at all
        t |= BX_ARRAY
    return t


def value_types(template: Template) -> list[int]:
    return [value_type(i) for i in template.items]


# --------------------------------------------------------------------------- escapes


def _esc_attr(s: str) -> str:
    return (
        s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("\t", "&#x9;")
        .replace("\n", "&#xA;")
        .replace("\r", "&#xD;")
    )


def _esc_text(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# --------------------------------------------------------------------------- limits

MAX_UNITS = 0xFFFF  # a BinXML name or value carries its length in a u16


def _units(s: str) -> bytes:
    """UTF-16LE text, cut to what its u16 length can count: a longer string is an
    error that :func:`oversized` reports first, so only a model that failed validation
    is cut (the writers never raise)."""
    data = utf16(s)
    return data if len(data) <= 2 * MAX_UNITS else data[: 2 * MAX_UNITS]


def _stored_texts(template: Template) -> Iterator[str]:
    """Every element name, attribute name and attribute value the template's BinXML
    stores, in the order it stores them."""
    if template.user_data is not None:
        yield from _node_texts(template.user_data)
        return
    yield "EventData"
    if template.name is not None:
        yield from ("Name", template.name)
    items = template.items
    for item in items[:-2] if template.binary is not None else items:
        yield from ("ComplexData" if isinstance(item, Struct) else "Data", "Name", item.name)
    if template.binary is not None:
        yield "Binary"


def _node_texts(node: XmlNode) -> Iterator[str]:
    yield node.tag[1]
    for prefix, uri in node.nsmap:
        yield from (prefix or "xmlns", uri)
    for (_, local), value in node.attrs:
        yield from (local, value)
    for child in node.children:
        yield from _node_texts(child)


def oversized(template: Template) -> list[tuple[str, int]]:
    """(start of the text, length in UTF-16 code units) of every name or attribute
    value of the template's BinXML that is longer than :data:`MAX_UNITS`."""
    out: list[tuple[str, int]] = []
    for text in _stored_texts(template):
        # A character takes at most two code units: only a text of more than
        # MAX_UNITS // 2 of them can be too long, and only that one is encoded.
        if len(text) > MAX_UNITS // 2:
            n = len(utf16(text)) // 2
            if n > MAX_UNITS:
                out.append((text[:24], n))
    return out


# --------------------------------------------------------------------------- BinXML

# Fixed-shape records of the fragment.
_OPEN = struct.Struct("<BHI")  # open-start token, dependency id, element size
_NAME = struct.Struct("<HH")  # an inline name's hash and length
_VALUE = struct.Struct("<BBH")  # value token, value type, length
_SUBSTITUTION = struct.Struct("<BHB")  # token, index, value type
_U32 = struct.Struct("<I")
# An open-start token with its size still 0 (:func:`_end` writes it).
_OPEN_BARE = _OPEN.pack(BX_OPEN_START, BX_NO_DEPENDENCY, 0)
_OPEN_WITH_ATTRIBUTES = _OPEN.pack(BX_OPEN_START | BX_MORE, BX_NO_DEPENDENCY, 0)


# Every template repeats its element and attribute names (Data, Name, EventData ...):
# each name's inline form (with its hash, a loop over its code units) is made once.
@functools.lru_cache(maxsize=1024)
def _inline_name(name: str) -> bytes:
    """An inline name: hash, length, UTF-16 text, NUL."""
    data = _units(name)
    return _NAME.pack(name_hash(name), len(data) // 2) + data + b"\0\0"


# A template's BinXML and the XML text mc hashes (no whitespace between tags, ``<x/>``
# for an empty element) are written side by side as its elements are walked, into a
# bytearray and a list of text pieces: every element is opened by _start and, after
# its close-start token and content, ended by _end.


def _start(
    out: bytearray, xml: list[str], name: str, qual: str, attrs: Sequence[tuple[str, str, str]]
) -> int:
    """Open element ``name`` (``qual`` in the XML text) with its attributes (local name,
    qualified name, value); returns the offset of its size, which :func:`_end` fills in."""
    size_at = len(out) + 3
    xml.append("<" + qual)
    if not attrs:
        out += _OPEN_BARE
        out += _inline_name(name)
        return size_at
    out += _OPEN_WITH_ATTRIBUTES
    out += _inline_name(name)
    list_at = len(out)
    out += b"\0\0\0\0"
    more = len(attrs)
    for local, attr_qual, value in attrs:
        more -= 1
        data = _units(value)
        out.append(BX_ATTRIBUTE | BX_MORE if more else BX_ATTRIBUTE)
        out += _inline_name(local)
        out += _VALUE.pack(BX_VALUE, BX_STRING, len(data) // 2)
        out += data
        xml.append(f' {attr_qual}="{_esc_attr(value)}"')
    _U32.pack_into(out, list_at, len(out) - list_at - 4)
    return size_at


def _end(out: bytearray, size_at: int) -> None:
    out.append(BX_END_ELEMENT)
    _U32.pack_into(out, size_at, len(out) - size_at - 4)


def _substitution(out: bytearray, n: int, types: Sequence[int]) -> None:
    """``%n``: a substitution of the n-th item (nothing for a number no item has)."""
    if 1 <= n <= len(types):
        out += _SUBSTITUTION.pack(BX_SUBSTITUTION, n - 1, types[n - 1])


def _item(
    out: bytearray, xml: list[str], tag: str, name: str | None, n: int, types: Sequence[int]
) -> None:
    """``<tag Name="name">%n</tag>`` (no attribute for ``name`` None)."""
    at = _start(out, xml, tag, tag, () if name is None else (("Name", "Name", name),))
    out.append(BX_CLOSE_START)
    xml.append(f">%{n}</{tag}>")
    _substitution(out, n, types)
    _end(out, at)


def _event_data(template: Template, types: Sequence[int], out: bytearray, xml: list[str]) -> None:
    """``<EventData [Name=...]>`` holding one item element per top-level item."""
    name = template.name
    at = _start(
        out, xml, "EventData", "EventData", () if name is None else (("Name", "Name", name),)
    )
    out.append(BX_CLOSE_START)
    items = template.items
    shown = items[:-2] if template.binary is not None else items
    if not shown and template.binary is None:
        xml.append("/>")
        _end(out, at)
        return
    xml.append(">")
    for n, item in enumerate(shown, 1):
        _item(out, xml, "ComplexData" if isinstance(item, Struct) else "Data", item.name, n, types)
    if template.binary is not None:
        _item(out, xml, "Binary", None, len(items), types)
    xml.append("</EventData>")
    _end(out, at)


def _qual(prefix: str | None, local: str) -> str:
    return f"{prefix}:{local}" if prefix else local


def _user_data(
    node: XmlNode,
    scope: dict[str | None, str],
    level: int,
    types: Sequence[int],
    out: bytearray,
    xml: list[str],
) -> None:
    """A UserData element as mc re-serializes it before hashing.

    mc drops the author's formatting and puts each child element on its own line:
    ``"\r\n"`` plus ``level + 1`` tabs before it, and ``"\r\n"`` plus ``level`` tabs
    before the end tag when the source had text after the last child.  (Verified for
    the root's children; deeper levels follow the same pattern by assumption.)  That
    whitespace is part of the hashed text only, never a BinXML token; of an element's
    own text only its first ``%n`` is stored (a substitution).
    """

    attrs: list[tuple[str, str, str]] = []
    if node.nsmap:
        scope = dict(scope)
        # Namespace declarations come first, as the XML serializer writes them.
        for prefix, uri in node.nsmap:
            scope[prefix] = uri
            attrs.append((prefix or "xmlns", f"xmlns:{prefix}" if prefix else "xmlns", uri))
    if node.attrs:
        by_uri = {u: p for p, u in scope.items()}
        for (uri, local), value in node.attrs:
            prefix = by_uri.get(uri) if uri else None
            attrs.append((local, _qual(prefix, local), value))
    tag = _qual(node.prefix, node.tag[1])
    at = _start(out, xml, node.tag[1], tag, attrs)
    out.append(BX_CLOSE_START)
    if node.children:
        xml.append(">")
        for child in node.children:
            xml.append("\r\n" + "\t" * (level + 1))
            _user_data(child, scope, level + 1, types, out, xml)
        if node.children[-1].tail is not None:
            xml.append("\r\n" + "\t" * level)
        xml.append(f"</{tag}>")
    elif node.text is not None and node.text.strip():
        xml.append(f">{_esc_text(node.text)}</{tag}>")
        m = _SUBST.search(node.text)
        if m is not None:
            _substitution(out, int(m.group(1)), types)
    else:
        xml.append("/>")
    _end(out, at)


def encode_fragment(template: Template, types: Sequence[int]) -> tuple[str, bytes]:
    """(the XML text mc hashes, the padded BinXML fragment) of a template."""
    out = bytearray(BX_FRAGMENT)
    xml: list[str] = []
    if template.user_data is not None:
        _user_data(template.user_data, {}, 1, types, out, xml)
    else:
        _event_data(template, types, out, xml)
    out.append(BX_END_OF_FRAGMENT)
    out += bytes(-len(out) % 4)
    return "".join(xml), bytes(out)


# --------------------------------------------------------------------------- ids


def _types_bytes(types: Sequence[int]) -> bytes:
    return struct.pack(f"<{len(types)}I", *types)


def template_id(xml: str, types: Sequence[int], *, legacy: bool = False) -> bytes:
    """The 16 raw GUID bytes mc stores at TEMP+24."""
    text = utf16(xml)
    if legacy:
        return _md5_chained(text, _types_bytes(types))
    digest = bytearray(sha256(b"MS-WEVT\0" + text + _types_bytes(types))[:16])
    digest[7] = (digest[7] & 0x0F) | 0x50
    return bytes(digest)


def encode_template(template: Template, *, legacy_ids: bool = False) -> tuple[bytes, bytes]:
    """(template id, padded BinXML) for one template."""
    types = value_types(template)
    xml, data = encode_fragment(template, types)
    return template_id(xml, types, legacy=legacy_ids), data


# --------------------------------------------------------------------------- MD5 (mc 8.1)

_MD5_S = [7, 12, 17, 22] * 4 + [5, 9, 14, 20] * 4 + [4, 11, 16, 23] * 4 + [6, 10, 15, 21] * 4
_MD5_K = [int(abs(math.sin(i + 1)) * 2**32) & 0xFFFFFFFF for i in range(64)]


def _md5(data: bytes, state: tuple[int, int, int, int]) -> bytes:
    """MD5 of ``data`` started from an arbitrary chaining state (hashlib cannot do that)."""
    msg = bytearray(data)
    bit_len = (8 * len(data)) & 0xFFFFFFFFFFFFFFFF
    msg.append(0x80)
    msg += b"\0" * (-(len(msg) + 8) % 64)
    msg += struct.pack("<Q", bit_len)
    a0, b0, c0, d0 = state
    for off in range(0, len(msg), 64):
        m = struct.unpack_from("<16I", msg, off)
        a, b, c, d = a0, b0, c0, d0
        for i in range(64):
            if i < 16:
                f, g = (b & c) | (~b & d), i
            elif i < 32:
                f, g = (d & b) | (~d & c), (5 * i + 1) % 16
            elif i < 48:
                f, g = b ^ c ^ d, (3 * i + 5) % 16
            else:
                f, g = c ^ (b | ~d), (7 * i) % 16
            f = (f + a + _MD5_K[i] + m[g]) & 0xFFFFFFFF
            a, d, c = d, c, b
            b = (b + ((f << _MD5_S[i]) | (f >> (32 - _MD5_S[i])))) & 0xFFFFFFFF
        a0, b0 = (a0 + a) & 0xFFFFFFFF, (b0 + b) & 0xFFFFFFFF
        c0, d0 = (c0 + c) & 0xFFFFFFFF, (d0 + d) & 0xFFFFFFFF
    return struct.pack("<4I", a0, b0, c0, d0)


_MD5_INIT = (0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476)


def _md5_chained(text: bytes, types: bytes) -> bytes:
    first = _md5(text, _MD5_INIT)
    return _md5(types, struct.unpack("<4I", first))
