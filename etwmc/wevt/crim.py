"""The CRIM format (the WEVT_TEMPLATE resource): versions, block kinds, signatures, flags,
entry layouts and BinXML tokens, in one place for the writer, the reader and the tests.

Layout (binary-formats.md §1; all integers little-endian, every offset absolute from the
first byte of the blob):

* CRIM header (:data:`CRIM_HEADER`), then one :data:`DIRECTORY_ENTRY` per provider;
* per provider a WEVT block: :data:`WEVT_HEADER`, ``count`` element descriptors
  (:data:`DESCRIPTOR`: :class:`Kind`, offset), then the elements;
* a list element: :data:`LIST_HEADER` (EVNT and FLTR: :data:`LIST_HEADER_EXTRA`), then
  ``count`` fixed-size entries (the ``*_ENTRY`` layouts), then what the entries point at;
* MAPS and QTAB list the offsets of their records (:data:`MAP_RECORD`,
  :data:`QUER_RECORD`); TTBL holds TEMP records (:data:`TEMP_HEADER`, BinXML, then
  :data:`PROPERTY` / :data:`STRUCT_PROPERTY` entries).

Each :class:`Entry` names its values in layout order; the reader builds its records from
those names, so a layout and its names change together.  Names are sized strings
(:func:`sized_string`) except in PRVA and EVTA (:func:`z_string`).  :func:`block_at`
names the part of a blob that holds an offset, for reports that compare two blobs.
"""

from __future__ import annotations

import codecs
import struct
from enum import IntEnum
from typing import Final

from ..msgids import NO_MESSAGE as NO_MESSAGE

# The CRIM major versions etwmc writes, 3 (mc before 10.0.16299) and 5 (10.0.16299 and
# later), and the default, are the options' (etwmc.options): one place for them.
from ..options import DEFAULT_WEVT_VERSION as DEFAULT_WEVT_VERSION
from ..options import WEVT_VERSIONS as WEVT_VERSIONS
from ..options import check_wevt_version
from ..record import Record

# --------------------------------------------------------------------------- versions

CRIM_MINOR: Final = 1


def check_version(version: int) -> int:
    """``version`` if etwmc writes it, else ValueError: the options' one rule
    (:func:`etwmc.options.check_wevt_version`), for callers of the writer itself."""
    return check_wevt_version(version)


# --------------------------------------------------------------------------- blocks


class Kind(IntEnum):
    """An element descriptor's kind; the name is the element's signature."""

    LEVL = 0
    TASK = 1
    OPCO = 2
    KEYW = 3
    EVNT = 4
    CHAN = 5
    MAPS = 6
    TTBL = 7
    QTAB = 8
    FLTR = 9
    CTRT = 10  # known tag that mc never writes
    EVTF = 11  # known tag that mc never writes
    EVTA = 12
    PRVA = 13

    @property
    def signature(self) -> bytes:
        return self.name.encode("ascii")


V3_SLOTS: Final = 11  # a v3 WEVT block always has 11 descriptor slots (unused ones zero)

CRIM: Final = b"CRIM"
WEVT: Final = b"WEVT"
VMAP: Final = b"VMAP"
BMAP: Final = b"BMAP"
QUER: Final = b"QUER"
TEMP: Final = b"TEMP"

# Flags and kinds stored in entries.
CHANNEL_IMPORTED: Final = 0x1  # CHAN flags: an imported or predefined channel
MAP_IS_BITMAP: Final = 0x1  # VMAP/BMAP flags
TEMPLATE_EVENT_DATA: Final = 0x1  # TEMP flags
TEMPLATE_USER_DATA: Final = 0x2
PROP_STRUCT: Final = 0x1  # property flags
PROP_FIXED_LENGTH: Final = 0x2
PROP_VAR_LENGTH: Final = 0x4
PROP_FIXED_COUNT: Final = 0x8
PROP_VAR_COUNT: Final = 0x10
PRVA_NAME: Final = 0x10000001  # PRVA entry kinds
PRVA_CONTROL_GUID: Final = 0x20000001
PRVA_GROUP_GUID: Final = 0x20000002
EVTA_NAME: Final = 0x11  # EVTA entry kinds
EVTA_ATTRIBUTE: Final = 0x12


# --------------------------------------------------------------------------- layouts


