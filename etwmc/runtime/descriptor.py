"""EVENT_DESCRIPTOR packing.

An event descriptor is 16 bytes, little-endian, naturally aligned::

    offset  size  field
    0       u16   Id
    2       u8    Version
    3       u8    Channel
    4       u8    Level
    5       u8    Opcode
    6       u16   Task
    8       u64   Keyword

Generated provider modules pack each event's descriptor once, at import time, and
hand the same ``bytes`` object to every write.
"""

from __future__ import annotations

import struct
from collections import namedtuple

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see state.py)
if TYPE_CHECKING:
    from typing import NamedTuple

DESCRIPTOR_SIZE = 16
_DESCRIPTOR = struct.Struct("<HBBBBHQ")
assert _DESCRIPTOR.size == DESCRIPTOR_SIZE

_LIMITS = (
    ("id", 0xFFFF),
    ("version", 0xFF),
    ("channel", 0xFF),
    ("level", 0xFF),
    ("opcode", 0xFF),
    ("task", 0xFFFF),
    ("keyword", 0xFFFF_FFFF_FFFF_FFFF),
)


if TYPE_CHECKING:

    class EventDescriptor(NamedTuple):
        """(What type checkers see: the run-time class below has the same fields.)"""

        id: int
        version: int
        channel: int
        level: int
        opcode: int
        task: int
        keyword: int

else:
    # collections.namedtuple at run time: generated modules build their descriptors at
    # import, and typing.NamedTuple would import typing (see EnableState in state.py).
    EventDescriptor = namedtuple("EventDescriptor", "id version channel level opcode task keyword")
    EventDescriptor.__doc__ = (
        "The fields of an EVENT_DESCRIPTOR, as :func:`unpack_descriptor` returns them."
    )


def pack_descriptor(
    id: int,
    version: int = 0,
    channel: int = 0,
    level: int = 0,
    opcode: int = 0,
    task: int = 0,
    keyword: int = 0,
) -> bytes:
    """Pack an EVENT_DESCRIPTOR into its 16-byte form.

    Raises ``ValueError`` naming the field when a value is not an ``int`` in its range
    (id and task 0..65535; version, channel, level, opcode 0..255; keyword 0..2**64-1).
    """
    values = (id, version, channel, level, opcode, task, keyword)
    for (name, limit), value in zip(_LIMITS, values, strict=True):
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValueError(f"event descriptor {name} must be an int, not {type(value).__name__}")
        if not 0 <= value <= limit:
            raise ValueError(f"event descriptor {name} {value} is outside 0..{limit:#x}")
    return _DESCRIPTOR.pack(*values)


def unpack_descriptor(data: bytes | bytearray | memoryview) -> EventDescriptor:
    """Read a 16-byte EVENT_DESCRIPTOR; ``ValueError`` when ``data`` is not 16 bytes long."""
    if len(data) != DESCRIPTOR_SIZE:
        raise ValueError(f"an event descriptor is {DESCRIPTOR_SIZE} bytes, got {len(data)}")
    return EventDescriptor(*_DESCRIPTOR.unpack(data))
