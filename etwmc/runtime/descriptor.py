"""EVENT_DESCRIPTOR packing for generated modules: see :mod:`etwmc.eventdescriptor`.

Generated provider modules pack each event's descriptor once, at import time, and
hand the same ``bytes`` object to every write.
"""

from __future__ import annotations

from ..eventdescriptor import DESCRIPTOR_SIZE, EventDescriptor, pack_descriptor, unpack_descriptor

__all__ = ["DESCRIPTOR_SIZE", "EventDescriptor", "pack_descriptor", "unpack_descriptor"]
