"""The kernel's event groups: which event class (GUID) a kernel record belongs to.

A kernel (system) record names no provider; its hook id does: the group in the high
byte, the opcode in the low byte.  The classes below are the ones Windows' own
documentation lists for the NT Kernel Logger (``Process``, ``Thread``, ``DiskIo``...);
decoders show a kernel record under its class's GUID.  One exception is historical: the
process group's opcode 10 is an image load (Windows XP logged image loads there), so it
belongs to the ``ImageLoad`` class.  A group not in the table has no class (the nil
GUID).
"""

from __future__ import annotations

import uuid
from typing import Final

# group number -> (class name, class GUID)
GROUPS: Final[dict[int, tuple[str, str]]] = {
    0x00: ("EventTrace", "68fdd900-4a3e-11d1-84f4-0000f80464e3"),
    0x01: ("DiskIo", "3d6fa8d4-fe05-11d0-9dda-00c04fd7ba7c"),
    0x02: ("PageFault", "3d6fa8d3-fe05-11d0-9dda-00c04fd7ba7c"),
    0x03: ("Process", "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c"),
    0x04: ("FileIo", "90cbdc39-4a3e-11d1-84f4-0000f80464e3"),
    0x05: ("Thread", "3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c"),
    0x06: ("TcpIp", "9a280ac0-c8e0-11d1-84e2-00c04fb998a2"),
    0x07: ("Job", "3282fc76-feed-498e-8aa7-e70f459d430e"),
    0x08: ("UdpIp", "bf3a50c5-a9c9-4988-a005-2df0b7c80f80"),
    0x09: ("Registry", "ae53722e-c863-11d2-8659-00c04fa321a1"),
    0x0A: ("DbgPrint", "13976d09-a327-438c-950b-7f03192815c7"),
    0x0B: ("EventTraceConfig", "01853a65-418f-4f36-aefc-dc0f1d2fd235"),
    0x0C: ("Spare1", "99134383-5248-43fc-834b-529454e75df3"),
    0x0D: ("Wnf", "42695762-ea50-497a-9068-5cbbb35e0b95"),
    0x0E: ("Pool", "0268a8b6-74fd-4302-9dd0-6e8f1795c0cf"),
    0x0F: ("PerfInfo", "ce1dbfb4-137e-4da6-87b0-3f59aa102cbc"),
    0x10: ("Heap", "222962ab-6180-4b88-a825-346b75f2a24a"),
    0x11: ("Object", "89497f50-effe-4440-8cf2-ce6b1cdcaca7"),
    0x12: ("Power", "e43445e0-0903-48c3-b878-ff0fccebdd04"),
    0x13: ("ModBound", "a9152f00-3f58-4bee-92a1-70c7d079d5dd"),
    0x14: ("ImageLoad", "2cb15d1d-5fc1-11d2-abe1-00a0c911f518"),
    0x15: ("Dpc", "b2d14872-7c5b-463d-8419-ee9bf7d23e04"),
    0x16: ("CcGuid", "7687a439-f752-45b8-b741-321aec0f8df9"),
    0x17: ("CritSec", "3ac66736-cc59-4cff-8115-8df50e39816b"),
    0x18: ("StackWalk", "def2fe46-7bd6-4b80-bd94-f57fe20d0ce3"),
    0x19: ("Ums", "9aec974b-5b8e-4118-9b92-3186d8002ce5"),
    0x1A: ("ALPC", "45d8cccd-539f-4b72-a8b7-5c683142609a"),
    0x1B: ("SplitIo", "d837ca92-12b9-44a5-ad6a-3a65b3578aa8"),
    0x1C: ("ThreadPool", "c861d0e2-a2c1-4d36-9f9c-970bab943a12"),
    0x1D: ("Hypervisor", "7f2a405c-69b5-4bf9-a1f5-30e8f1afab5e"),
    0x1E: ("HypervisorX", "2ce9a149-effe-42f0-a635-a1d39e26c8f2"),
}
PROCESS_GROUP: Final = 0x03
IMAGE_LOAD_OPCODE: Final = 10  # in the process group: an image load
IMAGE_GROUP: Final = 0x14
NIL: Final = bytes(16)

_BY_GROUP: Final[dict[int, bytes]] = {
    group: uuid.UUID(guid).bytes_le for group, (_, guid) in GROUPS.items()
}


def group_guid(group: int, opcode: int) -> bytes:
    """The event class of a kernel record's hook id, in Windows byte order (the nil GUID
    for a group without a class)."""
    if group == PROCESS_GROUP and opcode == IMAGE_LOAD_OPCODE:
        group = IMAGE_GROUP
    return _BY_GROUP.get(group, NIL)