class Entry(Record):
    """A fixed-size layout and the names of its values, in order."""

    layout: struct.Struct
    fields: tuple[str, ...]

    @property
    def size(self) -> int:
        return self.layout.size


def _entry(fmt: str, *fields: str) -> Entry:
    """``fields`` name the values of ``fmt`` in order (pad bytes, ``x``, are not values)."""
    return Entry(struct.Struct(fmt), fields)


CRIM_HEADER: Final = _entry("<4sIHHI", "signature", "size", "major", "minor", "count")
DIRECTORY_ENTRY: Final = _entry("<16sI", "guid", "offset")
WEVT_HEADER: Final = _entry("<4sIII", "signature", "size", "message_id", "count")
DESCRIPTOR: Final = _entry("<II", "kind", "offset")
LIST_HEADER: Final = _entry("<4sII", "signature", "size", "count")
# EVNT's spare field is 0; FLTR's holds the last filter's template offset.
LIST_HEADER_EXTRA: Final = _entry("<4sIII", "signature", "size", "count", "extra")

CHAN_ENTRY: Final = _entry("<IIII", "flags", "name", "value", "message_id")
LEVL_ENTRY: Final = _entry("<III", "value", "message_id", "name")
OPCO_ENTRY: Final = _entry("<HHII", "task", "value", "message_id", "name")
TASK_ENTRY: Final = _entry("<II16sI", "value", "message_id", "event_guid", "name")
KEYW_ENTRY: Final = _entry("<QII", "mask", "message_id", "name")
EVNT_ENTRY: Final = _entry(
    "<HBBBBHQ8I",
    "id", "version", "channel", "level", "opcode", "task", "keyword", "message_id",
    "template_offset", "opcode_offset", "level_offset", "task_offset",
    "keyword_count", "keyword_array", "channel_offset",
)  # fmt: skip
KEYWORD_REF: Final = _entry("<I", "offset")  # an event's keyword array: KEYW entry offsets
PRVA_ENTRY: Final = _entry("<II", "kind", "value")
EVTA_ENTRY: Final = _entry("<BBHI", "kind", "version", "event_id", "text")
FLTR_ENTRY: Final = _entry("<BBxxIII", "value", "version", "message_id", "name", "template_offset")
RECORD_REF: Final = _entry("<I", "offset")  # MAPS and QTAB list their records' offsets
MAP_RECORD: Final = _entry("<4sIIII", "signature", "size", "name", "flags", "count")
MAP_ITEM: Final = _entry("<II", "value", "message_id")
QUER_RECORD: Final = _entry("<4sIIII", "signature", "size", "name", "format", "count")
QUER_ITEM: Final = _entry("<II", "name", "value")
TEMP_HEADER: Final = _entry(
    "<4sIIIII16s",
    "signature",
    "size",
    "param_count",
    "property_count",
    "properties",
    "flags",
    "guid",
)
PROPERTY: Final = _entry(
    "<IBBHIHHI", "flags", "in_type", "out_type", "spare", "map_offset", "count", "length", "name"
)
STRUCT_PROPERTY: Final = _entry(
    "<IHHIHHI", "flags", "first_member", "member_count", "map_offset", "count", "length", "name"
)

# --------------------------------------------------------------------------- strings


# ``str.encode`` looks a codec up by its name on every call; its encoder, looked up
# once, is a third of the cost for the short names that fill a blob.
_UTF16LE = codecs.getencoder("utf-16-le")


def utf16(s: str) -> bytes:
    """UTF-16LE text, a lone surrogate kept as its code unit (as mc stores it)."""
    return _UTF16LE(s, "surrogatepass")[0]


_SIZE = struct.Struct("<I")


def sized_string(s: str) -> bytes:
    """u32 total size (itself and padding included), UTF-16LE text, NUL, zeros to a
    multiple of 4: the names in CHAN, LEVL, OPCO, TASK, KEYW, MAPS, QTAB, TTBL, FLTR."""
    data = utf16(s)
    total = (len(data) + 9) & ~3  # size, text, NUL, padding
    return _SIZE.pack(total) + data + bytes(total - 4 - len(data))


def z_string(s: str) -> bytes:
    """UTF-16LE text and a NUL, nothing else: the strings of PRVA and EVTA."""
    return utf16(s) + b"\0\0"


def ordinal_key(s: str) -> bytes:
    """Sort key for ordinal (UTF-16 code unit) order, as mc compares names."""
    return s.encode("utf-16-be", "surrogatepass")


