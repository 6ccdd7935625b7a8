"""What ``etwmc decode`` reads: an ``.etl`` trace or an event file written by etwmc's
runtime, both as the same :class:`~etwmc.decode.etl.Record` stream.

:func:`open_source` tells them apart by their first bytes (an event file starts with
its magic; a trace with the file header's kernel record), so either decodes through one
path: the same JSON Lines, ``--format``, ``--summary``, ``--provider`` and ``-o``.
An event file's records are manifest-based events (its descriptor, times, ids and
payload as the runtime wrote them); a damaged one ends in :class:`TraceError` at the
byte offset reached, as a damaged trace does.
"""

from __future__ import annotations

import io
import os
import uuid
from collections.abc import Iterator
from typing import BinaryIO, Protocol

from ..inputs import open_input
from ..runtime.eventfile import MAGIC, EventFileError, iter_events
from .etl import EtlReader, PassRecord, Record, TraceError

_NIL = uuid.UUID(int=0)


class EventFileDamaged(TraceError):
    """An event file is not in etwmc's format, or is damaged, at ``offset``."""


class RecordSource(Protocol):
    """A reader of records: ``size`` of the input, ``position`` reached (progress)."""

    size: int
    position: int

    def __iter__(self) -> Iterator[Record]: ...

    def walk(self) -> Iterator[Record | PassRecord]:
        """The records, kernel and classic MOF records as
        :class:`~etwmc.decode.etl.PassRecord`."""
        ...


class EventFileReader:
    """The records of an etwmc event file, as a trace's records."""

    def __init__(self, f: BinaryIO) -> None:
        self._f = f
        f.seek(0, io.SEEK_END)
        self.size = f.tell()
        f.seek(0)
        self.position = 0

    def __iter__(self) -> Iterator[Record]:
        f = self._f
        f.seek(0)
        try:
            for rec in iter_events(f):
                self.position = f.tell()
                related = rec.related_activity_id
                yield Record(
                    offset=self.position,
                    classic=False,
                    provider=rec.provider_id.bytes_le,
                    descriptor=rec.descriptor,
                    time=rec.timestamp,
                    pid=rec.process_id,
                    tid=rec.thread_id,
                    activity=b"" if rec.activity_id == _NIL else rec.activity_id.bytes_le,
                    related=b"" if related is None else related.bytes_le,
                    schema=b"",
                    traits=b"",
                    data=rec.user_data,
                    pointer_size=rec.pointer_size,
                )
        except EventFileError as e:
            raise EventFileDamaged(f.tell(), str(e)) from None

    def walk(self) -> Iterator[Record]:
        """The records (an event file holds no kernel records)."""
        return iter(self)


def is_trace(head: bytes, path: str) -> bool:
    """Whether an input starting with ``head`` (its first 0x50 bytes) is a trace: it
    starts with the file header's kernel record, or it is named ``.etl`` and is no
    event file."""
    if head.startswith(MAGIC):
        return False
    looks = len(head) >= 0x4C and head[0x4B] == 0xC0 and head[0x4A] in (1, 2)
    return looks or path.lower().endswith(".etl")


def open_source(path: str | os.PathLike[str]) -> tuple[BinaryIO, RecordSource]:
    """Open an input as every command opens one (a FIFO or a folder is a usage error),
    and its reader; the caller closes the file.  :class:`TraceError` when a trace's
    header is unreadable."""
    f = open_input(path)
    try:
        head = f.read(0x50)
        f.seek(0)
        reader: RecordSource
        if is_trace(head, os.fspath(path)):
            reader = EtlReader(f)
        else:
            reader = EventFileReader(f)
        return f, reader
    except BaseException:
        f.close()
        raise
