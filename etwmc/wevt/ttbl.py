"""The TTBL element: TEMP records with their BinXML, property entries and names.

TEMP: "TEMP", size, top-level item count, property count (struct members included),
offset of the property entries, flags (1 EventData, 2 UserData), template id, the
BinXML, 20-byte property entries, then the property names.  Struct members follow all
top-level entries, struct after struct.  A property's count/length is a constant
(flags 0x8/0x2) or the index of the property holding it (0x10/0x4; for a struct
member the index counts from the struct's first member's position); a constant 0 is
the same as none, and win:SID never gets the fixed-length flag.  outType is the one
written or the inType's default.
"""

from __future__ import annotations

from .. import winmeta as wm
from ..model import Field, Provider, Struct, Template
from ..winmeta import InTypeCode
from .binxml import encode_template
from .crim import (
    LIST_HEADER,
    PROP_FIXED_COUNT,
    PROP_FIXED_LENGTH,
    PROP_STRUCT,
    PROP_VAR_COUNT,
    PROP_VAR_LENGTH,
    PROPERTY,
    STRUCT_PROPERTY,
    TEMP,
    TEMP_HEADER,
    TEMPLATE_EVENT_DATA,
    TEMPLATE_USER_DATA,
    Kind,
    sized_string,
)


def write_ttbl(out: bytearray, offsets: dict[int, int], p: Provider, *, legacy_ids: bool) -> None:
    """TTBL: header, then one TEMP record per template in manifest order."""
    start = len(out)
    out += bytes(LIST_HEADER.size)
    for t in p.templates:
        _temp(out, offsets, p, t, legacy_ids)
    LIST_HEADER.layout.pack_into(
        out, start, Kind.TTBL.signature, len(out) - start, len(p.templates)
    )


def _temp(
    out: bytearray, offsets: dict[int, int], p: Provider, t: Template, legacy_ids: bool
) -> None:
    start = len(out)
    offsets[id(t)] = start
    tid, bx = encode_template(t, legacy_ids=legacy_ids)
    out += bytes(TEMP_HEADER.size)
    out += bx
    props_at = len(out)
    top = t.items
    members = [f for s in top if isinstance(s, Struct) for f in s.fields]
    total = len(top) + len(members)
    entry = PROPERTY.size  # STRUCT_PROPERTY's too
    out += bytes(entry * total)
    index = {item.name: i for i, item in reversed(list(enumerate(top)))}
    first_member = len(top)
    k = 0
    for item in top:
        if isinstance(item, Struct):
            _struct_entry(out, props_at + entry * k, item, first_member, index)
            first_member += len(item.fields)
        else:
            _field_entry(out, offsets, props_at + entry * k, p, item, index, 0)
        k += 1
    base = len(top)
    for s in top:
        if isinstance(s, Struct):
            local = {f.name: i for i, f in reversed(list(enumerate(s.fields)))}
            for f in s.fields:
                _field_entry(out, offsets, props_at + entry * k, p, f, local, base)
                k += 1
            base += len(s.fields)
    flags = TEMPLATE_USER_DATA if t.user_data is not None else TEMPLATE_EVENT_DATA
    TEMP_HEADER.layout.pack_into(
        out,
        start,
        TEMP,
        len(out) - start,
        len(top),
        total,
        props_at,
        flags,
        tid,
    )


def _extent(
    value: int | str | None, index: dict[str, int], base: int, fixed: int, var: int
) -> tuple[int, int]:
    if value is None or value == 0:  # a constant 0 is the same as no attribute
        return 0, 0
    if isinstance(value, int):
        return fixed, value & 0xFFFF
    return var, (index.get(value, 0) + base) & 0xFFFF


def _field_entry(
    out: bytearray,
    offsets: dict[int, int],
    at: int,
    p: Provider,
    f: Field,
    index: dict[str, int],
    base: int,
) -> None:
    cflag, count = _extent(f.count, index, base, PROP_FIXED_COUNT, PROP_VAR_COUNT)
    lflag, length = _extent(f.length, index, base, PROP_FIXED_LENGTH, PROP_VAR_LENGTH)
    if lflag == PROP_FIXED_LENGTH and f.in_type is not None and f.in_type.code == InTypeCode.SID:
        lflag = 0
    in_code = f.in_type.code if f.in_type is not None else InTypeCode.NULL
    out_code = _out_code(f)
    map_at = 0
    if f.map is not None:
        m = p.map_named(f.map)
        map_at = offsets.get(id(m), 0) if m is not None else 0
    PROPERTY.layout.pack_into(
        out,
        at,
        cflag | lflag,
        in_code & 0xFF,
        out_code & 0xFF,
        0,
        map_at,
        count,
        length,
        len(out),  # the name, appended next
    )
    out += sized_string(f.name)


def _struct_entry(out: bytearray, at: int, s: Struct, first: int, index: dict[str, int]) -> None:
    cflag, count = _extent(s.count, index, 0, PROP_FIXED_COUNT, PROP_VAR_COUNT)
    lflag, length = _extent(s.length, index, 0, PROP_FIXED_LENGTH, PROP_VAR_LENGTH)
    STRUCT_PROPERTY.layout.pack_into(
        out,
        at,
        PROP_STRUCT | cflag | lflag,
        first & 0xFFFF,
        len(s.fields) & 0xFFFF,
        0,
        count,
        length,
        len(out),  # the name, appended next
    )
    out += sized_string(s.name)


def _out_code(f: Field) -> int:
    if f.out_type is not None:
        return f.out_type.code
    if f.in_type is None:
        return 0
    # An outType winmeta does not define (a few manifests write "xs:HexInt32") counts
    # as none: the default is stored.
    ot = wm.out_type(f.in_type.default_out)
    return ot.code if ot is not None else 0
