"""TraceLogging events describe themselves: decode their names and fields.

The metadata travels with every event, in the extended-data item of type 11; the
provider's name in the item of type 12 (provider traits: u16 size, the UTF-8 name,
NUL, then traits).

Event metadata: u16 size of the whole block, tag bytes (7 bits each, bit 7 = another
byte follows), the event name (UTF-8, NUL), then each field:

- its name (UTF-8, NUL);
- an inType byte: bits 0-4 the type (the manifest's inType numbers, 1-25, with 24 a
  struct), bits 5-6 the arity (0x20 an array of a constant count, 0x40 an array whose
  u16 count precedes the elements in the payload, 0x60 a type with its own schema),
  bit 7 = an outType byte follows;
- that outType byte: bits 0-6 the outType (for a struct, its number of fields), bit 7 =
  tag bytes follow (as for the event);
- for a constant-count array, a u16 count; for a custom type, a u16 size and that many
  bytes of schema (its payload value is a u16 size and the bytes).

A struct's fields are the ones that follow it.  An array of UInt8 or UInt16 shown as a
string (outType 2) is one string of 8- or 16-bit characters, as TDH shows it.  Values
are read by the manifest decoder (:class:`~etwmc.decode.payload.PayloadReader`), so
each inType decodes exactly as it does for manifest-based events; TraceLogging's own
outType numbers are translated to the manifest's names first.  Binary (14) carries a
u16 byte count in TraceLogging.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

from .. import winmeta as wm
from ..model import Field
from ..payloadvalues import ansi_text, utf16_text
from ..record import Record
from ..winmeta import InTypeCode
from .bounds import MAX_ARRAY, min_size
from .payload import DecodeError, PayloadReader

STRUCT = 24  # TraceLogging's own: the manifest has no inType 24
CCOUNT = 0x20
VCOUNT = 0x40
CUSTOM = 0x60
MAX_DEPTH = 32
MAX_FIELDS = 1024

# TraceLogging outType -> the manifest's outType name (absent: the inType's default)
_OUT_NAMES = {
    2: "xs:string",
    3: "xs:boolean",
    5: "win:PID",
    6: "win:TID",
    7: "win:Port",
    8: "win:IPv4",
    9: "win:IPv6",
    10: "win:SocketAddress",
    11: "win:Xml",
    12: "win:Json",
    13: "win:Win32Error",
    14: "win:NTSTATUS",
    15: "win:HResult",
    16: "xs:dateTime",
    33: "win:DateTimeCultureInsensitive",
    35: "win:Utf8",
    36: "win:Pkcs7WithTypeInfo",
    37: "win:CodePointer",
    38: "win:DateTimeUtc",
}
_HEX_BY_SIZE = {1: "win:HexInt8", 2: "win:HexInt16", 4: "win:HexInt32", 8: "win:HexInt64"}
OUT_STRING = 2
OUT_HEX = 4
# Arrays of these shown as a string (OUT_STRING): 8-bit and 16-bit characters.
_CHARACTER_ARRAYS = frozenset({InTypeCode.UINT8, InTypeCode.UINT16})
_WIDE_CHARACTERS = InTypeCode.UINT16


class TlField(Record):
    name: str
    in_type: int  # bits 0-4 of the inType byte
    arity: int  # 0, VCOUNT, CCOUNT or CUSTOM
    out_type: int
    count: int  # constant count (CCOUNT)
    children: tuple[TlField, ...]  # a struct's fields
    field: Field | None  # the manifest field that reads one value (None: struct/custom)
    size: int  # the fewest bytes one element takes in a payload

    @property
    def total(self) -> int:
        """The fewest bytes the field takes, its count included."""
        if self.arity == CCOUNT:
            return self.size * self.count
        return 2 if self.arity == VCOUNT else self.size


class TlEvent(Record):
    name: str
    fields: tuple[TlField, ...]


class _Meta:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def fail(self, msg: str) -> DecodeError:
        return DecodeError(f"TraceLogging metadata, byte {self.pos}: {msg}")

    def byte(self) -> int:
        if self.pos >= len(self.data):
            raise self.fail("ends early")
        b = self.data[self.pos]
        self.pos += 1
        return b

    def u16(self) -> int:
        if self.pos + 2 > len(self.data):
            raise self.fail("ends early")
        v: int = struct.unpack_from("<H", self.data, self.pos)[0]
        self.pos += 2
        return v

    def text(self) -> str:
        end = self.data.find(b"\0", self.pos)
        if end < 0:
            raise self.fail("a name has no NUL terminator")
        s = self.data[self.pos : end].decode("utf-8", errors="replace")
        self.pos = end + 1
        return s

    def tags(self) -> None:
        for _ in range(4):
            if not self.byte() & 0x80:
                return
        raise self.fail("more than 4 tag bytes")


def parse_event(meta: bytes) -> TlEvent:
    """Parse an event's metadata block (extended-data item 11)."""
    m = _Meta(meta)
    size = m.u16()
    if not 2 <= size <= len(meta):
        raise m.fail(f"size {size} does not fit the {len(meta)}-byte item")
    m.data = meta[:size]
    m.tags()
    name = m.text()
    flat: list[tuple[str, int, int, int, int]] = []
    while m.pos < size:
        if len(flat) >= MAX_FIELDS:
            raise m.fail(f"more than {MAX_FIELDS} fields")
        fname = m.text()
        in_byte = m.byte()
        out = 0
        if in_byte & 0x80:
            out_byte = m.byte()
            out = out_byte & 0x7F
            if out_byte & 0x80:
                m.tags()
        arity = in_byte & 0x60
        count = 0
        if arity == CCOUNT:
            count = m.u16()
        elif arity == CUSTOM:
            m.pos += m.u16()
            if m.pos > size:
                raise m.fail("a custom schema runs past the metadata")
        flat.append((fname, in_byte & 0x1F, arity, out, count))
    fields, used = _nest(flat, 0, len(flat), 0)
    return TlEvent(name, fields)


