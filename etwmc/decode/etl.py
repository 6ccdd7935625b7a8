"""Read ``.etl`` trace files: the file header, the buffers, the records, streamed.

Everything is read here, with ``struct``: the file header, the buffers (decompressed
by :mod:`etwmc.decode.lzxpress`, which bounds its output) and the records; kernel
records are named by the table of :mod:`etwmc.decode.kernel`.

Layout (little-endian).  A file is a chain of buffers; each starts with a 0x48-byte
header: BufferSize u32 at 0, FilledBytes u32 at 0x30, flags u16 at 0x34 (0x40 =
compressed: BufferSize bytes hold FilledBytes - 0x48 bytes of LZXpress data).  Records
follow the header, each 8-byte aligned, until FilledBytes or a marker of 0xFFFFFFFF.
A record's first u32 is its marker: the top byte holds flags (0xC0 for every record
below, 0x9x for trace messages), the next byte the header type:

- 0x12/0x13: EVENT_HEADER (0x50 bytes; 32-/64-bit pointers) of manifest-based,
  EventSource and TraceLogging events: size u16, flags u16 at 4, thread and process
  ids, time u64 at 0x10, provider GUID at 0x18, the event descriptor at 0x28, activity
  id at 0x40; when ``flags & 1`` extended-data items follow (u16 total size, u16 type,
  u16 linkage with bit 0 = another follows, u16 data size, data padded to 8 bytes),
  then the user data;
- 0x01/0x02, 0x03/0x04, 0x10/0x11: kernel system, compact and perf-info headers (size
  u16 at 4, opcode byte at 6, group byte at 7; 8 more header bytes per extension
  counted in marker bits 8-10, and 8 when bit 15 is set);
- 0x0A/0x14 and 0x0B/0x15: EVENT_TRACE_HEADER and EVENT_INSTANCE_GUID_HEADER of classic
  (MOF) providers: size u16, opcode, level and version at 4, GUID at 0x18.

The file header is the first record of the first buffer: a kernel record of hook id 0
(group 0, opcode 0) whose time (u64 at 0x10 of its header) is the clock's tick at the
start, and whose payload is a TRACE_LOGFILE_HEADER.  Its fields, by payload offset
(P is the pointer size, 8 for header type 0x02 and 4 for 0x01):

- 0x24 BuffersWritten u32, 0x2C PointerSize u32, 0x34 CpuSpeedInMHz u32;
- 0x38 two pointers (LoggerName, LogFileName; their values mean nothing in a file),
  then a 0xAC-byte TIME_ZONE_INFORMATION, then 4 bytes of alignment;
- at 0x38 + 2P + 0xB0: BootTime u64, PerfFreq u64, StartTime u64 (FILETIME),
  ReservedFlags u32 (the clock: 1 performance counter, 2 system time, 3 CPU cycles),
  BuffersLost u32; 0x118 bytes in all for P = 8, 0x110 for P = 4;
- then the logger's name and the log file's name, NUL-terminated UTF-16.

A record's time is ``StartTime + (ticks - start ticks) * 10**7 / frequency``, where the
frequency is PerfFreq for clock 1, CpuSpeedInMHz * 10**6 for clock 3, and 10**7 (ticks
are FILETIME units) otherwise.
"""

from __future__ import annotations

import io
import os
import struct
import uuid
from collections.abc import Iterator
from typing import BinaryIO, NamedTuple

from .. import record
from ..eventdescriptor import EventDescriptor
from ..payloadvalues import utf16_end
from .kernel import group_guid
from .lzxpress import LzxpressError, decompress

BUFFER_HEADER = 0x48
MAX_BUFFER = 16 << 20  # ETW's largest buffer size; a larger claim is a damaged header
COMPRESSED = 0x40

EVENT_HEADER_32 = 0x12
EVENT_HEADER_64 = 0x13
EXT_RELATED_ACTIVITY = 1
EXT_TRACELOGGING_SCHEMA = 11
EXT_PROVIDER_TRAITS = 12

_BUFFER = struct.Struct("<I44xI")  # BufferSize, FilledBytes
_FLAGS = struct.Struct("<H")
_EVENT = struct.Struct("<4xHxxIIQ16sHBBBBHQ8x16s")
_EXT = struct.Struct("<2xHHH")
_SYSTEM = struct.Struct("<HHHBBIIQ")  # version, marker, size, opcode, group, tid, pid, time
# a kernel record's header as its walk reads it: the version's low byte, size, hook id
# (opcode | group << 8), thread and process ids (not in a perf-info header) and time
_SYSTEM_KIND = struct.Struct("<B3xHHIIQ")
_PERFINFO_KIND = struct.Struct("<B3xHHQ")
_CLASSIC = struct.Struct("<HHBBHIIQ16s")  # size, marker, opcode, level, version, ids, time, guid
_MESSAGE = struct.Struct("<HHHH")
_U32 = struct.Struct("<I").unpack_from
_U64 = struct.Struct("<Q").unpack_from

