"""Provider traits: the blob passed to EventSetInformation(EventProviderSetTraits).

Layout: u16 total size (counting itself), the provider name as NUL-terminated UTF-8,
then traits, each ``u16 size (counting itself), u8 type, data``.  Type 1 is a provider
group, whose data is the group's GUID (``bytes_le``); type 2, which mc writes for
providers with a ``controlGuid``, carries the provider's own (decode) GUID.  ETW adds
the blob to every event and keeps it in non-paged memory; the documentation asks for
less than 256 bytes and etwmc enforces that.

Standard library only, and outside :mod:`etwmc.runtime` so that the compiler reads and
writes traits without importing the runtime package (:mod:`etwmc.runtime.traits`
re-exports both functions for generated modules and backends).
"""

from __future__ import annotations

import struct
import uuid

TRAIT_GROUP = 1
TRAIT_DECODE_GUID = 2
MAX_TRAITS_SIZE = 255


def build_traits(
    name: str, group: uuid.UUID | None = None, decode_guid: uuid.UUID | None = None
) -> bytes:
    """The traits blob for ``name`` (``""`` leaves the name out: a lone NUL) with an
    optional provider group and decode GUID, in the order mc writes them.

    Raises ``ValueError`` when the name contains NUL or the blob would reach 256 bytes.
    """
    if "\0" in name:
        raise ValueError("a provider name in traits must not contain NUL")
    body = name.encode("utf-8") + b"\0"
    if group is not None:
        body += struct.pack("<HB", 3 + 16, TRAIT_GROUP) + group.bytes_le
    if decode_guid is not None:
        body += struct.pack("<HB", 3 + 16, TRAIT_DECODE_GUID) + decode_guid.bytes_le
    size = 2 + len(body)
    if size > MAX_TRAITS_SIZE:
        raise ValueError(
            f"provider traits would be {size} bytes; keep them under 256 (shorten the name)"
        )
    return struct.pack("<H", size) + body


def parse_traits(blob: bytes) -> tuple[str, uuid.UUID | None]:
    """Inverse of :func:`build_traits`: ``(name, group)``; ``ValueError`` if malformed."""
    if len(blob) < 3:
        raise ValueError("provider traits are shorter than their 3-byte minimum")
    (size,) = struct.unpack_from("<H", blob)
    if size != len(blob):
        raise ValueError(f"provider traits say {size} bytes but hold {len(blob)}")
    end = blob.find(b"\0", 2)
    if end < 0:
        raise ValueError("provider name in traits is not NUL-terminated")
    try:
        name = blob[2:end].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"provider name in traits is not UTF-8: {exc}") from None
    group = None
    pos = end + 1
    while pos < len(blob):
        if pos + 3 > len(blob):
            raise ValueError(f"truncated trait header at offset {pos}")
        trait_size, kind = struct.unpack_from("<HB", blob, pos)
        if trait_size < 3 or pos + trait_size > len(blob):
            raise ValueError(f"trait at offset {pos} has bad size {trait_size}")
        if kind == TRAIT_GROUP:
            if trait_size != 19:
                raise ValueError(f"group trait at offset {pos} is {trait_size} bytes, not 19")
            group = uuid.UUID(bytes_le=blob[pos + 3 : pos + 19])
        pos += trait_size
    return name, group
