"""A payload's values, read by inType as TDH reads them (standard library only).

One reader for both worlds: ``etwmc decode`` (:mod:`etwmc.decode.payload`, which then
shows the values by outType and map) and the runtime's testing helpers and payload
filters (:mod:`etwmc.runtime.decoding`, which return them as they are).  A
:class:`ValueReader` walks one payload front to back; every read is bounded by the
bytes that are there, and anything malformed raises :class:`PayloadValueError` saying
what is wrong and at which offset (the walkers add the field's name).

The rules, where readers could differ (what TDH does decides each):

- a NUL-terminated string ends at its first NUL; UTF-16 at a 00 00 pair at an even
  distance from its start; a string without its NUL is an error;
- a string with a fixed ``length`` (characters) is cut at its first NUL, as TDH shows
  a fixed-size buffer; the rest of its length is still consumed;
- UTF-16 that is not valid (an unpaired surrogate, a counted string of an odd number
  of bytes) decodes with U+FFFD in place of what is broken: TDH shows such strings,
  and refusing the whole event for one character would hide the rest of it;
- ANSI strings are Windows-1252 unless their outType is win:Utf8;
- a SID has revision 1 and at most 15 sub-authorities (SID_MAX_SUB_AUTHORITIES): TDH
  formats SIDs with ConvertSidToStringSid, which refuses any other as invalid, so it is
  an error here too; a SID with a ``length`` consumes that many bytes;
- FILETIME is its raw 100 ns count and SYSTEMTIME its eight u16s: how they are shown
  is the caller's (a payload filter compares the count);
- an array holds at most :data:`MAX_ARRAY` elements, and one event's arrays together
  at most :data:`MAX_ELEMENTS` values (:meth:`ValueReader.spend`), so a hostile count
  costs an error, not a loop.
"""

from __future__ import annotations

import codecs
import struct
import uuid
from typing import Final

from .winmeta import SCALAR_FORMATS, InTypeCode

MAX_ARRAY: Final = 0xFFFF  # ETW payloads are < 64 KiB; no count can be larger
MAX_ELEMENTS: Final = 0x10000  # array values one event may hold, all arrays together
SID_MAX_SUB_AUTHORITIES: Final = 15

_utf16 = codecs.utf_16_le_decode  # what bytes.decode("utf-16-le") calls, without a lookup
_U16: Final = struct.Struct("<H")
_U64: Final = struct.Struct("<Q")
_SYSTEMTIME: Final = struct.Struct("<8H")
# the fixed-size numbers, by inType (pointers by the reader's pointer size)
NUMBERS: Final = {
    code: struct.Struct("<" + fmt) for code, fmt in SCALAR_FORMATS.items() if fmt != "P"
}
_POINTERS: Final = {4: struct.Struct("<I"), 8: struct.Struct("<Q")}

_UNICODE, _ANSI = InTypeCode.UNICODE_STRING, InTypeCode.ANSI_STRING
_COUNTED_UNICODE = InTypeCode.COUNTED_UNICODE_STRING
_COUNTED_ANSI = InTypeCode.COUNTED_ANSI_STRING
_BINARY, _COUNTED_BINARY = InTypeCode.BINARY, InTypeCode.COUNTED_BINARY
_GUID, _POINTER, _SID = InTypeCode.GUID, InTypeCode.POINTER, InTypeCode.SID
_FILETIME, _SYSTEMTIME_CODE = InTypeCode.FILETIME, InTypeCode.SYSTEMTIME


class PayloadValueError(ValueError):
    """A value does not fit the payload's bytes, or holds what its type cannot."""


def utf16_end(data: bytes, start: int) -> int:
    """Where the UTF-16 string at ``start`` ends: its first NUL code unit, a 00 00 pair
    at an even distance (-1 when none)."""
    end = data.find(b"\0\0", start)
    while end >= 0 and (end - start) & 1:
        end = data.find(b"\0\0", end + 1)
    return end


def utf16_text(raw: bytes) -> str:
    """UTF-16LE text, U+FFFD for what is broken (see the module's rules)."""
    return _utf16(raw, "replace", True)[0]


def ansi_text(raw: bytes, utf8: bool) -> str:
    return raw.decode("utf-8" if utf8 else "cp1252", "replace")