# header type -> bytes before the payload (system headers may add extensions)
_SYSTEM_TYPES = {0x01: 0x20, 0x02: 0x20, 0x03: 0x18, 0x04: 0x18, 0x10: 0x10, 0x11: 0x10}
_SYSTEM_64 = frozenset({0x02, 0x04, 0x11})
# (marker >> 8) & 0xC0FF87: the flags' top two bits, the header type, the extension
# count and bit 15 -> (header size, pointer size, perf-info header)
_SYSTEM_LAYOUTS = {
    0xC00000 | kind << 8 | big | ext: (
        size + 8 * ext + (8 if big else 0),
        8 if kind in _SYSTEM_64 else 4,
        kind >= 0x10,
    )
    for kind, size in _SYSTEM_TYPES.items()
    for ext in range(8)
    for big in (0, 0x80)
}
_CLASSIC_TYPES = {0x0A: 0x30, 0x14: 0x30, 0x0B: 0x48, 0x15: 0x48}
_NO_GUID = b""
_new = tuple.__new__


class TraceError(ValueError):
    """The trace is unreadable at ``offset`` (a byte offset in the file)."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(f"at byte offset {offset}: {message}")
        self.offset = offset
        self.reason = message


class Record(NamedTuple):
    """One event record, as it is in the file (no metadata applied).

    A NamedTuple, measured: one is made here for each of a trace's events, and
    ``tuple.__new__`` makes a tuple of this size in a sixth of a frozen, slotted
    dataclass's ``__init__`` (0.2 against 1.4 us)."""

    offset: int  # file offset of the record, or of its buffer when compressed
    classic: bool  # True for kernel and MOF records, False for EVENT_HEADER events
    provider: bytes  # GUID in Windows byte order (UUID bytes_le), b"" when none
    descriptor: EventDescriptor
    time: int | None  # FILETIME (100 ns since 1601, UTC)
    pid: int | None
    tid: int | None
    activity: bytes  # 16 bytes, or b""
    related: bytes  # 16 bytes, or b""
    schema: bytes  # TraceLogging event metadata (extended item 11), or b""
    traits: bytes  # provider traits (extended item 12), or b""
    data: bytes  # the user data (payload)
    pointer_size: int


# A kernel record's version << 16 | group << 8 | opcode (its hook id and header
# version), or a classic record's (provider GUID, opcode, level, version).
PassKind = int | tuple[bytes, int, int, int]


class PassRecord(NamedTuple):
    """A record that passes through undecoded (a kernel or classic MOF record), without
    its payload: what :meth:`EtlReader.walk` yields for them.  Its ``kind`` says which
    provider and descriptor it has (:func:`pass_kind`), so that a reader of many works
    them out once per kind."""

    kind: PassKind
    time: int  # FILETIME (100 ns since 1601, UTC)
    pid: int | None
    tid: int | None


def pass_kind(kind: PassKind) -> tuple[bytes, EventDescriptor]:
    """The provider GUID (Windows byte order) and descriptor of a pass record's kind."""
    if isinstance(kind, int):
        return _kernel_kind(kind >> 8 & 0xFF, kind & 0xFF, kind >> 16)
    guid, opcode, level, version = kind
    return guid, EventDescriptor(0, version, 0, level, opcode)


class TraceInfo(record.Record):
    """What the trace's file header says."""

    pointer_size: int
    buffers: int
    logger_name: str
    start_time: int  # FILETIME
    clock: int  # 1 performance counter, 2 system time, 3 CPU cycles
    frequency: int  # ticks per second of the clock
    base: int  # FILETIME of tick 0


_LOGFILE_COUNTS = struct.Struct("<36xI4xI4xI")  # BuffersWritten, PointerSize, CpuSpeedInMHz
_LOGFILE_CLOCK = struct.Struct("<8xQQI")  # (BootTime) PerfFreq, StartTime, ReservedFlags
_TIME_ZONE = 0xAC + 4  # TIME_ZONE_INFORMATION and the alignment after it


