"""Parse a WEVT_TEMPLATE (CRIM 3.1 / 5.1) blob into raw records that keep their offsets.

Rules (binary-formats spec, section 1): all integers little-endian; every offset is
absolute from the first byte of the CRIM block; a provider's element descriptors are
``(kind, offset)`` pairs.  Cross references (event -> level, template, ...) are kept as
offsets here and resolved by :mod:`etwmc.wevt.reader`.  Every count is checked against
the bytes that remain before a loop runs, so a hostile count can neither allocate more
than the input allows nor loop for long.

The table :data:`_BLOCKS` says how each element kind is read.  Most are lists of
fixed-size entries, read by one routine (:class:`_List`) from a description: the entry
layout (:mod:`etwmc.wevt.crim`), the record it becomes, and which of its values point at
a name or text.  PRVA (attributes by kind), MAPS and QTAB (records with items) and TTBL
(variable-size TEMP records) have readers of their own.  Every error names what was
being read and its absolute offset.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from ..eventdescriptor import EventDescriptor
from ..record import Record
from .crim import (
    BMAP,
    CHAN_ENTRY,
    CRIM,
    CRIM_HEADER,
    DESCRIPTOR,
    DIRECTORY_ENTRY,
    EVNT_ENTRY,
    EVTA_ENTRY,
    FLTR_ENTRY,
    KEYW_ENTRY,
    KEYWORD_REF,
    LEVL_ENTRY,
    LIST_HEADER,
    LIST_HEADER_EXTRA,
    MAP_IS_BITMAP,
    MAP_ITEM,
    MAP_RECORD,
    OPCO_ENTRY,
    PROP_STRUCT,
    PROPERTY,
    PRVA_CONTROL_GUID,
    PRVA_ENTRY,
    PRVA_GROUP_GUID,
    PRVA_NAME,
    QUER,
    QUER_ITEM,
    QUER_RECORD,
    RECORD_REF,
    STRUCT_PROPERTY,
    TASK_ENTRY,
    TEMP,
    TEMP_HEADER,
    VMAP,
    WEVT,
    WEVT_HEADER,
    WEVT_VERSIONS,
    Entry,
    Kind,
)
from .reader_binxml import Buf, Element, WevtError, parse_fragment


class RawChannel(Record):
    offset: int
    flags: int
    name: str
    value: int
    message_id: int


class RawLevel(Record):
    offset: int
    value: int
    message_id: int
    name: str


class RawOpcode(Record):
    offset: int
    task: int
    value: int
    message_id: int
    name: str


class RawTask(Record):
    offset: int
    value: int
    message_id: int
    event_guid: uuid.UUID
    name: str


class RawKeyword(Record):
    offset: int
    mask: int
    message_id: int
    name: str


class RawMap(Record):
    offset: int
    is_bitmap: bool
    name: str
    items: tuple[tuple[int, int], ...]  # (value, message id)


class RawPatternMap(Record):
    offset: int
    name: str
    format: str
    items: tuple[tuple[str, str], ...]


class RawProperty(Record):
    flags: int
    in_type: int
    out_type: int
    map_offset: int
    count: int
    length: int
    name: str
    first_member: int = 0  # struct only
    member_count: int = 0  # struct only

    @property
    def is_struct(self) -> bool:
        return bool(self.flags & PROP_STRUCT)


class RawTemplate(Record):
    offset: int
    param_count: int
    flags: int  # 1 EventData, 2 UserData
    guid: uuid.UUID
    root: Element | None
    properties: tuple[RawProperty, ...]


class RawEvent(Record):
    offset: int
    descriptor: EventDescriptor  # as the EVNT entry stores it
    message_id: int
    template_offset: int
    opcode_offset: int
    level_offset: int
    task_offset: int
    keyword_offsets: tuple[int, ...]
    channel_offset: int


class RawFilter(Record):
    value: int
    version: int
    message_id: int
    name: str
    template_offset: int


class RawProvider(Record):
    guid: uuid.UUID
    offset: int
    message_id: int
    kinds: tuple[int, ...]  # element kinds in descriptor order
    name: str | None = None  # PRVA (v5)
    control_guid: uuid.UUID | None = None
    group_guid: uuid.UUID | None = None
    channels: tuple[RawChannel, ...] = ()
    levels: tuple[RawLevel, ...] = ()
    opcodes: tuple[RawOpcode, ...] = ()
    tasks: tuple[RawTask, ...] = ()
    keywords: tuple[RawKeyword, ...] = ()
    maps: tuple[RawMap, ...] = ()  # physical order
    pattern_maps: tuple[RawPatternMap, ...] = ()
    templates: tuple[RawTemplate, ...] = ()
    events: tuple[RawEvent, ...] = ()
    event_attributes: tuple[tuple[int, int, int, str], ...] = ()  # (kind, version, id, text)
    filters: tuple[RawFilter, ...] = ()


class RawBlob(Record):
    major: int
    minor: int
    size: int
    providers: tuple[RawProvider, ...]


def parse_blob(data: bytes) -> RawBlob:
    """Parse a whole WEVT_TEMPLATE resource.  Raises :class:`WevtError` on malformed input."""
    b = Buf(bytes(data))
    b.sig(0, CRIM, "CRIM header")
    size = b.u32(4, "CRIM size")
    if size < CRIM_HEADER.size or size > len(b):
        raise WevtError(f"CRIM size {size} at offset 0x4 does not fit the {len(b)}-byte blob")
    major = b.u16(8, "CRIM major version")
    minor = b.u16(10, "CRIM minor version")
    if major not in WEVT_VERSIONS:
        raise WevtError(
            f"unsupported CRIM version {major}.{minor} at offset 0x8 (3.1 and 5.1 known)"
        )
    n = b.u32(12, "provider count")
    b.count(CRIM_HEADER.size, n, DIRECTORY_ENTRY.size, "provider directory")
    providers = []
    for i in range(n):
        entry = _values(b, CRIM_HEADER.size + DIRECTORY_ENTRY.size * i, DIRECTORY_ENTRY)
        guid = uuid.UUID(bytes_le=entry["guid"])
        providers.append(_provider(b, guid, entry["offset"]))
    return RawBlob(major, minor, size, tuple(providers))


def _provider(b: Buf, guid: uuid.UUID, off: int) -> RawProvider:
    b.sig(off, WEVT, f"provider {guid} block")
    message_id = b.u32(off + 8, "provider message id")
    n = b.u32(off + 12, "provider element count")
    first = off + WEVT_HEADER.size
    b.count(first, n, DESCRIPTOR.size, "provider element descriptors")
    parts: dict[str, Any] = {}
    seen: set[int] = set()
    kinds = []
    for i in range(n):
        at = first + DESCRIPTOR.size * i
        descriptor = _values(b, at, DESCRIPTOR)
        kind, eoff = descriptor["kind"], descriptor["offset"]
        kinds.append(kind)
        read = _BLOCKS.get(kind)
        if read is None:
            if kind in _KNOWN:
                continue  # CTRT / EVTF: known tags mc never writes; nothing to read
            raise WevtError(f"unknown element kind {kind} in descriptor at 0x{at:x}")
        fields = read(b, eoff)
        if kind in seen and kind != Kind.PRVA:  # a later PRVA replaces an earlier one
            raise WevtError(f"element {Kind(kind).name} at 0x{eoff:x} appears twice")
        seen.add(kind)
        parts.update(fields)
    return RawProvider(guid=guid, offset=off, message_id=message_id, kinds=tuple(kinds), **parts)


_KNOWN = frozenset(Kind)

# --------------------------------------------------------------------------- generic


def _values(b: Buf, at: int, entry: Entry) -> dict[str, Any]:
    """The values of the ``entry`` at ``at`` by name; the caller has checked the bounds."""
    return dict(zip(entry.fields, entry.layout.unpack_from(b.data, at), strict=True))


def _header(b: Buf, off: int, kind: Kind, entry: Entry, header: Entry = LIST_HEADER) -> int:
    """Check a list element's signature and that its entries fit; return their count."""
    name = kind.name
    b.sig(off, kind.signature, f"{name} block")
    n = b.u32(off + 8, f"{name} count")
    b.count(off + header.size, n, entry.size, f"{name} entries")
    return n


