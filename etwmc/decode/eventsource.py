"""EventSource providers write their own manifest into the trace.

.NET's EventSource logs event id 0xFFFE with opcode 254 when a session enables it; the
payload is an 8-byte envelope followed by one chunk of the manifest's XML (UTF-8):

====  ====  =========================================================
0     u8    format (1 = the XML text of an instrumentation manifest)
1     u8    major version
2     u8    minor version
3     u8    magic, always 0x5B
4     u16   number of chunks
6     u16   this chunk's number, from 0
====  ====  =========================================================

:class:`ManifestCollector` joins the chunks of each provider; the joined text is
checked and lowered by etwmc's own pipeline (:mod:`etwmc.validate`) into the model
every other decoder uses.
"""

from __future__ import annotations

import hashlib
import struct
from typing import Any

from ..record import Record

MANIFEST_EVENT_ID = 0xFFFE
MANIFEST_OPCODE = 254
MAGIC = 0x5B
FORMAT_XML = 1
# A real EventSource manifest is tens of kilobytes (.NET's largest in the shared traces:
# 50 KB); compiling one costs about 10 s per megabyte, so these bound the work too.
MAX_MANIFEST = 1 << 20  # bytes one manifest may take
MAX_PENDING = 8 << 20  # chunks held for all unfinished manifests together

_ENVELOPE = struct.Struct("<BBBBHH")


class EnvelopeError(ValueError):
    """A manifest event's payload is no manifest envelope."""


class Envelope(Record):
    format: int
    major: int
    minor: int
    total: int
    number: int
    chunk: bytes

    def fields(self) -> dict[str, Any]:
        """The envelope as an event's fields (the chunk as text)."""
        return {
            "Format": self.format,
            "MajorVersion": self.major,
            "MinorVersion": self.minor,
            "Magic": MAGIC,
            "TotalChunks": self.total,
            "ChunkNumber": self.number,
            "Data": self.chunk.decode("utf-8", errors="replace"),
        }


def is_manifest_event(event_id: int, opcode: int) -> bool:
    return event_id == MANIFEST_EVENT_ID and opcode == MANIFEST_OPCODE


def parse_envelope(data: bytes) -> Envelope:
    if len(data) < _ENVELOPE.size:
        raise EnvelopeError(f"the payload holds {len(data)} bytes, less than an envelope")
    fmt, major, minor, magic, total, number = _ENVELOPE.unpack_from(data)
    if magic != MAGIC:
        raise EnvelopeError(f"the envelope's magic is 0x{magic:02X}, not 0x{MAGIC:02X}")
    if fmt != FORMAT_XML:
        raise EnvelopeError(f"manifest format {fmt} is unknown (1 is XML)")
    if not number < total:
        raise EnvelopeError(f"chunk {number} of {total} is impossible")
    return Envelope(fmt, major, minor, total, number, bytes(data[_ENVELOPE.size :]))


_Source = tuple[bytes, int | None, int | None]  # provider GUID bytes, process, thread


class ManifestCollector:
    """Joins manifest chunks per provider, process and thread, as PerfView does: two
    processes (or threads) writing the same provider's manifest at once interleave their
    chunks, and each sequence is joined on its own.

    :meth:`add` returns the whole manifest when its last missing chunk arrives, and
    ``None`` before; a chunk 0, or a different chunk count, starts over.  A manifest the
    collector has returned before for the provider is not returned again."""

    def __init__(self) -> None:
        self._parts: dict[_Source, tuple[int, dict[int, bytes], int]] = {}
        self._seen: set[tuple[bytes, bytes]] = set()  # (provider, SHA-256 of the text)
        self._held = 0  # bytes of chunks held, all sources

    def _drop(self, source: _Source) -> None:
        parts = self._parts.pop(source, None)
        if parts is not None:
            self._held -= parts[2]

    def add(
        self, provider: bytes, writer: tuple[int | None, int | None], env: Envelope
    ) -> bytes | None:
        """Add a chunk of ``provider``'s manifest written by ``writer`` (process and
        thread id)."""
        source = (provider, *writer)
        total, chunks, size = self._parts.get(source, (env.total, {}, 0))
        if env.number == 0 or total != env.total:
            self._drop(source)
            total, chunks, size = env.total, {}, 0
        if env.number not in chunks:
            if size + len(env.chunk) > MAX_MANIFEST:
                self._drop(source)
                raise EnvelopeError(f"the manifest grows beyond {MAX_MANIFEST} bytes")
            if self._held + len(env.chunk) > MAX_PENDING:
                self._parts.clear()
                self._held = 0
                raise EnvelopeError(f"unfinished manifests hold more than {MAX_PENDING} bytes")
            size += len(env.chunk)
            self._held += len(env.chunk)
            chunks[env.number] = env.chunk
        if len(chunks) < total:
            self._parts[source] = (total, chunks, size)
            return None
        self._drop(source)
        xml = b"".join(chunks[i] for i in range(total))
        key = (provider, hashlib.sha256(xml).digest())
        if key in self._seen:
            return None
        self._seen.add(key)
        return xml
