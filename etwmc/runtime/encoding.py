"""Payload pieces for generated code: fast, standard library only, strict.

Every helper raises ``TypeError`` or ``ValueError`` with a message naming what was
expected; none of them guesses.  ETW payloads are little-endian.
"""

from __future__ import annotations

import codecs
import datetime as _dt
import functools
import re
import struct
import uuid

# Bound once: codecs.utf_16_le_encode is about 3x faster than str.encode("utf-16-le"),
# which goes through the codec registry on every call.
_utf16_le_encode = codecs.utf_16_le_encode
_utf8_encode = codecs.utf_8_encode

_FILETIME_EPOCH = _dt.datetime(1601, 1, 1, tzinfo=_dt.UTC)
_SYSTEMTIME = struct.Struct("<8H")
_SID = re.compile(r"S-1(?:-\d+){1,16}\Z", re.IGNORECASE)
MAX_SID_SUBAUTHORITIES = 15


def utf16(value: str) -> bytes:
    """UTF-16LE without terminator (counted or fixed-length strings)."""
    return _utf16_le_encode(value)[0]


def utf16z(value: str) -> bytes:
    """UTF-16LE plus a NUL terminator (win:UnicodeString)."""
    return _utf16_le_encode(value)[0] + b"\0\0"


def utf8z(value: str) -> bytes:
    """UTF-8 plus a NUL terminator."""
    return _utf8_encode(value)[0] + b"\0"


def ansiz(value: str | bytes, encoding: str = "utf-8") -> bytes:
    """A NUL-terminated 8-bit string (win:AnsiString); bytes are taken as they are."""
    data = value if isinstance(value, bytes) else value.encode(encoding)
    if b"\0" in data:
        raise ValueError("an ANSI string must not contain NUL (it would end the string early)")
    return data + b"\0"


def guid_bytes(value: uuid.UUID | str) -> bytes:
    """A GUID in Windows layout (``uuid.UUID.bytes_le``), from a UUID or its text."""
    if isinstance(value, uuid.UUID):
        return value.bytes_le
    if isinstance(value, str):
        try:
            return uuid.UUID(value).bytes_le
        except ValueError:
            raise ValueError(f"{value!r} is not a GUID") from None
    raise TypeError(f"a GUID is a uuid.UUID or a string, not {type(value).__name__}")


@functools.lru_cache(maxsize=256)
def sid_bytes(sid: str) -> bytes:
    """A security identifier in binary form, from its ``S-1-...`` string.

    Binary SID: revision (1), sub-authority count, 6-byte big-endian identifier
    authority, then up to 15 little-endian u32 sub-authorities.
    """
    if not isinstance(sid, str) or not _SID.match(sid):
        raise ValueError(f"{sid!r} is not a SID string like S-1-5-32-544")
    parts = sid.split("-")[2:]
    authority, subs = int(parts[0]), [int(p) for p in parts[1:]]
    if authority >= 1 << 48:
        raise ValueError(f"SID {sid!r}: identifier authority {authority} exceeds 48 bits")
    if len(subs) > MAX_SID_SUBAUTHORITIES:
        raise ValueError(
            f"SID {sid!r} has {len(subs)} sub-authorities; at most {MAX_SID_SUBAUTHORITIES}"
        )
    for sub in subs:
        if sub > 0xFFFF_FFFF:
            raise ValueError(f"SID {sid!r}: sub-authority {sub} exceeds 32 bits")
    return (
        bytes((1, len(subs))) + authority.to_bytes(6, "big") + struct.pack(f"<{len(subs)}I", *subs)
    )


def filetime(value: _dt.datetime) -> int:
    """A timezone-aware datetime as FILETIME (100 ns units since 1601-01-01 UTC)."""
    if not isinstance(value, _dt.datetime):
        raise TypeError(f"FILETIME needs a datetime, not {type(value).__name__}")
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError("FILETIME needs a timezone-aware datetime (e.g. tzinfo=datetime.UTC)")
    delta = value - _FILETIME_EPOCH
    ticks = (delta.days * 86_400 + delta.seconds) * 10_000_000 + delta.microseconds * 10
    if not 0 <= ticks < 1 << 63:
        raise ValueError(f"{value} is outside the FILETIME range (1601 to 30828)")
    return ticks


def systemtime(value: _dt.datetime) -> bytes:
    """A datetime as a 16-byte SYSTEMTIME; aware datetimes are converted to UTC first.

    Fields: year, month, day of week (0 = Sunday), day, hour, minute, second,
    milliseconds.  Sub-millisecond precision is dropped.
    """
    if not isinstance(value, _dt.datetime):
        raise TypeError(f"SYSTEMTIME needs a datetime, not {type(value).__name__}")
    if value.tzinfo is not None and value.utcoffset() is not None:
        value = value.astimezone(_dt.UTC)
    return _SYSTEMTIME.pack(
        value.year,
        value.month,
        value.isoweekday() % 7,
        value.day,
        value.hour,
        value.minute,
        value.second,
        value.microsecond // 1000,
    )