# How an entry's text is read: (buffer, offset of the text, what it is, end of the block).
_Text = Callable[[Buf, int, str, int], str]


def _sized(b: Buf, at: int, what: str, end: int) -> str:
    return b.sized_string(at, what)


def _qname(b: Buf, at: int, what: str, end: int) -> str:
    return b.qname(at, what)


def _zstring(b: Buf, at: int, what: str, end: int) -> str:
    return b.zstring(at, end, what)[0]


class _List(Record):
    """A list element: a header, then fixed-size entries that each become one record.

    The record is called with the entry's values by name (:class:`~.crim.Entry`), after
    ``texts`` replaced each named offset with the text it points at, and ``finish`` read
    what else the entry points at.  ``offset`` gives the record its entry's offset."""

    kind: Kind
    field: str  # the RawProvider field the records fill
    entry: Entry
    record: Callable[..., object]
    texts: tuple[tuple[str, _Text, str], ...] = ()  # (value, how to read it, what it is)
    header: Entry = LIST_HEADER
    offset: bool = True
    finish: Callable[[Buf, dict[str, Any]], None] | None = None

    def __call__(self, b: Buf, off: int) -> dict[str, Any]:
        n = _header(b, off, self.kind, self.entry, self.header)
        end = off + b.u32(off + 4, f"{self.kind.name} size")
        first = off + self.header.size
        records = []
        for i in range(n):
            at = first + self.entry.size * i
            values = _values(b, at, self.entry)
            for name, read, what in self.texts:
                values[name] = read(b, values[name], what, end)
            if self.finish is not None:
                self.finish(b, values)
            if self.offset:
                values["offset"] = at
            records.append(self.record(**values))
        return {self.field: tuple(records)}