# --------------------------------------------------------------------------- BinXML

# Tokens (binary-formats.md §2).  MORE (0x40) on an open-start token: the element has
# attributes; on an attribute or value token: more follow.
BX_END_OF_FRAGMENT: Final = 0x00
BX_OPEN_START: Final = 0x01
BX_CLOSE_START: Final = 0x02
BX_CLOSE_EMPTY: Final = 0x03
BX_END_ELEMENT: Final = 0x04
BX_VALUE: Final = 0x05
BX_ATTRIBUTE: Final = 0x06
BX_SUBSTITUTION: Final = 0x0D
BX_OPTIONAL_SUBSTITUTION: Final = 0x0E
BX_FRAGMENT_HEADER: Final = 0x0F
BX_MORE: Final = 0x40
BX_FRAGMENT: Final = bytes((BX_FRAGMENT_HEADER, 1, 1, 0))  # token, version 1.1, flags 0
BX_NO_DEPENDENCY: Final = 0xFFFF  # an open-start token's dependency id
# Value types of a value token and of a substitution.
BX_STRING: Final = 0x01
BX_BINARY: Final = 0x0E  # a struct's substitution
BX_ARRAY: Final = 0x80  # set for an item with a count


# --------------------------------------------------------------------------- where


def _u32(b: bytes, off: int) -> int | None:
    if off < 0 or off + 4 > len(b):
        return None
    return int(struct.unpack_from("<I", b, off)[0])


def _kind_name(kind: int) -> str:
    try:
        return Kind(kind).name
    except ValueError:
        return f"kind {kind}"


def block_at(blob: bytes, offset: int) -> str:
    """A short description of the part of ``blob`` that holds byte ``offset``, e.g.
    ``"provider 1 (WEVT @0x390) / EVNT @0x510"``.  It never raises: a damaged blob gives
    the best answer it can (``"CRIM header"``, ``"not a CRIM blob"``...)."""
    size = _u32(blob, 4)
    count = _u32(blob, 12)
    if blob[:4] != CRIM or size is None or count is None:
        return "not a CRIM blob"
    if offset >= size:
        return "after the CRIM block (trailing bytes)"
    header, entry = CRIM_HEADER.size, DIRECTORY_ENTRY.size
    if offset < header:
        return "CRIM header"
    if offset < header + entry * count:
        return f"provider directory entry {(offset - header) // entry}"
    for i in range(min(count, 4096)):
        start = _u32(blob, header + entry * i + 16)
        if start is None:
            break
        wsize = _u32(blob, start + 4)
        n = _u32(blob, start + 12)
        if wsize is None or n is None or not start <= offset < start + wsize:
            continue
        where = f"provider {i} (WEVT @0x{start:x})"
        if offset < start + WEVT_HEADER.size:
            return where + " / WEVT header"
        spans: list[tuple[int, str]] = []
        for j in range(min(n, 64)):
            at = start + WEVT_HEADER.size + DESCRIPTOR.size * j
            kind, element = _u32(blob, at), _u32(blob, at + 4)
            if kind is not None and element is not None:
                spans.append((element, _kind_name(kind)))
        spans.sort()
        best = None
        for at, name in spans:
            if at <= offset:
                best = (at, name)
        if best is None:
            return where + " / element descriptors"
        return where + f" / {best[1]} @0x{best[0]:x}"
    return "between provider blocks"


def first_difference(got: bytes, expected: bytes) -> int | None:
    """The first offset where the two differ (the shorter length if one is a prefix)."""
    n = min(len(got), len(expected))
    for i in range(n):
        if got[i] != expected[i]:
            return i
    return None if len(got) == len(expected) else n


def explain_difference(got: bytes, expected: bytes, *, context: int = 16) -> str:
    """A report of the first differing byte of two CRIM blobs: offset, block, both byte runs."""
    i = first_difference(got, expected)
    if i is None:
        return "identical"
    lo = max(0, i - context)
    return (
        f"first difference at offset 0x{i:x} ({i}) in {block_at(expected, i)}; "
        f"lengths {len(got)} (got) vs {len(expected)} (expected)\n"
        f"  got      @0x{lo:x}: {got[lo : i + context].hex(' ')}\n"
        f"  expected @0x{lo:x}: {expected[lo : i + context].hex(' ')}"
    )
