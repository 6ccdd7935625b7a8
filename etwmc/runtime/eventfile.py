"""Event records and etwmc's event file format.

:class:`EventRecord` carries what ETW's EVENT_RECORD carries for a manifest event: the
provider, the descriptor fields, the header's timestamp, process, thread and activity
ids, and the user data.  The in-process backend produces them; the decoder reads them.

File format (all integers little-endian)::

    header, 16 bytes:
      8   magic        b"ETWMCEV\\0"
      2   version      1
      2   header size  16 (readers skip anything beyond the fields they know)
      4   reserved     0
    then records until end of file, each:
      4   length       of the record body that follows (88 .. 88 + 65535)
      body:
        16  provider id           GUID, bytes_le
        2   event id
        1   version
        1   channel
        1   level
        1   opcode
        2   task
        8   keyword
        8   timestamp             FILETIME: 100 ns units since 1601-01-01 UTC
        4   process id
        4   thread id
        16  activity id           GUID, bytes_le (all zero when none)
        1   flags                 bit 0: a related activity id is present
        1   pointer size          4 or 8
        2   reserved              0
        16  related activity id   all zero when flag bit 0 is clear
        4   user data length      = length - 88
        n   user data

Reading is strict: a wrong magic, an unknown version, a truncated or oversized record,
an inconsistent length or an unknown flag raises :class:`EventFileError` saying what
is wrong and at which byte offset.  Nothing in a file makes the reader allocate more
than one record's bytes (at most 64 KiB of user data).
"""

from __future__ import annotations

import os
import struct
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import BinaryIO

MAGIC = b"ETWMCEV\0"
FORMAT_VERSION = 1
MAX_USER_DATA = 0xFFFF

_HEADER = struct.Struct("<8sHHI")
_LENGTH = struct.Struct("<I")
_FIXED = struct.Struct("<16sHBBBBHQQII16sBBH16sI")
FIXED_SIZE = _FIXED.size  # 88
_ZERO_GUID = bytes(16)
_FLAG_RELATED = 0x01
_CHUNK = 64 * 1024  # what EventFileWriter gathers before a write


class EventFileError(ValueError):
    """An event file is not in etwmc's format, or is damaged."""


@dataclass(frozen=True, slots=True, kw_only=True)
class EventRecord:
    """One event as a consumer sees it (the EVENT_RECORD fields etwmc keeps)."""

    provider_id: uuid.UUID
    id: int
    version: int = 0
    channel: int = 0
    level: int = 0
    opcode: int = 0
    task: int = 0
    keyword: int = 0
    timestamp: int = 0
    process_id: int = 0
    thread_id: int = 0
    activity_id: uuid.UUID = uuid.UUID(int=0)
    related_activity_id: uuid.UUID | None = None
    user_data: bytes = b""
    pointer_size: int = 8


def encode_record(record: EventRecord) -> bytes:
    """One record, length prefix included; ``ValueError`` on out-of-range fields."""
    if len(record.user_data) > MAX_USER_DATA:
        raise ValueError(
            f"user data of {len(record.user_data)} bytes exceeds the {MAX_USER_DATA}-byte limit"
        )
    if record.pointer_size not in (4, 8):
        raise ValueError(f"pointer size must be 4 or 8, not {record.pointer_size}")
    related = record.related_activity_id
    try:
        body = _FIXED.pack(
            record.provider_id.bytes_le,
            record.id,
            record.version,
            record.channel,
            record.level,
            record.opcode,
            record.task,
            record.keyword,
            record.timestamp,
            record.process_id,
            record.thread_id,
            record.activity_id.bytes_le,
            _FLAG_RELATED if related is not None else 0,
            record.pointer_size,
            0,
            related.bytes_le if related is not None else _ZERO_GUID,
            len(record.user_data),
        )
    except struct.error as exc:
        raise ValueError(f"event record field out of range: {exc}") from None
    return _LENGTH.pack(len(body) + len(record.user_data)) + body + record.user_data


def decode_record(body: bytes, offset: int = 0) -> EventRecord:
    """One record body (after its length prefix); ``offset`` only labels errors."""
    if len(body) < FIXED_SIZE:
        raise EventFileError(f"record at offset {offset} is {len(body)} bytes, need {FIXED_SIZE}")
    (
        provider,
        event_id,
        version,
        channel,
        level,
        opcode,
        task,
        keyword,
        timestamp,
        pid,
        tid,
        activity,
        flags,
        pointer_size,
        reserved,
        related,
        data_len,
    ) = _FIXED.unpack_from(body)
    if flags & ~_FLAG_RELATED:
        raise EventFileError(f"record at offset {offset} has unknown flags {flags:#x}")
    if pointer_size not in (4, 8):
        raise EventFileError(f"record at offset {offset} has pointer size {pointer_size}")
    if data_len != len(body) - FIXED_SIZE:
        raise EventFileError(
            f"record at offset {offset} says {data_len} bytes of user data "
            f"but its length leaves {len(body) - FIXED_SIZE}"
        )
    return EventRecord(
        provider_id=uuid.UUID(bytes_le=provider),
        id=event_id,
        version=version,
        channel=channel,
        level=level,
        opcode=opcode,
        task=task,
        keyword=keyword,
        timestamp=timestamp,
        process_id=pid,
        thread_id=tid,
        activity_id=uuid.UUID(bytes_le=activity),
        related_activity_id=uuid.UUID(bytes_le=related) if flags & _FLAG_RELATED else None,
        user_data=bytes(body[FIXED_SIZE:]),
        pointer_size=pointer_size,
    )