class ValueReader:
    """Reads values from one payload, front to back; ``pos`` is the next byte."""

    def __init__(self, data: bytes, pointer_size: int = 8) -> None:
        if pointer_size not in _POINTERS:
            raise PayloadValueError(f"pointer size must be 4 or 8, not {pointer_size}")
        self.data = data
        self.pos = 0
        self.ptr = pointer_size
        self.elements = MAX_ELEMENTS  # array values this event may still hold

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            left = len(self.data) - self.pos
            raise PayloadValueError(f"needs {n} bytes at offset {self.pos}, {left} left")
        b = self.data[self.pos : self.pos + n]
        self.pos += n
        return b

    def spend(self, n: int, element: int, values: int = 1) -> None:
        """Check an array of ``n`` elements, each of at least ``element`` bytes and
        ``values`` values, before reading it: the bytes left must hold them, and the
        event's budget of values (elements may be empty) must cover them."""
        if not 0 <= n <= MAX_ARRAY:
            raise PayloadValueError(f"{n} elements is more than a payload can hold")
        need = n * element
        if need > len(self.data) - self.pos:
            raise PayloadValueError(
                f"{n} elements need at least {need} bytes at offset {self.pos}, "
                f"{len(self.data) - self.pos} left"
            )
        self.elements -= n * values
        if self.elements < 0:
            raise PayloadValueError(f"the event's arrays hold more than {MAX_ELEMENTS} values")

    def number(self, code: int) -> int | float:
        """An integer, real, Boolean (as its int), or pointer of inType ``code``."""
        fmt = _POINTERS[self.ptr] if code == _POINTER else NUMBERS[code]
        return fmt.unpack(self.take(fmt.size))[0]  # type: ignore[no-any-return]

    def utf16(self, length: int | None = None) -> str:
        if length is not None:
            return utf16_text(self.take(2 * length)).split("\0", 1)[0]
        end = utf16_end(self.data, self.pos)
        if end < 0:
            raise PayloadValueError(f"string at offset {self.pos} has no NUL terminator")
        s = utf16_text(self.data[self.pos : end])
        self.pos = end + 2
        return s

    def ansi(self, length: int | None = None, *, utf8: bool = False) -> str:
        if length is not None:
            return ansi_text(self.take(length), utf8).split("\0", 1)[0]
        end = self.data.find(b"\0", self.pos)
        if end < 0:
            raise PayloadValueError(f"string at offset {self.pos} has no NUL terminator")
        s = ansi_text(self.data[self.pos : end], utf8)
        self.pos = end + 1
        return s

    def counted(self) -> bytes:
        """The bytes of a counted string or counted binary (a u16 byte count first)."""
        return self.take(_U16.unpack(self.take(2))[0])

    def binary(self, length: int | None) -> bytes:
        if length is None:
            raise PayloadValueError("win:Binary needs a length")
        return self.take(length)

    def guid(self) -> uuid.UUID:
        return uuid.UUID(bytes_le=self.take(16))

    def filetime(self) -> int:
        return _U64.unpack(self.take(8))[0]  # type: ignore[no-any-return]

    def systemtime(self) -> tuple[int, ...]:
        """Year, month, day of the week, day, hour, minute, second, millisecond."""
        return _SYSTEMTIME.unpack(self.take(16))

    def sid(self, length: int | None = None) -> str:
        """A SID as ``S-1-...`` (see the module's rules)."""
        start = self.pos
        head = self.take(8)
        rev, n = head[0], head[1]
        if rev != 1 or n > SID_MAX_SUB_AUTHORITIES:
            raise PayloadValueError(
                f"bytes at offset {start} are no SID (revision {rev}, {n} sub-authorities)"
            )
        subs = struct.unpack(f"<{n}I", self.take(4 * n))
        authority = int.from_bytes(head[2:8], "big")
        if length is not None and length > self.pos - start:
            self.take(length - (self.pos - start))  # the padding of a fixed-length SID
        return "S-1-" + "-".join(str(x) for x in (authority, *subs))

    def value(self, code: int, length: int | None = None, *, utf8: bool = False) -> object:
        """One value of inType ``code`` as it is: a number, ``str`` for strings and
        SIDs, ``bytes`` for binary, :class:`uuid.UUID`, FILETIME's count, SYSTEMTIME's
        eight numbers."""
        if code in NUMBERS or code == _POINTER:
            return self.number(code)
        if code == _UNICODE:
            return self.utf16(length)
        if code == _ANSI:
            return self.ansi(length, utf8=utf8)
        if code == _COUNTED_UNICODE:
            return utf16_text(self.counted())
        if code == _COUNTED_ANSI:
            return ansi_text(self.counted(), utf8)
        if code == _COUNTED_BINARY:
            return self.counted()
        if code == _BINARY:
            return self.binary(length)
        if code == _GUID:
            return self.guid()
        if code == _FILETIME:
            return self.filetime()
        if code == _SYSTEMTIME_CODE:
            return self.systemtime()
        if code == _SID:
            return self.sid(length)
        raise PayloadValueError(f"inType {code} cannot be decoded")
