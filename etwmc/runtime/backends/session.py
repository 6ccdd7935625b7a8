"""One in-process trace session: what it enables, what it stores, what it lost.

A :class:`Session` is made by :meth:`InProcBackend.session
<etwmc.runtime.backends.inproc.InProcBackend.session>`; the backend decides which
events reach it (:mod:`etwmc.runtime.backends.inproc` states the rules) and the session
keeps them, into any of

* a memory store: a circular buffer of the newest ``buffer`` records, or, with
  ``capacity=N``, a non-circular store (like a sequential log file with a maximum
  size) that takes no more events once it holds N;
* a real-time ``consumer`` callable, called on the writing thread;
* an event file (``path``), streamed as events arrive.

Records are kept as the raw fields the writer handed over and become
:class:`~etwmc.runtime.eventfile.EventRecord` objects when read: the write path builds
no objects it does not need.
"""

from __future__ import annotations

import collections
import itertools
import os
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType, TracebackType
from typing import Final, Protocol

from ..descriptor import EventDescriptor
from ..eventfile import EventFileWriter, EventRecord
from ..fields import Field
from ..filters import CompiledPayloadFilter, EventIdFilter, PayloadFilter
from ..state import ALL_KEYWORDS, EnableState, event_enabled

__all__ = ["Enablement", "RawEvent", "Session", "SessionLimitError"]

# (provider id, descriptor, timestamp, process id, thread id, activity, related, payload)
RawEvent = tuple[uuid.UUID, bytes, int, int, int, bytes | None, bytes | None, bytes]


class SessionHost(Protocol):
    """What a session asks of the backend that made it (the in-process backend): the
    session rules that involve providers and other sessions live there."""

    _lock: threading.Lock

    def _enable(
        self, session: Session, guid: uuid.UUID, enablement: Enablement | None, group: bool
    ) -> None: ...

    def _disallow(self, session: Session, disallowed: frozenset[uuid.UUID]) -> None: ...

    def _capture(self, session: Session, guid: uuid.UUID) -> None: ...

    def _close(self, session: Session) -> None: ...

    def _replace_consumer(
        self, session: Session, consumer: Callable[[EventRecord], None] | None
    ) -> None: ...

    def _record(self, raw: RawEvent) -> EventRecord: ...

    def _written(self, session: Session) -> None: ...

    def _drain(self, session: Session) -> None: ...

    def _compile_payload_filter(
        self, guid: uuid.UUID, pf: PayloadFilter
    ) -> CompiledPayloadFilter: ...

    def layout(self, provider: uuid.UUID, event_id: int, version: int) -> tuple[Field, ...] | None:
        """The payload layout of an event, when the backend was given it."""
        ...


_ZERO_UUID: Final = uuid.UUID(int=0)
_NO_PAYLOAD_FILTERS: Final[Mapping[tuple[int, int], tuple[CompiledPayloadFilter, ...]]] = (
    MappingProxyType({})
)


class SessionLimitError(RuntimeError):
    """A limit of ETW's was reached: 8 sessions per provider, 64 global sessions, or 4
    private sessions per process."""


@dataclass(frozen=True, slots=True)
class Enablement:
    """How one session enables one provider (or one provider group)."""

    level: int
    match_any: int
    match_all: int
    ignore_keyword_0: bool = False
    event_ids: EventIdFilter | None = None
    payload_filters: Mapping[tuple[int, int], tuple[CompiledPayloadFilter, ...]] = field(
        default_factory=lambda: _NO_PAYLOAD_FILTERS, repr=False, hash=False
    )
    state: EnableState = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "state", EnableState(1, self.level, self.match_any, self.match_all)
        )

    def wants(self, level: int, keyword: int) -> bool:
        """The level and keyword test of the enable rule, for this session alone."""
        if keyword == 0 and self.ignore_keyword_0:
            return False
        return event_enabled(level, keyword, self.state)

    def admits(self, event_id: int) -> bool:
        """The event-id filter (every id passes without one)."""
        return self.event_ids is None or self.event_ids.admits(event_id)