def read_info(head: bytes) -> TraceInfo:
    """Read the file header record from the first buffer (``head``: its first bytes,
    the buffer header included); :class:`TraceError` names what does not fit."""
    pos = BUFFER_HEADER
    if len(head) < pos + 0x18:
        raise TraceError(pos, "the first buffer ends before the file header record")
    marker = _U32(head, pos)[0]
    layout = _SYSTEM_LAYOUTS.get((marker >> 8) & 0xC0FF87)
    _, _, size, opcode, group, _, _, ticks = _SYSTEM.unpack_from(head, pos)
    if layout is None or layout[2] or opcode or group:
        raise TraceError(pos, f"0x{marker:08X} does not start a file header record")
    header, pointer, _ = layout
    clock_at = pos + header + 0x38 + 2 * pointer + _TIME_ZONE
    if size < clock_at + _LOGFILE_CLOCK.size - pos or pos + size > len(head):
        raise TraceError(pos, f"the file header record's size {size} cannot hold its fields")
    buffers, pointer_size, mhz = _LOGFILE_COUNTS.unpack_from(head, pos + header)
    perf, start, clock = _LOGFILE_CLOCK.unpack_from(head, clock_at)
    if pointer_size not in (4, 8):
        raise TraceError(pos + header + 0x2C, f"pointer size {pointer_size} is neither 4 nor 8")
    name_at = clock_at + _LOGFILE_CLOCK.size + 4
    names = head[name_at : pos + size]
    end = utf16_end(names, 0)
    name = names[:end].decode("utf-16-le", "replace") if end >= 0 else ""
    if clock == 1 and perf > 0:
        frequency = perf
    elif clock == 3 and mhz > 0:
        frequency = mhz * 1_000_000
    else:
        clock, frequency = 2, 10_000_000
    base = start - ticks * 10_000_000 // frequency
    return TraceInfo(pointer_size, buffers, name, start, clock, frequency, base)


