"""How a template's items are read: the steps the payload reader takes, made once per
template (see :meth:`~etwmc.decode.payload.Decoder.plan`).

A step is one of:

- a :class:`Run`: consecutive plain integers (no map, no special or hex outType, no
  count or length), read with one ``struct`` format, the common case;
- a :class:`String`: a UnicodeString that ends at its NUL (no count or length), the
  most common type after integers;
- an :class:`Integers`: an array of plain integers (no length), read with one
  ``struct`` call once its count is known;
- the item itself (a field or struct), read by the reader's general code.

Each step decodes exactly as the general code decodes its items; a run cut short by
the end of the payload is read field by field, so its error names the field.

A plan of runs, strings and integer arrays only, whose fields' names all differ, can
also write its values straight to JSON text (:func:`json_plan`, :func:`write_json`):
each step with the text that comes before its values.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Sequence
from json.encoder import encode_basestring  # a str as JSON, ensure_ascii=False

from .. import winmeta as wm
from ..model import Field, Struct
from ..payloadvalues import MAX_ARRAY, NUMBERS, utf16_end, utf16_text
from ..record import Record

# inType code -> (size, struct format) of the integer types, as the payload reader has them
INT_FORMATS: dict[int, tuple[int, str]] = {
    c: (s.size, s.format) for c, s in NUMBERS.items() if c in wm.INTEGER_CODES
}
# outType -> hex digits shown (0: as many as the value needs)
HEX_OUTS = {
    "win:HexInt8": 2,
    "win:HexInt16": 4,
    "win:HexInt32": 8,
    "win:HexInt64": 16,
    "win:Win32Error": 8,
    "win:NTSTATUS": 8,
    "win:HResult": 8,
    "win:ErrorCode": 8,
    "win:CodePointer": 0,
}
_SPECIAL_OUTS = frozenset({"win:Port", "win:IPv4", "xs:boolean", "xs:string"})
UNICODE_STRING = wm.InTypeCode.UNICODE_STRING


class Run(Record):
    """Consecutive plain integer fields, read with one ``struct`` format."""

    fields: tuple[Field, ...]
    names: tuple[str, ...]
    format: struct.Struct
    size: int
    blanks: tuple[str, ...]  # their insert texts when no message is formatted
    referenced: bool  # a later count or length names one of them


class String(Record):
    """A UnicodeString field that ends at its NUL."""

    field: Field
    name: str


class Integers(Record):
    """An array of plain integers: its count, then ``size``-byte items of ``code``."""

    field: Field
    name: str
    count: int | str
    size: int
    code: str  # the struct format character of one item


Step = Field | Struct | Run | String | Integers


def plain(item: Field | Struct, *, counted: bool = False) -> bool:
    """An integer field whose value is the number itself (``counted``: an array is too)."""
    if not isinstance(item, Field) or item.in_type is None:
        return False
    if (item.count is not None and not counted) or item.length is not None or item.map:
        return False
    out = item.out_type.qname if item.out_type else item.in_type.default_out
    return (
        wm.InTypeCode.INT8 <= item.in_type.code <= wm.InTypeCode.UINT64
        and out not in HEX_OUTS
        and out not in _SPECIAL_OUTS
    )


def _string(item: Field | Struct) -> bool:
    return (
        isinstance(item, Field)
        and item.in_type is not None
        and item.in_type.code == UNICODE_STRING
        and item.count is None
        and item.length is None
    )


def make_plan(items: Sequence[Field | Struct]) -> list[Step]:
    """The steps that read ``items``, in order."""
    steps: list[Step] = []
    run: list[Field] = []
    refs = {x for i in items for x in (i.count, getattr(i, "length", None)) if isinstance(x, str)}

    def close() -> None:
        if run:
            codes = "".join(INT_FORMATS[f.in_type.code][1][1] for f in run)  # type: ignore[union-attr]
            fmt = struct.Struct("<" + codes)
            names = tuple(f.name for f in run)
            used = not refs.isdisjoint(names)
            steps.append(Run(tuple(run), names, fmt, fmt.size, ("",) * len(run), used))
        run.clear()

    for item in items:
        if plain(item):
            run.append(item)  # type: ignore[arg-type]
            continue
        close()
        if _string(item):
            steps.append(String(item, item.name))  # type: ignore[arg-type]
        elif item.count is not None and plain(item, counted=True):
            size, fmt = INT_FORMATS[item.in_type.code]  # type: ignore[union-attr]
            steps.append(Integers(item, item.name, item.count, size, fmt[1]))  # type: ignore[arg-type]
        else:
            steps.append(item)
    close()
    return steps


# each step of a plan with the JSON text that comes before its values
JsonPlan = list[tuple[Step, str]]


def json_plan(steps: Sequence[Step]) -> JsonPlan | None:
    """Each step with the JSON text before its values: for a run, a ``%``-format with
    a ``%d`` per field (``"a":%d,"b":%d``); for a string, an array or a pointer (a lone
    win:Pointer field), its key and colon.  None when a step is of another kind or two
    fields have one name (a dict keeps one)."""
    out: JsonPlan = []
    names: list[str] = []
    for step in steps:
        if type(step) is Run:
            keys = [json.dumps(n, ensure_ascii=False).replace("%", "%%") for n in step.names]
            out.append((step, ",".join(f"{k}:%d" for k in keys)))
            names += step.names
        elif (
            type(step) is String
            or type(step) is Integers
            or (type(step) is Field and _pointer(step))
        ):
            out.append((step, json.dumps(step.name, ensure_ascii=False) + ":"))
            names.append(step.name)
        else:
            return None
    return out if len(set(names)) == len(names) else None


def _pointer(step: Field) -> bool:
    return (
        step.in_type is not None
        and step.in_type.code == wm.InTypeCode.POINTER
        and step.count is None
        and step.length is None
        and not step.map
    )


def write_json(plan: JsonPlan, data: bytes, pointer_size: int) -> tuple[str, int] | None:
    """The fields a JSON plan reads from ``data`` as JSON text (what ``json.dumps``
    writes for the values the payload reader makes of them), and the bytes they used;
    None at the first thing that does not fit (the payload reader then says why)."""
    parts: list[str] = []
    raw: dict[str, int] = {}
    pos = 0
    size = len(data)
    for step, text in plan:
        if type(step) is Run:
            end = pos + step.size
            if end > size:
                return None
            numbers = step.format.unpack_from(data, pos)
            pos = end
            if step.referenced:
                raw.update(zip(step.names, numbers, strict=False))
            parts.append(text % numbers)
        elif type(step) is String:
            end = utf16_end(data, pos)
            if end < 0:
                return None
            parts.append(text + encode_basestring(utf16_text(data[pos:end])))
            pos = end + 2
        elif type(step) is Integers:
            count = step.count
            n = raw.get(count) if isinstance(count, str) else count
            width = step.size
            if n is None or not 0 <= n <= MAX_ARRAY or pos + n * width > size:
                return None
            numbers = struct.unpack_from(f"<{n}{step.code}", data, pos)
            pos += n * width
            parts.append(f"{text}[{','.join(map(str, numbers))}]")
        else:  # a lone pointer, as the payload reader shows it: hex digits in a string
            end = pos + pointer_size
            if end > size:
                return None
            parts.append(f'{text}"0x{int.from_bytes(data[pos:end], "little"):X}"')
            pos = end
    return "{" + ",".join(parts) + "}", pos