class EventFileWriter:
    """Appends records to a new event file; a context manager.

    The file is created (or truncated) when the writer opens.  Records are gathered in
    memory and written in chunks of about 64 KiB (and by :meth:`flush` and
    :meth:`close`), so that a failed write is known to cost exactly the records of its
    chunk: ``count`` is the number of records taken, ``lost`` the number the file
    refused (a full disk, say).  A failed write raises its ``OSError`` once; the records
    after it start a new chunk.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        # Unbuffered: this class does the buffering, in whole records.
        self._file: BinaryIO | None = open(path, "wb", buffering=0)  # noqa: SIM115 - closed in close()
        self._chunk: list[bytes] = [_HEADER.pack(MAGIC, FORMAT_VERSION, _HEADER.size, 0)]
        self._chunk_size = _HEADER.size
        self._chunk_records = 0
        self.count = 0
        self.lost = 0

    def write(self, record: EventRecord) -> None:
        if self._file is None:
            raise ValueError("the event file is closed")
        data = encode_record(record)
        self._chunk.append(data)
        self._chunk_size += len(data)
        self._chunk_records += 1
        self.count += 1
        if self._chunk_size >= _CHUNK:
            self.flush()

    def flush(self) -> None:
        """Write the gathered records; ``OSError`` when the file refuses them (they are
        counted in ``lost``)."""
        if self._file is None or not self._chunk:
            return
        data = b"".join(self._chunk)
        records = self._chunk_records
        self._chunk, self._chunk_size, self._chunk_records = [], 0, 0
        view = memoryview(data)
        try:
            while view:  # a raw write may take part of the data
                written = self._file.write(view)
                if not written:
                    raise OSError(f"the event file took no more bytes ({len(view)} left)")
                view = view[written:]
        except OSError:
            self.lost += records
            raise

    def close(self) -> None:
        """Write what is gathered and close (idempotent); ``OSError`` as :meth:`flush`."""
        if self._file is None:
            return
        try:
            self.flush()
        finally:
            self._file.close()
            self._file = None

    def __enter__(self) -> EventFileWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def write_events(path: str | os.PathLike[str], records: Iterable[EventRecord]) -> int:
    """Write ``records`` to a new event file at ``path``; returns how many."""
    with EventFileWriter(path) as writer:
        for record in records:
            writer.write(record)
    return writer.count


def read_events(path: str | os.PathLike[str]) -> Iterator[EventRecord]:
    """Yield the records of the event file at ``path``, in order.

    Raises :class:`EventFileError` (a ``ValueError``) for anything that is not a whole,
    well-formed file, and ``OSError`` when the file cannot be read.
    """
    with open(path, "rb") as f:
        yield from iter_events(f)


def iter_events(f: BinaryIO) -> Iterator[EventRecord]:
    """Like :func:`read_events`, over an open binary stream."""
    header = f.read(_HEADER.size)
    if header[: len(MAGIC)] != MAGIC[: len(header)]:
        raise EventFileError("not an etwmc event file (bad magic)")
    if len(header) < _HEADER.size:
        raise EventFileError(f"truncated event file header: {len(header)} of {_HEADER.size} bytes")
    _magic, version, header_size, _reserved = _HEADER.unpack(header)
    if version != FORMAT_VERSION:
        raise EventFileError(
            f"event file format version {version} is not supported (this reader knows "
            f"{FORMAT_VERSION})"
        )
    if header_size < _HEADER.size or header_size > 4096:
        raise EventFileError(f"event file header size {header_size} is out of range")
    extra = header_size - _HEADER.size
    if extra and len(f.read(extra)) != extra:
        raise EventFileError("truncated event file header")
    offset = header_size
    while True:
        prefix = f.read(_LENGTH.size)
        if not prefix:
            return
        if len(prefix) < _LENGTH.size:
            raise EventFileError(f"truncated record length at offset {offset}")
        (length,) = _LENGTH.unpack(prefix)
        if not FIXED_SIZE <= length <= FIXED_SIZE + MAX_USER_DATA:
            raise EventFileError(
                f"record at offset {offset} has length {length}; records are "
                f"{FIXED_SIZE}..{FIXED_SIZE + MAX_USER_DATA} bytes"
            )
        body = f.read(length)
        if len(body) < length:
            raise EventFileError(
                f"truncated record at offset {offset}: need {length} bytes, have {len(body)}"
            )
        yield decode_record(body, offset)
        offset += _LENGTH.size + length