class EtlReader:
    """Iterate over a trace's records; the file is read one buffer at a time.

    ``position`` is the file offset reached (for progress), ``size`` the file size.
    Iteration raises :class:`TraceError` at the first malformed buffer or record."""

    def __init__(self, f: BinaryIO) -> None:
        self._f = f
        f.seek(0, io.SEEK_END)
        self.size = f.tell()
        f.seek(0)
        if self.size < BUFFER_HEADER:
            raise TraceError(0, f"the file holds {self.size} bytes, less than one buffer header")
        head = f.read(BUFFER_HEADER)
        f.seek(0)
        # ETW writes the header buffer plain
        if _FLAGS.unpack_from(head, 0x34)[0] & COMPRESSED:
            raise TraceError(0x34, "the file's header buffer claims to be compressed")
        size, filled = _BUFFER.unpack_from(head)
        if not BUFFER_HEADER <= filled <= min(size, MAX_BUFFER):
            raise TraceError(0x30, f"the header buffer's fill {filled} is impossible")
        self.info = read_info(f.read(filled))
        f.seek(0)
        self.position = 0
        self.buffers = 0
        self._base = self.info.base
        self._frequency = self.info.frequency

    def _time(self, ticks: int) -> int:
        return self._base + ticks * 10_000_000 // self._frequency

    def __iter__(self) -> Iterator[Record]:
        return self._walk(light=False)  # type: ignore[return-value]

    def walk(self) -> Iterator[Record | PassRecord]:
        """The records, the kernel and classic MOF records as :class:`PassRecord`:
        without a payload sliced and a whole :class:`Record` made for each, most of a
        trace costs a third less to read."""
        return self._walk(light=True)

    def _walk(self, light: bool) -> Iterator[Record | PassRecord]:
        f = self._f
        f.seek(0)
        offset = 0
        while offset < self.size:
            head = f.read(BUFFER_HEADER)
            if len(head) < BUFFER_HEADER:
                raise TraceError(offset, "the file ends inside a buffer header (truncated)")
            size, filled = _BUFFER.unpack_from(head)
            flags = _FLAGS.unpack_from(head, 0x34)[0]
            if not BUFFER_HEADER <= size <= MAX_BUFFER:
                raise TraceError(offset, f"buffer size {size} is impossible")
            if not BUFFER_HEADER <= filled <= MAX_BUFFER:
                raise TraceError(offset, f"buffer fill {filled} is impossible")
            body = f.read(size - BUFFER_HEADER)
            if len(body) < size - BUFFER_HEADER:
                raise TraceError(offset, f"the file ends inside a {size}-byte buffer (truncated)")
            if flags & COMPRESSED:
                try:
                    data = decompress(body, filled - BUFFER_HEADER)
                except LzxpressError as e:
                    raise TraceError(
                        offset + BUFFER_HEADER + e.offset, f"compressed buffer: {e}"
                    ) from None
                yield from self._records(data, offset, True, light)
            else:
                if filled > size:
                    raise TraceError(offset, f"buffer fill {filled} exceeds its size {size}")
                yield from self._records(body[: filled - BUFFER_HEADER], offset, False, light)
            offset += size
            self.position = offset
            self.buffers += 1
        if self.info.buffers and self.buffers < self.info.buffers:
            raise TraceError(
                self.size,
                f"the header announces {self.info.buffers} buffers, the file holds "
                f"{self.buffers} (truncated)",
            )

    def _records(
        self, data: bytes, buffer: int, compressed: bool, light: bool
    ) -> Iterator[Record | PassRecord]:
        pos = 0
        end = len(data)
        # Kernel (system) records are most of a trace: they are read here, not in a
        # method of their own, their records are made without NamedTuple's keyword
        # handling, and their file offset is worked out only for an error or a whole
        # Record (this loop runs once per record).
        base = self._base
        frequency = self._frequency
        while pos + 4 <= end:
            marker = _U32(data, pos)[0]
            if marker == 0xFFFFFFFF:
                return  # padding: the rest of the buffer is empty
            layout = _SYSTEM_LAYOUTS.get((marker >> 8) & 0xC0FF87)
            if layout is not None:  # a kernel record
                head, ptr, perfinfo = layout
                tid: int | None
                pid: int | None
                if perfinfo and pos + 0x10 <= end:  # no thread or process ids
                    version, size, hook, t = _PERFINFO_KIND.unpack_from(data, pos)
                    tid = pid = None
                elif not perfinfo and pos + 0x18 <= end:
                    version, size, hook, tid, pid, t = _SYSTEM_KIND.unpack_from(data, pos)
                else:  # too short for its header, so for any size it claims
                    size = _FLAGS.unpack_from(data, pos + 4)[0] if pos + 6 <= end else 0
                    raise _misfit(size, head, _at(buffer, compressed, pos))
                if size < head or pos + size > end:
                    raise _misfit(size, head, _at(buffer, compressed, pos))
                time = base + t * 10_000_000 // frequency
                if light:
                    yield _new(PassRecord, (version << 16 | hook, time, pid, tid))
                else:
                    provider, descriptor = pass_kind(version << 16 | hook)
                    yield _plain_record(
                        _at(buffer, compressed, pos), provider, descriptor, time, pid, tid,
                        data[pos + head : pos + size], ptr,
                    )  # fmt: skip
                pos += (size + 7) & ~7
                continue
            at = _at(buffer, compressed, pos)
            flags = marker >> 24
            kind = (marker >> 16) & 0xFF
            if flags & 0xC0 == 0xC0:
                if kind in (EVENT_HEADER_32, EVENT_HEADER_64):
                    size = marker & 0xFFFF
                    if size < 0x50 or pos + size > end:
                        raise _misfit(size, 0x50, at)
                    yield self._event(data, pos, size, at, 4 if kind == EVENT_HEADER_32 else 8)
                elif kind in _CLASSIC_TYPES:
                    size = marker & 0xFFFF
                    _check(size, _CLASSIC_TYPES[kind], pos, end, at)
                    if light:
                        yield self._classic_pass(data, pos)
                    else:
                        yield self._classic(data, pos, size, _CLASSIC_TYPES[kind], at)
                else:
                    raise TraceError(at, f"record header type 0x{kind:02X} is unknown")
            elif flags & 0xF0 == 0x90:
                size = marker & 0xFFFF
                _check(size, 8, pos, end, at)
                yield self._message(data, pos, size, at)
            else:
                raise TraceError(at, f"0x{marker:08X} is no record marker")
            pos += (size + 7) & ~7

    def _event(self, data: bytes, pos: int, size: int, at: int, ptr: int) -> Record:
        (flags, tid, pid, t, guid, eid, ver, chan, lvl, op, task, kw, act) = _EVENT.unpack_from(
            data, pos
        )
        body = pos + 0x50
        stop = pos + size
        related = schema = traits = _NO_GUID
        if flags & 1:
            more = True
            while more:
                if body + 8 > stop:
                    raise TraceError(at, "an extended-data item runs past its record")
                ext_type, linkage, length = _EXT.unpack_from(data, body)
                item = data[body + 8 : body + 8 + length]
                body += 8 + ((length + 7) & ~7)
                if body > stop:
                    raise TraceError(at, "an extended-data item runs past its record")
                more = bool(linkage & 1)
                if ext_type == EXT_RELATED_ACTIVITY and length >= 16:
                    related = item[:16]
                elif ext_type == EXT_TRACELOGGING_SCHEMA:
                    schema = item
                elif ext_type == EXT_PROVIDER_TRAITS:
                    traits = item
        return _new(
            Record,
            (
                at,
                False,
                guid,
                _new(EventDescriptor, (eid, ver, chan, lvl, op, task, kw)),
                self._time(t),
                pid,
                tid,
                act,
                related,
                schema,
                traits,
                data[body:stop],
                ptr,
            ),
        )

    def _classic_pass(self, data: bytes, pos: int) -> PassRecord:
        _, _, opcode, level, version, tid, pid, t, guid = _CLASSIC.unpack_from(data, pos)
        return _new(PassRecord, ((guid, opcode, level, version & 0xFF), self._time(t), pid, tid))

    def _classic(self, data: bytes, pos: int, size: int, head: int, at: int) -> Record:
        kind, time, pid, tid = self._classic_pass(data, pos)
        provider, descriptor = pass_kind(kind)
        ptr = 8 if (data[pos + 2] in (0x14, 0x15)) else 4
        return _plain_record(
            at, provider, descriptor, time, pid, tid, data[pos + head : pos + size], ptr
        )

    def _message(self, data: bytes, pos: int, size: int, at: int) -> Record:
        """A trace message (WPP): optional sequence, GUID, time and ids after 8 bytes."""
        _, _, mid, props = _MESSAGE.unpack_from(data, pos)
        p = pos + 8
        stop = pos + size
        guid = _NO_GUID
        t: int | None = None
        tid = pid = None
        if props & 0x01 and p + 4 <= stop:
            p += 4
        if props & 0x06 == 0x02 and p + 16 <= stop:
            guid = data[p : p + 16]
            p += 16
        if props & 0x08 and p + 8 <= stop:
            t = self._time(_U64(data, p)[0])
            p += 8
        if props & 0x20 and p + 8 <= stop:
            tid, pid = struct.unpack_from("<II", data, p)
            p += 8
        return _plain_record(at, guid, EventDescriptor(mid), t, pid, tid, data[p:stop], 8)


