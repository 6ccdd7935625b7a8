"""The event descriptor: one type for every part of etwmc (standard library only).

An EVENT_DESCRIPTOR is 16 bytes, little-endian, naturally aligned::

    offset  size  field
    0       u16   Id
    2       u8    Version
    3       u8    Channel
    4       u8    Level
    5       u8    Opcode
    6       u16   Task
    8       u64   Keyword

:class:`EventDescriptor` holds its fields by name.  The generators compute one per event
(:func:`etwmc.descriptors.descriptor`), generated modules declare theirs as constants
and pack each once at import (:func:`pack_descriptor`), the in-process backend and the
event-file reader unpack them, and the trace readers and the decoder carry one per
record.  It stands beside the win: tables so that both worlds import it: the runtime
re-exports it (:mod:`etwmc.runtime.descriptor`), the compiler imports it without
loading the runtime package.
"""

from __future__ import annotations

import struct
from collections import namedtuple

# typing.TYPE_CHECKING without importing typing: generated modules import this module,
# and typing would cost them a third of their import time (see etwmc.runtime.state)
TYPE_CHECKING = False
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
        version: int = 0
        channel: int = 0
        level: int = 0
        opcode: int = 0
        task: int = 0
        keyword: int = 0

else:
    # collections.namedtuple at run time, not typing.NamedTuple (see TYPE_CHECKING)
    EventDescriptor = namedtuple(
        "EventDescriptor",
        "id version channel level opcode task keyword",
        defaults=(0, 0, 0, 0, 0, 0),
    )
    EventDescriptor.__doc__ = """The fields of an EVENT_DESCRIPTOR.

    A named tuple rather than a frozen dataclass, measured: the trace readers make one
    per record and the decoder keys its caches by them, and a named tuple is made in
    half the time (0.48 against 1.0 us) and hashed in 40 % of it (0.07 against 0.18 us,
    as part of a key), by CPython's tuple code."""


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
    return EventDescriptor._make(_DESCRIPTOR.unpack(data))
