"""The decoded event, typed from the decoder to the output.

:class:`TraceDecoder <etwmc.decode.trace.TraceDecoder>` turns each record into an
:class:`Event`; the writers of :mod:`.jsonline` and :mod:`.output` turn events into
text (docs/json-lines.md gives the JSON Lines schema).  What every event of one provider
and descriptor shares (the provider, its name, the event's name, the descriptor and the
kind) is one :class:`EventHead`, made once and shared, so a writer renders it once.

Both are NamedTuples rather than frozen dataclasses, measured: a trace's events are
made once per record on the hot path, where ``tuple.__new__`` makes a 12-field
NamedTuple in 0.2 us and a frozen, slotted dataclass's ``__init__`` takes 1.4 us
(168,298 events: 0.24 s of a 1.6 s decode).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, NamedTuple

from ..eventdescriptor import EventDescriptor

KINDS = ("manifest", "eventsource", "tracelogging", "classic")


class EventHead(NamedTuple):
    """What every event with one provider, descriptor and names shares."""

    provider: str | None  # the provider's GUID as text, None when the record has none
    provider_name: str | None
    name: str | None  # the event's name, when its metadata gives one
    descriptor: EventDescriptor
    kind: str  # one of KINDS


class Event(NamedTuple):
    """One decoded event: its head, what its record says, and what decoding found.

    ``fields_json`` is the fields as JSON text when the event was decoded (the payload
    decoder writes most templates straight to JSON); ``fields`` their values, when the
    decoder made them (:meth:`values` gives them either way)."""

    head: EventHead
    time: int | None  # FILETIME (100 ns since 1601, UTC)
    pid: int | None
    tid: int | None
    activity: bytes  # 16 bytes, or b"" (all-zero means none)
    related: bytes
    decoded: bool
    message: str | None = None
    fields_json: str | None = None
    trailing_bytes: int = 0  # bytes after the described fields (as TDH reports them)
    error: str | None = None  # why the payload did not decode
    fields: Mapping[str, Any] | None = None

    def values(self) -> Mapping[str, Any] | None:
        """The fields by name (None when the event was not decoded)."""
        if self.fields is not None:
            return self.fields
        return None if self.fields_json is None else json.loads(self.fields_json)