# --------------------------------------------------------------------------- entries


def _task_guid(b: Buf, v: dict[str, Any]) -> None:
    v["event_guid"] = uuid.UUID(bytes_le=v["event_guid"])


def _event_entry(b: Buf, v: dict[str, Any]) -> None:
    """An event's descriptor, from the entry's first values; its keywords:
    ``keyword_count`` KEYW entry offsets at ``keyword_array``."""
    v["descriptor"] = EventDescriptor(*(v.pop(name) for name in EventDescriptor._fields))
    n, at = v.pop("keyword_count"), v.pop("keyword_array")
    if n:
        b.count(at, n, KEYWORD_REF.size, "event keyword array")
    refs = KEYWORD_REF.layout.iter_unpack(b.data[at : at + KEYWORD_REF.size * n]) if n else ()
    v["keyword_offsets"] = tuple(ref for (ref,) in refs)


def _attribute(kind: int, version: int, event_id: int, text: str) -> tuple[int, int, int, str]:
    return (kind, version, event_id, text)


# A provider attribute (PRVA entry kind): the RawProvider field, how to read its value.
_PROVIDER_ATTRIBUTES: dict[int, tuple[str, Callable[[Buf, int, int], object]]] = {
    PRVA_NAME: ("name", lambda b, at, end: b.zstring(at, end, "provider name")[0]),
    PRVA_CONTROL_GUID: ("control_guid", lambda b, at, end: b.guid(at, "provider control GUID")),
    PRVA_GROUP_GUID: ("group_guid", lambda b, at, end: b.guid(at, "provider group GUID")),
}


def _prva(b: Buf, off: int) -> dict[str, Any]:
    n = _header(b, off, Kind.PRVA, PRVA_ENTRY)
    end = off + b.u32(off + 4, "PRVA size")
    out: dict[str, Any] = dict.fromkeys(field for field, _ in _PROVIDER_ATTRIBUTES.values())
    for i in range(n):
        entry = _values(b, off + LIST_HEADER.size + PRVA_ENTRY.size * i, PRVA_ENTRY)
        known = _PROVIDER_ATTRIBUTES.get(entry["kind"])
        # Unknown attribute kinds are skipped: they carry no meaning etwmc knows.
        if known is not None:
            field, read = known
            out[field] = read(b, entry["value"], end)
    return out


def _record_offsets(b: Buf, off: int, kind: Kind) -> list[int]:
    """MAPS and QTAB: the offsets of their records."""
    n = _header(b, off, kind, RECORD_REF)
    first = off + LIST_HEADER.size
    return [_values(b, first + RECORD_REF.size * i, RECORD_REF)["offset"] for i in range(n)]


def _maps(b: Buf, off: int) -> dict[str, Any]:
    offsets = _record_offsets(b, off, Kind.MAPS)
    if len(set(offsets)) != len(offsets):
        raise WevtError(f"MAPS block at 0x{off:x} lists a map twice")
    out = []
    for moff in sorted(offsets):  # physical order = manifest order
        b.need(moff, MAP_RECORD.size, "map record")
        record = _values(b, moff, MAP_RECORD)
        sig = record["signature"]
        if sig not in (VMAP, BMAP):
            raise WevtError(f"map record at 0x{moff:x}: expected 'VMAP' or 'BMAP', found {sig!r}")
        name = b.sized_string(record["name"], "map name")
        k, first = record["count"], moff + MAP_RECORD.size
        b.count(first, k, MAP_ITEM.size, "map items")
        items = tuple(MAP_ITEM.layout.iter_unpack(b.data[first : first + MAP_ITEM.size * k]))
        out.append(RawMap(moff, bool(record["flags"] & MAP_IS_BITMAP) or sig == BMAP, name, items))
    return {"maps": tuple(out)}


