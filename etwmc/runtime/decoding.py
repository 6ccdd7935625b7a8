"""Payload decoding by a template's field layout (standard library only).

The inverse of :func:`etwmc.runtime.payload.encode`, over the same
:class:`~etwmc.runtime.payload.Field` specs: the in-process backend decodes a payload to
evaluate payload filters on its fields, and test helpers decode records to show them.

Values come back as Python values: ``int`` for integers, Boolean, Pointer and FILETIME
(its raw 100 ns count, which is what payload filters compare), ``float``, ``str`` for
strings and SIDs (``S-1-...``), ``uuid.UUID`` for GUIDs, ``bytes`` for binary,
an 8-tuple for SYSTEMTIME, a ``list`` for an array and a ``dict`` for a struct.

Payloads are untrusted: every read is bounded by the bytes that are there, an array
has at most 65535 elements (a payload's maximum size), and anything malformed raises
:class:`PayloadDecodeError` (a ``ValueError``) saying which field and what is wrong.
"""

from __future__ import annotations

import struct
import uuid
from collections.abc import Sequence
from typing import Final

from ..winmeta import SCALAR_FORMATS
from .encoder import (
    ANSI,
    BINARY,
    COUNTED_ANSI,
    COUNTED_BINARY,
    COUNTED_UNICODE,
    FILETIME,
    GUID,
    SID,
    STRUCT,
    SYSTEMTIME,
    UNICODE,
)
from .payload import Field

__all__ = ["PayloadDecodeError", "decode_payload"]

MAX_ELEMENTS: Final = 0xFFFF
_POINTER: Final = "Q" if struct.calcsize("P") == 8 else "I"
_STRUCTS: Final = {
    code: struct.Struct("<" + (_POINTER if fmt == "P" else fmt))
    for code, fmt in SCALAR_FORMATS.items()
}
_U16: Final = struct.Struct("<H")
_SYSTEMTIME: Final = struct.Struct("<8H")
_FILETIME: Final = struct.Struct("<Q")
_COUNTED: Final = frozenset({COUNTED_UNICODE, COUNTED_ANSI, COUNTED_BINARY})  # a u16 size first


class PayloadDecodeError(ValueError):
    """A payload does not match its layout (too short, a bad count, a malformed SID...)."""


class _Reader:
    __slots__ = ("data", "pos")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def take(self, size: int) -> bytes:
        end = self.pos + size
        if size < 0 or end > len(self.data):
            raise ValueError(f"needs {size} bytes at offset {self.pos}, the payload ends first")
        chunk = self.data[self.pos : end]
        self.pos = end
        return chunk

    def until(self, terminator: bytes) -> bytes:
        """Bytes up to a terminator aligned to its width (consumed, not returned)."""
        unit = len(terminator)
        pos = self.pos
        while pos + unit <= len(self.data):
            if self.data[pos : pos + unit] == terminator:
                chunk = self.data[self.pos : pos]
                self.pos = pos + unit
                return chunk
            pos += unit
        raise ValueError(f"the string at offset {self.pos} has no terminator")


def decode_payload(fields: Sequence[Field], data: bytes) -> dict[str, object]:
    """Decode ``data`` by ``fields``: ``{field name: value}`` in template order.

    Raises :class:`PayloadDecodeError` when the payload is shorter than the layout,
    holds a bad count or string, or has bytes left over.
    """
    reader = _Reader(bytes(data))
    values = _decode_level(tuple(fields), reader, "")
    if reader.pos != len(reader.data):
        raise PayloadDecodeError(
            f"{len(reader.data) - reader.pos} bytes are left after the last field"
        )
    return values


def _decode_level(fields: tuple[Field, ...], reader: _Reader, prefix: str) -> dict[str, object]:
    values: list[object] = []
    for f in fields:
        try:
            count = f.count_const if f.count_ref is None else _size(values, f.count_ref)
            length = f.length_const if f.length_ref is None else _size(values, f.length_ref)
            if count is None:
                values.append(_one(f, reader, length, prefix))
                continue
            if count > MAX_ELEMENTS:
                raise ValueError(f"{count} elements is more than a payload can hold")
            values.append([_one(f, reader, length, prefix) for _ in range(count)])
        except PayloadDecodeError:
            raise
        except (ValueError, IndexError, struct.error, UnicodeDecodeError) as exc:
            raise PayloadDecodeError(f"field {prefix + f.name!r}: {exc}") from None
    return {f.name: v for f, v in zip(fields, values, strict=True)}


def _size(values: list[object], ref: int) -> int:
    if ref >= len(values):
        raise ValueError("its count or length field comes after it")
    value = values[ref]
    if not isinstance(value, int) or value < 0:
        raise ValueError(f"its count or length field holds {value!r}, not a size")
    return value


def _one(f: Field, reader: _Reader, length: int | None, prefix: str) -> object:
    code = f.code
    fixed = _STRUCTS.get(code)
    if fixed is not None:
        (value,) = fixed.unpack(reader.take(fixed.size))
        return value
    if code == STRUCT:
        return _decode_level(f.members, reader, f"{prefix}{f.name}.")
    if code == UNICODE:
        raw = reader.until(b"\0\0") if length is None else reader.take(2 * length)
        return raw.decode("utf-16-le", "replace").rstrip("\0") if length else _utf16(raw)
    if code == ANSI:
        raw = reader.until(b"\0") if length is None else reader.take(length)
        return _ansi(f, raw.rstrip(b"\0") if length else raw)
    if code in _COUNTED:
        (size,) = _U16.unpack(reader.take(2))
        raw = reader.take(size)
        if code == COUNTED_UNICODE:
            return _utf16(raw)
        return _ansi(f, raw) if code == COUNTED_ANSI else raw
    if code == BINARY:
        if length is None:
            raise ValueError("a binary field needs a length")
        return reader.take(length)
    if code == GUID:
        return uuid.UUID(bytes_le=reader.take(16))
    if code == FILETIME:
        (ticks,) = _FILETIME.unpack(reader.take(8))
        return ticks
    if code == SYSTEMTIME:
        return _SYSTEMTIME.unpack(reader.take(16))
    if code == SID:
        return _sid(reader, length)
    raise ValueError(f"inType {code} cannot be decoded")


def _utf16(raw: bytes) -> str:
    if len(raw) % 2:
        raise ValueError("a UTF-16 string has an odd number of bytes")
    return raw.decode("utf-16-le", "replace")


def _ansi(f: Field, raw: bytes) -> str:
    return raw.decode("utf-8" if f.utf8 else "cp1252", "replace")


def _sid(reader: _Reader, length: int | None) -> str:
    start = reader.pos
    head = reader.take(8)
    if head[0] != 1:
        raise ValueError(f"a SID has revision {head[0]}, not 1")
    count = head[1]
    subs = struct.unpack(f"<{count}I", reader.take(4 * count))
    authority = int.from_bytes(head[2:8], "big")
    if length is not None and length > reader.pos - start:
        reader.take(length - (reader.pos - start))  # the padding of a fixed-length SID
    return "S-1-" + "-".join(str(v) for v in (authority, *subs))
