"""The generic payload encoder of generated provider modules (standard library only).

:func:`encode` walks a template's :class:`~etwmc.runtime.fields.Field` specs: arrays by
fixed or field count, fixed-length and NUL-terminated strings, counted types, structs,
binary, GUID, FILETIME/SYSTEMTIME, SID, pointers, and count/length fields filled from
the sequences they count.  When an encoding fails, :func:`fail` encodes again field by
field to name the field and say what is wrong, as one
:class:`~etwmc.runtime.fields.EventError`; nothing is written.

Generated modules reach it through :func:`etwmc.runtime.payload.encode` and
:func:`~etwmc.runtime.payload.fail`, which import this module on first use: it loads the
win: type tables, which a module whose events are never written does not need.
"""

from __future__ import annotations

import struct
import uuid
from datetime import UTC, datetime
from typing import Final

from ..winmeta import SCALAR_FORMATS, InTypeCode
from .encoding import filetime, sid_bytes, systemtime
from .fields import POINTER_FORMAT as _POINTER
from .fields import EventError, Field, ansi, u16

__all__ = [
    "ANSI",
    "BINARY",
    "BOOLEAN",
    "COUNTED_ANSI",
    "COUNTED_BINARY",
    "COUNTED_UNICODE",
    "FILETIME",
    "GUID",
    "SID",
    "STRINGS",
    "STRUCT",
    "SYSTEMTIME",
    "UNICODE",
    "encode",
    "fail",
]


class _Problem(ValueError):  # a ValueError: in payload.ENCODING_ERRORS
    def __init__(self, field: str, problem: str) -> None:
        super().__init__(problem)
        self.field = field
        self.problem = problem


_SCALARS: Final = SCALAR_FORMATS
# inType codes by name, bound once: they are compared per value, where reading a member
# from the enum class would cost more than the comparison (decoding.py and filters.py
# use them too).
STRUCT: Final = InTypeCode.NULL
UNICODE: Final = InTypeCode.UNICODE_STRING
ANSI: Final = InTypeCode.ANSI_STRING
COUNTED_UNICODE: Final = InTypeCode.COUNTED_UNICODE_STRING
COUNTED_ANSI: Final = InTypeCode.COUNTED_ANSI_STRING
BINARY: Final = InTypeCode.BINARY
COUNTED_BINARY: Final = InTypeCode.COUNTED_BINARY
GUID: Final = InTypeCode.GUID
FILETIME: Final = InTypeCode.FILETIME
SYSTEMTIME: Final = InTypeCode.SYSTEMTIME
BOOLEAN: Final = InTypeCode.BOOLEAN
SID: Final = InTypeCode.SID
STRINGS: Final = frozenset({UNICODE, ANSI, COUNTED_UNICODE, COUNTED_ANSI})
_WIDE_STRINGS: Final = frozenset({UNICODE, COUNTED_UNICODE})
_COUNTED_STRINGS: Final = frozenset({COUNTED_UNICODE, COUNTED_ANSI})
_BINARIES: Final = frozenset({BINARY, COUNTED_BINARY})
_TIMES: Final = frozenset({FILETIME, SYSTEMTIME})
_INTS: Final = {"b": 8, "B": 8, "h": 16, "H": 16, "i": 32, "I": 32, "q": 64, "Q": 64}
_BYTES: Final = (bytes, bytearray, memoryview)
_QWORD: Final = struct.Struct("<Q")


def fail(event: str, fields: tuple[Field, ...], exc: Exception, *values: object) -> EventError:
    """The clear error for a failed encoding: which field, and what is wrong with it."""
    try:
        encode(fields, *values)
    except _Problem as problem:
        return EventError(event, problem.field, problem.problem)
    return EventError(event, "?", f"{type(exc).__name__}: {exc}")


def encode(fields: tuple[Field, ...], *values: object) -> bytes:
    """Encode the values of one template (or struct) into its payload bytes."""
    vals = list(values)
    for i, f in enumerate(fields):
        if f.derived:
            try:
                vals[i] = _derive(fields, vals, i)
            except _Problem:
                raise
            except Exception as exc:
                raise _Problem(f.name, str(exc)) from None
    out: list[bytes] = []
    for f, v in zip(fields, vals, strict=True):
        try:
            count = f.count_const if f.count_ref is None else vals[f.count_ref]
            length = f.length_const if f.length_ref is None else vals[f.length_ref]
            if count is None:
                out.append(_one(f, v, length))
                continue
            items = _sequence(v)
            if len(items) != count:
                raise ValueError(f"expected {count} elements, got {len(items)}")
            out.extend(_one(f, x, length) for x in items)
        except _Problem as problem:
            raise _Problem(f"{f.name}.{problem.field}", problem.problem) from None
        except Exception as exc:
            raise _Problem(f.name, str(exc)) from None
    return b"".join(out)


def _sequence(v: object) -> list[object]:
    if isinstance(v, (str, dict)) or not hasattr(v, "__len__") or not hasattr(v, "__iter__"):
        raise TypeError(f"expected a sequence, got {type(v).__name__}")
    return list(v)


def _units(f: Field, v: object) -> int:
    """The length of one value in the units of its length field."""
    if f.code == UNICODE and isinstance(v, str):
        return len(u16(v)[0]) // 2
    if f.code == ANSI and isinstance(v, str):
        return len(_ansi_bytes(f, v))
    if f.code == SID:
        return len(_sid(v))
    if isinstance(v, _BYTES):
        return len(v)
    wanted = "str" if f.code in (UNICODE, ANSI) else "bytes"
    raise TypeError(f"expected {wanted}, got {type(v).__name__}")


