"""How much one event may cost to decode: work bounded by what its payload can hold.

A payload is at most 64 KiB, so a count larger than the bytes left can satisfy is an
error for that event, not a loop: :func:`min_size` gives the fewest bytes an item can
take (0 for an item whose elements may be empty: an array of count 0, a struct of
such arrays, a string or binary of length 0).  Items that can be empty are bounded
by a budget instead: one event's arrays hold :data:`MAX_ELEMENTS` values at most (an
element counts one value, a struct's element one per field), all arrays together,
nested ones included.
"""

from __future__ import annotations

from typing import Final

from ..model import Field, Struct
from ..winmeta import InTypeCode

MAX_ELEMENTS: Final = 0x10000  # array values one event may hold, all arrays together
MAX_ARRAY: Final = 0xFFFF  # ETW payloads are < 64 KiB; no count can be larger

_AT_LEAST: Final = {  # variable-size inTypes: their fewest bytes when no length is given
    InTypeCode.UNICODE_STRING: 2,  # the NUL
    InTypeCode.ANSI_STRING: 1,
    InTypeCode.COUNTED_UNICODE_STRING: 2,  # the u16 byte count
    InTypeCode.COUNTED_ANSI_STRING: 2,
    InTypeCode.COUNTED_BINARY: 2,
    InTypeCode.SID: 8,
    InTypeCode.POINTER: 4,
}
_PER_LENGTH: Final = {InTypeCode.UNICODE_STRING: 2}  # bytes per unit of ``length``


def element_size(item: Field | Struct) -> int:
    """The fewest bytes one element of ``item`` (its count aside) can take."""
    if isinstance(item, Struct):
        return sum(min_size(f) for f in item.fields)
    return _one_size(item)


def min_size(item: Field | Struct) -> int:
    """The fewest bytes ``item`` (with its count) can take in a payload."""
    one = element_size(item)
    if item.count is None:
        return one
    return one * item.count if isinstance(item.count, int) else 0


def _one_size(f: Field) -> int:
    it = f.in_type
    if it is None:
        return 0
    if it.size is not None:
        return it.size
    if isinstance(f.length, int):
        return f.length * _PER_LENGTH.get(it.code, 1)
    if f.length is not None:
        return 0  # the length comes from another field: it may be 0
    return _AT_LEAST.get(it.code, 0)
