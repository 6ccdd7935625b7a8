"""Parse a WEVT_TEMPLATE (CRIM 3.1 / 5.1) blob into raw records that keep their offsets.

Rules (binary-formats spec, section 1): all integers little-endian; every offset is
absolute from the first byte of the CRIM block; a provider's element descriptors are
``(kind, offset)`` pairs.  Cross references (event -> level, template, ...) are kept as
offsets here and resolved by :mod:`etwmc.wevt.reader`.  Every count is checked against
the bytes that remain before a loop runs, so a hostile count can neither allocate more
than the input allows nor loop for long.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from .reader_binxml import Buf, Element, WevtError, parse_fragment

NO_MESSAGE = 0xFFFFFFFF

KIND_NAMES = {
    0: "LEVL",
    1: "TASK",
    2: "OPCO",
    3: "KEYW",
    4: "EVNT",
    5: "CHAN",
    6: "MAPS",
    7: "TTBL",
    8: "QTAB",
    9: "FLTR",
    10: "CTRT",
    11: "EVTF",
    12: "EVTA",
    13: "PRVA",
}

PRVA_NAME = 0x10000001
PRVA_CONTROL_GUID = 0x20000001
PRVA_GROUP_GUID = 0x20000002
EVTA_NAME = 0x11
EVTA_ATTRIBUTE = 0x12

# Property entry flags.
PROP_STRUCT = 0x1
PROP_FIXED_LENGTH = 0x2
PROP_VAR_LENGTH = 0x4
PROP_FIXED_COUNT = 0x8
PROP_VAR_COUNT = 0x10


@dataclass(frozen=True, slots=True)
class RawChannel:
    offset: int
    flags: int
    name: str
    value: int
    message_id: int


@dataclass(frozen=True, slots=True)
class RawLevel:
    offset: int
    value: int
    message_id: int
    name: str


@dataclass(frozen=True, slots=True)
class RawOpcode:
    offset: int
    task: int
    value: int
    message_id: int
    name: str


@dataclass(frozen=True, slots=True)
class RawTask:
    offset: int
    value: int
    message_id: int
    event_guid: uuid.UUID
    name: str


@dataclass(frozen=True, slots=True)
class RawKeyword:
    offset: int
    mask: int
    message_id: int
    name: str


@dataclass(frozen=True, slots=True)
class RawMap:
    offset: int
    is_bitmap: bool
    name: str
    items: tuple[tuple[int, int], ...]  # (value, message id)


@dataclass(frozen=True, slots=True)
class RawPatternMap:
    offset: int
    name: str
    format: str
    items: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class RawProperty:
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


@dataclass(frozen=True, slots=True)
class RawTemplate:
    offset: int
    param_count: int
    flags: int  # 1 EventData, 2 UserData
    guid: uuid.UUID
    root: Element | None
    properties: tuple[RawProperty, ...]


@dataclass(frozen=True, slots=True)
class RawEvent:
    offset: int
    id: int
    version: int
    channel: int
    level: int
    opcode: int
    task: int
    keyword: int
    message_id: int
    template_offset: int
    opcode_offset: int
    level_offset: int
    task_offset: int
    keyword_offsets: tuple[int, ...]
    channel_offset: int


@dataclass(frozen=True, slots=True)
class RawFilter:
    value: int
    version: int
    message_id: int
    name: str
    template_offset: int


@dataclass(frozen=True, slots=True)
class RawProvider:
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


@dataclass(frozen=True, slots=True)
class RawBlob:
    major: int
    minor: int
    size: int
    providers: tuple[RawProvider, ...]


def parse_blob(data: bytes) -> RawBlob:
    """Parse a whole WEVT_TEMPLATE resource.  Raises :class:`WevtError` on malformed input."""
    b = Buf(bytes(data))
    b.sig(0, b"CRIM", "CRIM header")
    size = b.u32(4, "CRIM size")
    if size < 16 or size > len(b):
        raise WevtError(f"CRIM size {size} at offset 0x4 does not fit the {len(b)}-byte blob")
    major = b.u16(8, "CRIM major version")
    minor = b.u16(10, "CRIM minor version")
    if major not in (3, 5):
        raise WevtError(
            f"unsupported CRIM version {major}.{minor} at offset 0x8 (3.1 and 5.1 known)"
        )
    n = b.u32(12, "provider count")
    b.count(16, n, 20, "provider directory")
    providers = []
    for i in range(n):
        at = 16 + 20 * i
        guid = b.guid(at, "provider GUID")
        off = b.u32(at + 16, "provider offset")
        providers.append(_provider(b, guid, off, major))
    return RawBlob(major, minor, size, tuple(providers))


def _provider(b: Buf, guid: uuid.UUID, off: int, major: int) -> RawProvider:
    b.sig(off, b"WEVT", f"provider {guid} block")
    message_id = b.u32(off + 8, "provider message id")
    n = b.u32(off + 12, "provider element count")
    b.count(off + 16, n, 8, "provider element descriptors")
    parts: dict[str, object] = {}
    kinds = []
    for i in range(n):
        kind = b.u32(off + 16 + 8 * i, "element kind")
        eoff = b.u32(off + 20 + 8 * i, "element offset")
        kinds.append(kind)
        reader = _BLOCKS.get(kind)
        if reader is None:
            if kind in KIND_NAMES:
                continue  # CTRT / EVTF: known tags mc never writes; nothing to read
            raise WevtError(f"unknown element kind {kind} in descriptor at 0x{off + 16 + 8 * i:x}")
        key, value = reader(b, eoff)
        if key in parts and key != "prva":
            raise WevtError(f"element {KIND_NAMES[kind]} at 0x{eoff:x} appears twice")
        parts[key] = value
    prva = parts.pop("prva", None)
    name = control = group = None
    if isinstance(prva, tuple):
        name, control, group = prva
    return RawProvider(
        guid=guid,
        offset=off,
        message_id=message_id,
        kinds=tuple(kinds),
        name=name,
        control_guid=control,
        group_guid=group,
        **parts,  # type: ignore[arg-type]
    )


def _list_header(b: Buf, off: int, sig: bytes, entry: int, hdr: int = 12) -> int:
    b.sig(off, sig, f"{sig.decode()} block")
    n = b.u32(off + 8, f"{sig.decode()} count")
    b.count(off + hdr, n, entry, f"{sig.decode()} entries")
    return n


def _chan(b: Buf, off: int) -> tuple[str, object]:
    n = _list_header(b, off, b"CHAN", 16)
    out = []
    for i in range(n):
        e = off + 12 + 16 * i
        name = b.sized_string(b.u32(e + 4, "channel name offset"), "channel name")
        out.append(
            RawChannel(
                e,
                b.u32(e, "channel flags"),
                name,
                b.u32(e + 8, "channel value"),
                b.u32(e + 12, "channel message id"),
            )
        )
    return "channels", tuple(out)


def _levl(b: Buf, off: int) -> tuple[str, object]:
    n = _list_header(b, off, b"LEVL", 12)
    out = []
    for i in range(n):
        e = off + 12 + 12 * i
        name = b.qname(b.u32(e + 8, "level name offset"), "level name")
        out.append(RawLevel(e, b.u32(e, "level value"), b.u32(e + 4, "level message id"), name))
    return "levels", tuple(out)


def _opco(b: Buf, off: int) -> tuple[str, object]:
    n = _list_header(b, off, b"OPCO", 12)
    out = []
    for i in range(n):
        e = off + 12 + 12 * i
        name = b.qname(b.u32(e + 8, "opcode name offset"), "opcode name")
        out.append(
            RawOpcode(
                e,
                b.u16(e, "opcode task"),
                b.u16(e + 2, "opcode value"),
                b.u32(e + 4, "opcode message id"),
                name,
            )
        )
    return "opcodes", tuple(out)


def _task(b: Buf, off: int) -> tuple[str, object]:
    n = _list_header(b, off, b"TASK", 28)
    out = []
    for i in range(n):
        e = off + 12 + 28 * i
        name = b.qname(b.u32(e + 24, "task name offset"), "task name")
        out.append(
            RawTask(
                e,
                b.u32(e, "task value"),
                b.u32(e + 4, "task message id"),
                b.guid(e + 8, "task event GUID"),
                name,
            )
        )
    return "tasks", tuple(out)


def _keyw(b: Buf, off: int) -> tuple[str, object]:
    n = _list_header(b, off, b"KEYW", 16)
    out = []
    for i in range(n):
        e = off + 12 + 16 * i
        name = b.qname(b.u32(e + 12, "keyword name offset"), "keyword name")
        out.append(
            RawKeyword(e, b.u64(e, "keyword mask"), b.u32(e + 8, "keyword message id"), name)
        )
    return "keywords", tuple(out)


def _maps(b: Buf, off: int) -> tuple[str, object]:
    n = _list_header(b, off, b"MAPS", 4)
    offsets = [b.u32(off + 12 + 4 * i, "map offset") for i in range(n)]
    if len(set(offsets)) != len(offsets):
        raise WevtError(f"MAPS block at 0x{off:x} lists a map twice")
    out = []
    for moff in sorted(offsets):  # physical order = manifest order
        b.need(moff, 20, "map record")
        sig = b.data[moff : moff + 4]
        if sig not in (b"VMAP", b"BMAP"):
            raise WevtError(f"map record at 0x{moff:x}: expected 'VMAP' or 'BMAP', found {sig!r}")
        name = b.sized_string(b.u32(moff + 8, "map name offset"), "map name")
        flags = b.u32(moff + 12, "map flags")
        k = b.u32(moff + 16, "map item count")
        b.count(moff + 20, k, 8, "map items")
        items = tuple(
            (
                b.u32(moff + 20 + 8 * j, "map item value"),
                b.u32(moff + 24 + 8 * j, "map item message"),
            )
            for j in range(k)
        )
        out.append(RawMap(moff, bool(flags & 1) or sig == b"BMAP", name, items))
    return "maps", tuple(out)


def _qtab(b: Buf, off: int) -> tuple[str, object]:
    n = _list_header(b, off, b"QTAB", 4)
    out = []
    for i in range(n):
        q = b.u32(off + 12 + 4 * i, "pattern map offset")
        b.sig(q, b"QUER", "pattern map record")
        name = b.sized_string(b.u32(q + 8, "pattern map name offset"), "pattern map name")
        fmt = b.sized_string(b.u32(q + 12, "pattern map format offset"), "pattern map format")
        k = b.u32(q + 16, "pattern map item count")
        b.count(q + 20, k, 8, "pattern map items")
        items = tuple(
            (
                b.sized_string(b.u32(q + 20 + 8 * j, "pattern name offset"), "pattern name"),
                b.sized_string(b.u32(q + 24 + 8 * j, "pattern value offset"), "pattern value"),
            )
            for j in range(k)
        )
        out.append(RawPatternMap(q, name, fmt, items))
    return "pattern_maps", tuple(out)


def _ttbl(b: Buf, off: int) -> tuple[str, object]:
    n = _list_header(b, off, b"TTBL", 40)
    pos = off + 12
    out = []
    for _ in range(n):
        t = _temp(b, pos)
        out.append(t)
        pos += b.u32(pos + 4, "TEMP size")
    return "templates", tuple(out)


def _temp(b: Buf, off: int) -> RawTemplate:
    b.sig(off, b"TEMP", "template record")
    size = b.u32(off + 4, "TEMP size")
    end = off + size
    if size < 40 or end > len(b):
        raise WevtError(f"TEMP at 0x{off:x} has bad size {size}")
    params = b.u32(off + 8, "TEMP parameter count")
    nprops = b.u32(off + 12, "TEMP property count")
    props_off = b.u32(off + 16, "TEMP property offset")
    flags = b.u32(off + 20, "TEMP flags")
    guid = b.guid(off + 24, "TEMP id")
    if not off + 40 <= props_off <= end:
        raise WevtError(f"TEMP at 0x{off:x}: property offset 0x{props_off:x} outside the record")
    if nprops * 20 > end - props_off or params > nprops:
        raise WevtError(f"TEMP at 0x{off:x}: {nprops} properties ({params} top-level) do not fit")
    root = None
    if props_off > off + 40:
        root, _ = parse_fragment(b, off + 40, props_off)
    props = []
    for i in range(nprops):
        e = props_off + 20 * i
        pflags = b.u32(e, "property flags")
        name = b.sized_string(b.u32(e + 16, "property name offset"), "property name")
        count, length = b.u16(e + 12, "property count"), b.u16(e + 14, "property length")
        map_off = b.u32(e + 8, "property map offset")
        if pflags & PROP_STRUCT:
            first, members = b.u16(e + 4, "struct first member"), b.u16(e + 6, "struct members")
            if first + members > nprops:
                raise WevtError(
                    f"struct property at 0x{e:x}: members {first}+{members} out of range"
                )
            props.append(RawProperty(pflags, 0, 0, map_off, count, length, name, first, members))
        else:
            props.append(
                RawProperty(
                    pflags,
                    b.u8(e + 4, "inType"),
                    b.u8(e + 5, "outType"),
                    map_off,
                    count,
                    length,
                    name,
                )
            )
    return RawTemplate(off, params, flags, guid, root, tuple(props))


def _prva(b: Buf, off: int) -> tuple[str, object]:
    n = _list_header(b, off, b"PRVA", 8)
    size = b.u32(off + 4, "PRVA size")
    end = off + size
    name = control = group = None
    for i in range(n):
        kind = b.u32(off + 12 + 8 * i, "provider attribute kind")
        voff = b.u32(off + 16 + 8 * i, "provider attribute offset")
        if kind == PRVA_NAME:
            name, _ = b.zstring(voff, end, "provider name")
        elif kind == PRVA_CONTROL_GUID:
            control = b.guid(voff, "provider control GUID")
        elif kind == PRVA_GROUP_GUID:
            group = b.guid(voff, "provider group GUID")
        # Unknown attribute kinds are skipped: they carry no meaning etwmc knows.
    return "prva", (name, control, group)


def _evnt(b: Buf, off: int) -> tuple[str, object]:
    n = _list_header(b, off, b"EVNT", 48, hdr=16)
    out = []
    for i in range(n):
        e = off + 16 + 48 * i
        nkw = b.u32(e + 36, "event keyword count")
        kw_off = b.u32(e + 40, "event keyword array offset")
        if nkw:
            b.count(kw_off, nkw, 4, "event keyword array")
        kws = tuple(b.u32(kw_off + 4 * j, "event keyword offset") for j in range(nkw))
        out.append(
            RawEvent(
                offset=e,
                id=b.u16(e, "event id"),
                version=b.u8(e + 2, "event version"),
                channel=b.u8(e + 3, "event channel"),
                level=b.u8(e + 4, "event level"),
                opcode=b.u8(e + 5, "event opcode"),
                task=b.u16(e + 6, "event task"),
                keyword=b.u64(e + 8, "event keyword"),
                message_id=b.u32(e + 16, "event message id"),
                template_offset=b.u32(e + 20, "event template"),
                opcode_offset=b.u32(e + 24, "event opcode"),
                level_offset=b.u32(e + 28, "event level"),
                task_offset=b.u32(e + 32, "event task"),
                keyword_offsets=kws,
                channel_offset=b.u32(e + 44, "event channel"),
            )
        )
    return "events", tuple(out)


def _evta(b: Buf, off: int) -> tuple[str, object]:
    n = _list_header(b, off, b"EVTA", 8)
    end = off + b.u32(off + 4, "EVTA size")
    out = []
    for i in range(n):
        e = off + 12 + 8 * i
        text, _ = b.zstring(b.u32(e + 4, "event attribute offset"), end, "event attribute")
        out.append(
            (
                b.u8(e, "event attribute kind"),
                b.u8(e + 1, "event attribute version"),
                b.u16(e + 2, "event attribute id"),
                text,
            )
        )
    return "event_attributes", tuple(out)


def _fltr(b: Buf, off: int) -> tuple[str, object]:
    n = _list_header(b, off, b"FLTR", 16, hdr=16)
    out = []
    for i in range(n):
        e = off + 16 + 16 * i
        name = b.qname(b.u32(e + 8, "filter name offset"), "filter name")
        out.append(
            RawFilter(
                b.u8(e, "filter value"),
                b.u8(e + 1, "filter version"),
                b.u32(e + 4, "filter message id"),
                name,
                b.u32(e + 12, "filter template"),
            )
        )
    return "filters", tuple(out)


_BLOCKS = {
    0: _levl,
    1: _task,
    2: _opco,
    3: _keyw,
    4: _evnt,
    5: _chan,
    6: _maps,
    7: _ttbl,
    8: _qtab,
    9: _fltr,
    12: _evta,
    13: _prva,
}