def _derive(fields: tuple[Field, ...], vals: list[object], i: int) -> int:
    """A count or length field's value, from the items it counts (they must agree).

    A SID carries its own size, so a SID's length is only a minimum (decoders skip the
    padding): SIDs do not have to agree with the other items, only fit in the length.
    """
    found: int | None = None
    sids = 0
    for f, v in zip(fields, vals, strict=True):
        if f.count_ref == i:
            n = len(_sequence(v))
        elif f.length_ref == i:
            if f.count_const is None and f.count_ref is None:
                n = _units(f, v)
            else:
                sizes = {_units(f, x) for x in _sequence(v)}
                if len(sizes) > 1 and f.code != SID:
                    raise _Problem(f.name, "every element must have the same length")
                n = max(sizes) if sizes else 0
            if f.code == SID:
                sids = max(sids, n)
                continue
        else:
            continue
        if found is not None and n != found:
            raise _Problem(fields[i].name, f"the items it counts disagree ({found} != {n})")
        found = n
    return found if found is not None else sids


def _ansi_bytes(f: Field, v: str) -> bytes:
    return v.encode() if f.utf8 else ansi(v)[0]


def _fixed(data: bytes, size: int, unit: int) -> bytes:
    if len(data) > size:
        raise ValueError(f"{len(data) // unit} units long; the field holds {size // unit}")
    return data + b"\x00" * (size - len(data))


def _counted(data: bytes) -> bytes:
    if len(data) > 0xFFFF:
        raise ValueError(f"{len(data)} bytes long; a counted field holds at most 65535")
    return struct.pack("<H", len(data)) + data


def _one(f: Field, v: object, length: object) -> bytes:
    """Encode one value (one element of an array)."""
    code = f.code
    fmt = _SCALARS.get(code)
    if fmt is not None:
        return _scalar(_POINTER if fmt == "P" else fmt, v)
    if code == STRUCT:
        return _struct(f, v)
    if code in STRINGS:
        if not isinstance(v, str):
            raise TypeError(f"expected str, got {type(v).__name__}")
        data = u16(v)[0] if code in _WIDE_STRINGS else _ansi_bytes(f, v)
        if code in _COUNTED_STRINGS:
            return _counted(data)
        unit = 2 if code == UNICODE else 1
        if length is None:
            return data + b"\x00" * unit
        if not isinstance(length, int):
            raise TypeError("the length field does not hold an int")
        return _fixed(data, length * unit, unit)
    if code in _BINARIES:
        if not isinstance(v, _BYTES):
            raise TypeError(f"expected bytes, got {type(v).__name__}")
        data = bytes(v)
        if code == COUNTED_BINARY:
            return _counted(data)
        if length != len(data):
            raise ValueError(f"expected {length} bytes, got {len(data)}")
        return data
    if code == GUID:
        if not isinstance(v, uuid.UUID):
            raise TypeError(f"expected uuid.UUID, got {type(v).__name__}")
        return v.bytes_le
    if code in _TIMES:
        if not isinstance(v, datetime):
            raise TypeError(f"expected datetime, got {type(v).__name__}")
        return _filetime(v) if code == FILETIME else systemtime(v)
    if code == SID:
        sid = _sid(v)
        if not isinstance(length, int) or length <= len(sid):
            return sid
        return _fixed(sid, length, 1)
    raise TypeError(f"inType {code} cannot be written")


def _scalar(fmt: str, v: object) -> bytes:
    bits = _INTS.get(fmt)
    if bits is not None:
        if not isinstance(v, int):
            raise TypeError(f"expected int, got {type(v).__name__}")
        low, high = (0, 2**bits - 1) if fmt.isupper() else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
        if not low <= v <= high:
            raise ValueError(f"{v} is outside {low}..{high}")
    elif not isinstance(v, (int, float)):
        raise TypeError(f"expected float, got {type(v).__name__}")
    return struct.pack("<" + fmt, v)


def _struct(f: Field, v: object) -> bytes:
    """A struct value: a tuple in member order, or a dict by member name (members that
    only count others are left out of both)."""
    names = [m.name for m in f.members if not m.derived]
    if isinstance(v, dict):
        unknown = sorted(set(v) - set(names), key=str)
        missing = [n for n in names if n not in v]
        if unknown or missing:
            raise ValueError(f"expected the keys {names}, got {sorted(v, key=str)}")
        v = tuple(v[n] for n in names)
    if not isinstance(v, tuple):
        raise TypeError(f"expected a tuple or dict, got {type(v).__name__}")
    if len(v) != len(names):
        raise ValueError(f"expected a tuple of {len(names)} values, got {len(v)}")
    given = iter(v)
    return encode(f.members, *(None if m.derived else next(given) for m in f.members))


def _filetime(v: datetime) -> bytes:
    # A naive datetime is taken as UTC, as the generated modules document.
    return _QWORD.pack(filetime(v if v.tzinfo is not None else v.replace(tzinfo=UTC)))


def _sid(v: object) -> bytes:
    """A SID as bytes (checked) or in its ``S-1-5-21-...`` string form."""
    if isinstance(v, _BYTES):
        data = bytes(v)
        if len(data) < 8 or data[0] != 1 or len(data) != 8 + 4 * data[1]:
            raise ValueError("not a binary SID (revision 1, 8 + 4 * count bytes)")
        return data
    if not isinstance(v, str):
        raise TypeError(f"expected a SID as str or bytes, got {type(v).__name__}")
    return sid_bytes(v)