def _nest(
    flat: Sequence[tuple[str, int, int, int, int]], start: int, n: int, depth: int
) -> tuple[tuple[TlField, ...], int]:
    """The next ``n`` fields from ``flat[start:]`` (structs take their fields along)."""
    if depth > MAX_DEPTH:
        raise DecodeError(f"TraceLogging metadata nests structs deeper than {MAX_DEPTH}")
    out: list[TlField] = []
    i = start
    while len(out) < n and i < len(flat):
        name, in_type, arity, out_type, count = flat[i]
        i += 1
        children: tuple[TlField, ...] = ()
        if in_type == STRUCT:
            if out_type == 0:
                raise DecodeError(f"TraceLogging struct '{name}' has no fields")
            children, i = _nest(flat, i, out_type, depth + 1)
            if len(children) < out_type:
                raise DecodeError(f"TraceLogging struct '{name}' lacks fields")
        field = None if in_type == STRUCT or arity == CUSTOM else _field(name, in_type, out_type)
        if in_type == STRUCT:
            size = sum(c.total for c in children)
        else:
            size = 2 if field is None else min_size(field)
        out.append(TlField(name, in_type, arity, out_type, count, children, field, size))
    return tuple(out), i


def _field(name: str, in_type: int, out_type: int) -> Field:
    # TraceLogging's Binary is counted
    code = InTypeCode.COUNTED_BINARY if in_type == InTypeCode.BINARY else in_type
    it = wm.IN_TYPES_BY_CODE.get(code)
    if it is None:
        raise DecodeError(f"TraceLogging field '{name}': inType {in_type} is unknown")
    if out_type == OUT_HEX:
        qname = _HEX_BY_SIZE.get(it.size or 0, "xs:hexBinary")
    else:
        qname = _OUT_NAMES.get(out_type, it.default_out)
    if qname not in it.outs:
        qname = it.default_out  # an outType that does not apply to this inType
    return Field(
        name=name,
        in_type=it,
        in_type_text=it.qname,
        out_type=wm.OUT_TYPES.get(qname),
        out_type_text=qname,
    )


def decode_payload(event: TlEvent, data: bytes, pointer_size: int) -> dict[str, Any]:
    """Decode a payload with its event's metadata; every byte must be used."""
    r = PayloadReader(data, f"TraceLogging event '{event.name}'", pointer_size)
    values = _scope(r, event.fields)
    if r.pos != len(data):
        raise DecodeError(
            f"TraceLogging event '{event.name}': {len(data) - r.pos} bytes left after the "
            "last field"
        )
    return values


def _scope(r: PayloadReader, fields: Sequence[TlField]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for f in fields:
        if f.arity == VCOUNT:
            n = struct.unpack("<H", r.take_field(2, f.name))[0]
        elif f.arity == CCOUNT:
            n = f.count
        else:
            values[f.name] = _one(r, f)
            continue
        if n > MAX_ARRAY:
            raise r.fail(f.name, f"count {n} is out of range")
        r.spend_field(n, f.name, f.size, max(1, len(f.children)))
        if f.out_type == OUT_STRING and f.in_type in _CHARACTER_ARRAYS:
            wide = f.in_type == _WIDE_CHARACTERS
            raw = r.take_field(n * (2 if wide else 1), f.name)
            text = utf16_text(raw) if wide else ansi_text(raw, False)
            values[f.name] = text.split("\0", 1)[0]
            continue
        values[f.name] = [_one(r, f) for _ in range(n)]
    return values


def _one(r: PayloadReader, f: TlField) -> Any:
    if f.in_type == STRUCT:
        return _scope(r, f.children)
    if f.field is None:  # a custom type: u16 size, then bytes in its own format
        size = struct.unpack("<H", r.take_field(2, f.name))[0]
        return "0x" + r.take_field(size, f.name).hex().upper()
    return r.one(f.field, None, None)[0]


def provider_name(traits: bytes) -> str | None:
    """The provider name in a provider-traits item, if it holds one."""
    if len(traits) < 3:
        return None
    end = traits.find(b"\0", 2)
    if end < 0:
        return None
    return traits[2:end].decode("utf-8", errors="replace")