def _qtab(b: Buf, off: int) -> dict[str, Any]:
    out = []
    for q in _record_offsets(b, off, Kind.QTAB):
        # Read field by field: only the signature is known to fit before each read.
        b.sig(q, QUER, "pattern map record")
        name = b.sized_string(b.u32(q + 8, "pattern map name offset"), "pattern map name")
        fmt = b.sized_string(b.u32(q + 12, "pattern map format offset"), "pattern map format")
        k = b.u32(q + 16, "pattern map item count")
        first = q + QUER_RECORD.size
        b.count(first, k, QUER_ITEM.size, "pattern map items")
        items = []
        for j in range(k):
            item = _values(b, first + QUER_ITEM.size * j, QUER_ITEM)
            items.append(
                (
                    b.sized_string(item["name"], "pattern name"),
                    b.sized_string(item["value"], "pattern value"),
                )
            )
        out.append(RawPatternMap(q, name, fmt, tuple(items)))
    return {"pattern_maps": tuple(out)}


def _ttbl(b: Buf, off: int) -> dict[str, Any]:
    n = _header(b, off, Kind.TTBL, TEMP_HEADER)  # each TEMP record is at least a header
    pos = off + LIST_HEADER.size
    out = []
    for _ in range(n):
        t = _temp(b, pos)
        out.append(t)
        pos += b.u32(pos + 4, "TEMP size")
    return {"templates": tuple(out)}


def _temp(b: Buf, off: int) -> RawTemplate:
    b.sig(off, TEMP, "template record")
    size = b.u32(off + 4, "TEMP size")
    end = off + size
    if size < TEMP_HEADER.size or end > len(b):
        raise WevtError(f"TEMP at 0x{off:x} has bad size {size}")
    h = _values(b, off, TEMP_HEADER)
    params, nprops, props_off = h["param_count"], h["property_count"], h["properties"]
    if not off + TEMP_HEADER.size <= props_off <= end:
        raise WevtError(f"TEMP at 0x{off:x}: property offset 0x{props_off:x} outside the record")
    if nprops * PROPERTY.size > end - props_off or params > nprops:
        raise WevtError(f"TEMP at 0x{off:x}: {nprops} properties ({params} top-level) do not fit")
    root = None
    if props_off > off + TEMP_HEADER.size:
        root, _ = parse_fragment(b, off + TEMP_HEADER.size, props_off)
    props = []
    for i in range(nprops):
        e = props_off + PROPERTY.size * i
        v = _values(b, e, PROPERTY)
        name = b.sized_string(v["name"], "property name")
        if v["flags"] & PROP_STRUCT:
            s = _values(b, e, STRUCT_PROPERTY)
            first, members = s["first_member"], s["member_count"]
            if first + members > nprops:
                raise WevtError(
                    f"struct property at 0x{e:x}: members {first}+{members} out of range"
                )
            props.append(
                RawProperty(
                    s["flags"], 0, 0, s["map_offset"], s["count"], s["length"], name, first, members
                )
            )
        else:
            props.append(
                RawProperty(
                    v["flags"],
                    v["in_type"],
                    v["out_type"],
                    v["map_offset"],
                    v["count"],
                    v["length"],
                    name,
                )
            )
    return RawTemplate(off, params, h["flags"], uuid.UUID(bytes_le=h["guid"]), root, tuple(props))


# --------------------------------------------------------------------------- the table

_BLOCKS: dict[int, Callable[[Buf, int], dict[str, Any]]] = {
    Kind.CHAN: _List(Kind.CHAN, "channels", CHAN_ENTRY, RawChannel,
                     texts=(("name", _sized, "channel name"),)),
    Kind.LEVL: _List(Kind.LEVL, "levels", LEVL_ENTRY, RawLevel,
                     texts=(("name", _qname, "level name"),)),
    Kind.OPCO: _List(Kind.OPCO, "opcodes", OPCO_ENTRY, RawOpcode,
                     texts=(("name", _qname, "opcode name"),)),
    Kind.TASK: _List(Kind.TASK, "tasks", TASK_ENTRY, RawTask,
                     texts=(("name", _qname, "task name"),), finish=_task_guid),
    Kind.KEYW: _List(Kind.KEYW, "keywords", KEYW_ENTRY, RawKeyword,
                     texts=(("name", _qname, "keyword name"),)),
    Kind.EVNT: _List(Kind.EVNT, "events", EVNT_ENTRY, RawEvent,
                     header=LIST_HEADER_EXTRA, finish=_event_entry),
    Kind.EVTA: _List(Kind.EVTA, "event_attributes", EVTA_ENTRY, _attribute,
                     texts=(("text", _zstring, "event attribute"),), offset=False),
    Kind.FLTR: _List(Kind.FLTR, "filters", FLTR_ENTRY, RawFilter,
                     texts=(("name", _qname, "filter name"),), header=LIST_HEADER_EXTRA,
                     offset=False),
    Kind.PRVA: _prva,
    Kind.MAPS: _maps,
    Kind.QTAB: _qtab,
    Kind.TTBL: _ttbl,
}  # fmt: skip