class Session:
    """An in-process trace session (see the module docstring and docs/runtime.md).

    ``delivered`` counts the events the session took, ``events_lost`` those it could not
    take (its store was full, or another session's was: see the delivery rule in
    :mod:`~etwmc.runtime.backends.inproc`), ``consumer_errors`` the exceptions its
    consumer raised and ``file_errors`` the records its file could not take (a full
    disk); the latest exception of either is ``last_error``.
    """

    def __init__(
        self,
        backend: SessionHost,
        name: str,
        *,
        buffer: int | None = 10_000,
        consumer: Callable[[EventRecord], None] | None = None,
        path: str | os.PathLike[str] | None = None,
        private: bool = False,
        independent: bool = False,
        capacity: int | None = None,
    ) -> None:
        for label, size in (("buffer", buffer), ("capacity", capacity)):
            if size is not None and (isinstance(size, bool) or not isinstance(size, int)):
                raise ValueError(f"{label} must be an int or None, not {size!r}")
            if size is not None and size <= 0:
                raise ValueError(f"{label} must be positive or None, not {size}")
        self.backend = backend
        self.name = name
        self.private = bool(private)
        self.independent = bool(independent)
        self.capacity = capacity
        self._consumer = consumer
        self._store: collections.deque[RawEvent] | list[RawEvent] | None
        if capacity is not None:
            self._store = []
        else:
            self._store = collections.deque(maxlen=buffer) if buffer is not None else None
        # Events taken under the backend's lock, and the tally the lock-free write path
        # advances (see .delivery): ``delivered`` adds them up.
        self._counted = 0
        self._tally = itertools.count()
        self._tally_reads = 0
        self._tally_lock = threading.Lock()
        self.events_lost = 0
        self.consumer_errors = 0
        self.last_error: BaseException | None = None
        # What this session enables, by provider GUID and by provider-group GUID, and
        # the providers its group enables leave out.  Changed only by the backend.
        self.providers: dict[uuid.UUID, Enablement] = {}
        self.groups: dict[uuid.UUID, Enablement] = {}
        self.disallowed: frozenset[uuid.UUID] = frozenset()
        self._file = EventFileWriter(path) if path is not None else None
        self._file_lock = threading.Lock()
        # Events taken but not yet in the file: stop() waits for them (the backend's
        # lock guards the count).
        self._unwritten = 0
        self.stopped = False

    # -- controller side -----------------------------------------------------------------

    def enable(
        self,
        provider: uuid.UUID | str,
        level: int = 5,
        match_any: int = ALL_KEYWORDS,
        match_all: int = 0,
        *,
        ignore_keyword_0: bool = False,
        filters: Sequence[EventIdFilter | PayloadFilter] = (),
        provider_group: bool = False,
    ) -> Session:
        """Enable a provider (or, with ``provider_group=True``, every member of a provider
        group, present and future) in this session; enabling again updates the values.
        Returns self.

        Raises ``ValueError`` for out-of-range values, a filter that does not fit (or any
        filter on a group), a group enable by a private session, or a stopped session;
        :class:`SessionLimitError` when the provider is already enabled by 8 sessions.
        """
        self._check_open()
        guid = _guid(provider)
        if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= 0xFF:
            raise ValueError(f"level {level!r} is outside 0..255")
        for label, value in (("match_any", match_any), ("match_all", match_all)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{label} {value!r} is not an int")
            if not 0 <= value <= ALL_KEYWORDS:
                raise ValueError(f"{label} {value:#x} is not a 64-bit keyword mask")
        if isinstance(filters, (EventIdFilter, PayloadFilter)):
            filters = [filters]
        if provider_group:
            if self.private:
                raise ValueError(f"session {self.name!r} is private: it cannot enable a group")
            if filters:
                raise ValueError(
                    "event-id and payload filters do not apply to provider groups; "
                    "enable the member providers to filter their events"
                )
        event_ids, payload = self._filters(guid, filters)
        enablement = Enablement(level, match_any, match_all, ignore_keyword_0, event_ids, payload)
        self.backend._enable(self, guid, enablement, provider_group)
        return self

    def disable(self, provider: uuid.UUID | str, *, provider_group: bool = False) -> Session:
        """Stop receiving a provider's (or a provider group's) events; returns self."""
        self.backend._enable(self, _guid(provider), None, provider_group)
        return self

    def set_disallow_list(self, providers: Sequence[uuid.UUID | str]) -> Session:
        """Keep these providers out of this session's provider-group enables
        (TraceSetDisallowList); replaces the previous list, also while enabled, and the
        providers concerned get their enable callback.  Returns self."""
        self._check_open()
        if isinstance(providers, (str, uuid.UUID)):
            providers = [providers]
        self.backend._disallow(self, frozenset(_guid(p) for p in providers))
        return self

    def capture_state(self, provider: uuid.UUID | str) -> None:
        """Ask an enabled provider to log its state (CAPTURE_STATE with this session's values)."""
        self._check_open()
        self.backend._capture(self, _guid(provider))

    def stop(self) -> None:
        """Disable every provider and group; once every event the session took is in its
        file, close the file.  Idempotent.

        After ``stop()`` returns the file holds every event counted in ``delivered``
        but those counted in ``file_errors`` (writes the file refused), as ETW's log
        file is complete when ControlTrace(STOP) returns.  A real-time consumer may
        still be called, on writers' threads, for events taken before the stop, as
        ETW's consumers receive the last buffers after it.
        """
        self.backend._close(self)
        self.backend._drain(self)
        if self._file is not None:
            with self._file_lock:
                try:
                    self._file.close()
                except OSError as exc:  # the last records could not be written (counted)
                    self.last_error = exc

    def __enter__(self) -> Session:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- what the session holds ------------------------------------------------------------

    def events(self) -> list[EventRecord]:
        """The records in the memory store, oldest first."""
        with self.backend._lock:
            # One C-level copy: lock-free writers may append meanwhile (see .delivery).
            raws = list(self._store) if self._store is not None else []
        return [self.backend._record(raw) for raw in raws]

    def clear(self) -> None:
        """Empty the memory store (a store with a capacity has room again)."""
        with self.backend._lock:
            if self._store is not None:
                self._store.clear()

    def __iter__(self) -> Iterator[EventRecord]:
        return iter(self.events())

    @property
    def consumer(self) -> Callable[[EventRecord], None] | None:
        """The real-time consumer (``None``: none); may be replaced while enabled."""
        return self._consumer

    @consumer.setter
    def consumer(self, value: Callable[[EventRecord], None] | None) -> None:
        self.backend._replace_consumer(self, value)

    @property
    def delivered(self) -> int:
        """How many events the session took."""
        # Reading the tally advances it too: each read's own step is taken back.
        with self._tally_lock:
            reads = self._tally_reads
            self._tally_reads = reads + 1
            return self._counted + next(self._tally) - reads

    @property
    def file_errors(self) -> int:
        """How many events the session took that its file could not take (a full disk:
        the writes failed); 0 without a file."""
        return self._file.lost if self._file is not None else 0

    @property
    def full(self) -> bool:
        """Whether the store has a capacity and holds that many events."""
        return (
            self.capacity is not None
            and self._store is not None
            and (len(self._store) >= self.capacity)
        )

    def __repr__(self) -> str:
        return (
            f"<Session {self.name!r} providers={len(self.providers)} groups={len(self.groups)}"
            f" delivered={self.delivered} lost={self.events_lost}>"
        )

    # -- the backend's side ----------------------------------------------------------------

    def _check_open(self) -> None:
        if self.stopped:
            raise ValueError(f"session {self.name!r} is stopped")

    def _filters(
        self, guid: uuid.UUID, filters: Sequence[EventIdFilter | PayloadFilter]
    ) -> tuple[EventIdFilter | None, Mapping[tuple[int, int], tuple[CompiledPayloadFilter, ...]]]:
        event_ids: EventIdFilter | None = None
        payload: dict[tuple[int, int], tuple[CompiledPayloadFilter, ...]] = {}
        for f in filters:
            if isinstance(f, EventIdFilter):
                if event_ids is not None:
                    raise ValueError("one EventIdFilter per enable: put all the ids in it")
                event_ids = f
            elif isinstance(f, PayloadFilter):
                compiled = self.backend._compile_payload_filter(guid, f)
                key = (f.event_id, f.version)
                payload[key] = payload.get(key, ()) + (compiled,)
            else:
                raise ValueError(f"{f!r} is not an EventIdFilter or a PayloadFilter")
        return event_ids, MappingProxyType(payload) if payload else _NO_PAYLOAD_FILTERS

    def _put(self, raw: RawEvent) -> None:
        """Store one event (the caller holds the backend's lock and checked the room)."""
        self._counted += 1
        if self._store is not None:
            self._store.append(raw)

    def _sink(self, raw: RawEvent) -> None:
        """Hand one taken event to the file, then the consumer (outside the backend's
        lock; the backend counted it in ``_unwritten`` when the session took it)."""
        record = self.backend._record(raw)
        try:
            if self._file is not None:
                with self._file_lock:
                    try:
                        self._file.write(record)
                    except OSError as exc:  # a full disk never breaks the writer (counted)
                        self.last_error = exc
        finally:
            self.backend._written(self)
        if self._consumer is not None:
            try:
                self._consumer(record)
            except Exception as exc:  # a consumer never breaks the writer
                self.consumer_errors += 1
                self.last_error = exc

    @property
    def _has_sinks(self) -> bool:
        return self._consumer is not None or self._file is not None


def make_record(raw: RawEvent, d: EventDescriptor, pointer_size: int) -> EventRecord:
    """The EventRecord for a raw event whose descriptor reads ``d``."""
    provider, _, timestamp, pid, tid, activity, related, payload = raw
    return EventRecord(
        provider_id=provider,
        id=d.id,
        version=d.version,
        channel=d.channel,
        level=d.level,
        opcode=d.opcode,
        task=d.task,
        keyword=d.keyword,
        timestamp=timestamp,
        process_id=pid,
        thread_id=tid,
        activity_id=uuid.UUID(bytes_le=activity) if activity is not None else _ZERO_UUID,
        related_activity_id=uuid.UUID(bytes_le=related) if related is not None else None,
        user_data=payload,
        pointer_size=pointer_size,
    )


def _guid(value: uuid.UUID | str) -> uuid.UUID:
    if isinstance(value, uuid.UUID):
        return value
    try:
        return uuid.UUID(value)
    except (ValueError, TypeError, AttributeError):
        raise ValueError(f"{value!r} is not a GUID") from None