def _plain_record(
    at: int,
    provider: bytes,
    descriptor: EventDescriptor,
    time: int | None,
    pid: int | None,
    tid: int | None,
    data: bytes,
    pointer_size: int,
) -> Record:
    """A classic (kernel, MOF or trace message) record: no activity ids, schema or
    traits."""
    return _new(
        Record,
        (at, True, provider, descriptor, time, pid, tid, _NO_GUID, _NO_GUID, _NO_GUID,
         _NO_GUID, data, pointer_size),
    )  # fmt: skip


def _kernel_kind(group: int, opcode: int, version: int) -> tuple[bytes, EventDescriptor]:
    """The provider GUID and descriptor of a kernel record (its event group's GUID, the
    hook's opcode, the header's version)."""
    return group_guid(group, opcode), EventDescriptor(0, version, 0, 0, opcode)


def _at(buffer: int, compressed: bool, pos: int) -> int:
    """The file offset of the record at ``pos`` of a buffer's data: of the buffer when
    compressed (the record's own offset is in no file)."""
    return buffer if compressed else buffer + BUFFER_HEADER + pos


def _check(size: int, head: int, pos: int, end: int, at: int) -> None:
    """Raise the error of a record whose size does not fit."""
    if size < head or pos + size > end:
        raise _misfit(size, head, at)


def _misfit(size: int, head: int, at: int) -> TraceError:
    """The error of a record whose size is below its header's or past its buffer."""
    if size < head:
        return TraceError(at, f"record size {size} is smaller than its {head}-byte header")
    return TraceError(at, f"a {size}-byte record runs past the end of its buffer")


def guid_text(raw: bytes) -> str:
    """A GUID in Windows byte order as lower-case text without braces."""
    return str(uuid.UUID(bytes_le=raw))


def open_trace(path: str | os.PathLike[str]) -> tuple[BinaryIO, EtlReader]:
    """Open a trace file and read its header (the caller closes the file)."""
    f = open(path, "rb")  # noqa: SIM115 - returned to the caller, who closes it
    try:
        return f, EtlReader(f)
    except BaseException:
        f.close()
        raise
