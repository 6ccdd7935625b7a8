"""In-process sessions with ETW's semantics.

A :class:`Session` plays the part of an ETW trace session inside the process: it
enables providers by GUID and receives their events as
:class:`~etwmc.runtime.eventfile.EventRecord` objects, into any of

* a real-time ``consumer`` callable, called on the writing thread;
* a bounded circular buffer (``buffer`` records; the oldest are overwritten);
* an event file (``path``), streamed as events arrive.

The rules are ETW's:

* A provider can be enabled by at most 8 sessions at once
  (:class:`SessionLimitError`).
* Each enablement has a level, MatchAnyKeyword, MatchAllKeyword and optionally
  ``ignore_keyword_0`` (EVENT_ENABLE_PROPERTY_IGNORE_KEYWORD_0: events of keyword 0 are
  not delivered to that session).
* The provider's callback receives the values combined over its sessions: the most
  verbose level (the maximum, or 0 when a session enables every level), the OR of
  MatchAnyKeyword and the AND of MatchAllKeyword.  When a session disables or stops,
  the provider gets ENABLE_PROVIDER again with the remaining sessions' combination, or
  DISABLE_PROVIDER when none remain.  Enabling a provider that is not registered yet
  is remembered and the callback fires inside its registration.
* Each event is filtered per session at write time with the same rule
  (:func:`~etwmc.runtime.state.event_enabled`), so a session sees exactly the events
  it asked for whatever the provider's combined state lets through.
* :meth:`Session.capture_state` sends CAPTURE_STATE with that session's values.

``enable`` defaults to level 5 (Verbose), MatchAnyKeyword all bits and MatchAllKeyword
0: that is a default of this API, not a change to the rule (a MatchAnyKeyword of 0
still means "only keyword-0 events").
"""

from __future__ import annotations

import collections
import os
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import TracebackType

from ..descriptor import DESCRIPTOR_SIZE, EventDescriptor, unpack_descriptor
from ..eventfile import MAX_USER_DATA, EventFileWriter, EventRecord
from ..state import (
    ALL_KEYWORDS,
    CAPTURE_STATE,
    DISABLE_PROVIDER,
    ENABLE_PROVIDER,
    EnableState,
    combine_levels,
    event_enabled,
)
from .base import (
    ERROR_ARITHMETIC_OVERFLOW,
    ERROR_INVALID_HANDLE,
    ERROR_INVALID_PARAMETER,
    ERROR_SUCCESS,
    EnableCallback,
)

MAX_SESSIONS_PER_PROVIDER = 8
_ZERO_UUID = uuid.UUID(int=0)
# FILETIME counts 100 ns intervals from 1601-01-01; Unix time starts 11644473600 s later.
_FILETIME_UNIX_EPOCH = 116_444_736_000_000_000
_POINTER_SIZE = 8 if sys.maxsize > 2**32 else 4


def filetime_now() -> int:
    """The current time as FILETIME (100 ns units since 1601-01-01 UTC)."""
    return time.time_ns() // 100 + _FILETIME_UNIX_EPOCH


class SessionLimitError(RuntimeError):
    """A provider is already enabled by the maximum of 8 sessions."""


@dataclass(frozen=True, slots=True)
class Enablement:
    """How one session enables one provider."""

    level: int
    match_any: int
    match_all: int
    ignore_keyword_0: bool = False
    state: EnableState = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "state", EnableState(1, self.level, self.match_any, self.match_all)
        )

    def wants(self, level: int, keyword: int) -> bool:
        if keyword == 0 and self.ignore_keyword_0:
            return False
        return event_enabled(level, keyword, self.state)


def combine(enablements: list[Enablement]) -> EnableState:
    """The state ETW reports to a provider enabled by these sessions."""
    if not enablements:
        return EnableState(0, 0, 0, 0)
    level = combine_levels(e.level for e in enablements)
    match_any = 0
    match_all = ALL_KEYWORDS
    for e in enablements:
        match_any |= e.match_any
        match_all &= e.match_all
    return EnableState(1, level, match_any, match_all)


class _Registration:
    __slots__ = ("guid", "callback", "traits", "closed")

    def __init__(self, guid: uuid.UUID, callback: EnableCallback) -> None:
        self.guid = guid
        self.callback = callback
        self.traits = b""
        self.closed = False


class InProcBackend:
    """Providers and sessions of this process.

    ``clock`` returns FILETIME timestamps (default: the wall clock); tests pass a
    deterministic one.
    """

    name = "inproc"

    def __init__(self, clock: Callable[[], int] = filetime_now) -> None:
        self.clock = clock
        self._lock = threading.RLock()
        self._registrations: dict[uuid.UUID, list[_Registration]] = {}
        self._sessions: list[Session] = []
        # guid -> the sessions enabling it, in enable order
        self._enabled: dict[uuid.UUID, dict[Session, Enablement]] = {}
        self._descriptors: dict[bytes, EventDescriptor] = {}

    # -- backend protocol -----------------------------------------------------------

    def register(self, guid: uuid.UUID, callback: EnableCallback) -> object:
        reg = _Registration(guid, callback)
        with self._lock:
            self._registrations.setdefault(guid, []).append(reg)
            state = combine(list(self._enabled.get(guid, {}).values()))
        if state.is_enabled:
            callback(ENABLE_PROVIDER, state.level, state.match_any, state.match_all)
        return reg

    def set_traits(self, handle: object, blob: bytes) -> int:
        if not isinstance(handle, _Registration):
            return ERROR_INVALID_HANDLE
        handle.traits = bytes(blob)
        return ERROR_SUCCESS

    def unregister(self, handle: object) -> None:
        if not isinstance(handle, _Registration) or handle.closed:
            return
        with self._lock:
            handle.closed = True
            regs = self._registrations.get(handle.guid, [])
            if handle in regs:
                regs.remove(handle)
            if not regs:
                self._registrations.pop(handle.guid, None)

    def write(
        self,
        handle: object,
        descriptor: bytes,
        activity: bytes | None,
        related: bytes | None,
        payload: bytes,
    ) -> int:
        if not isinstance(handle, _Registration) or handle.closed:
            return ERROR_INVALID_HANDLE
        if len(descriptor) != DESCRIPTOR_SIZE:
            return ERROR_INVALID_PARAMETER
        if (activity is not None and len(activity) != 16) or (
            related is not None and len(related) != 16
        ):
            return ERROR_INVALID_PARAMETER
        if len(payload) > MAX_USER_DATA:
            return ERROR_ARITHMETIC_OVERFLOW
        targets = self._enabled.get(handle.guid)
        if not targets:
            return ERROR_SUCCESS
        d = self._descriptors.get(descriptor)
        if d is None:
            d = unpack_descriptor(descriptor)
            if len(self._descriptors) < 4096:  # generated modules reuse a few constants
                self._descriptors[descriptor] = d
        sessions = [s for s, e in targets.items() if e.wants(d.level, d.keyword)]
        if not sessions:
            return ERROR_SUCCESS
        record = EventRecord(
            provider_id=handle.guid,
            id=d.id,
            version=d.version,
            channel=d.channel,
            level=d.level,
            opcode=d.opcode,
            task=d.task,
            keyword=d.keyword,
            timestamp=self.clock(),
            process_id=os.getpid(),
            thread_id=threading.get_native_id(),
            activity_id=uuid.UUID(bytes_le=activity) if activity is not None else _ZERO_UUID,
            related_activity_id=uuid.UUID(bytes_le=related) if related is not None else None,
            user_data=bytes(payload),
            pointer_size=_POINTER_SIZE,
        )
        for session in sessions:
            session._deliver(record)
        return ERROR_SUCCESS

    # -- controller side --------------------------------------------------------------

    def session(
        self,
        name: str = "etwmc",
        *,
        buffer: int | None = 10_000,
        consumer: Callable[[EventRecord], None] | None = None,
        path: str | os.PathLike[str] | None = None,
    ) -> Session:
        """Start a new session (see :class:`Session`)."""
        session = Session(self, name, buffer=buffer, consumer=consumer, path=path)
        with self._lock:
            self._sessions.append(session)
        return session

    @property
    def sessions(self) -> tuple[Session, ...]:
        return tuple(self._sessions)

    def combined_state(self, guid: uuid.UUID) -> EnableState:
        """What this provider's callback was last told (combined over its sessions)."""
        return combine(list(self._enabled.get(guid, {}).values()))

    def _set(self, session: Session, guid: uuid.UUID, enablement: Enablement | None) -> None:
        with self._lock:
            current = self._enabled.get(guid, {})
            if enablement is not None:
                if session not in current and len(current) >= MAX_SESSIONS_PER_PROVIDER:
                    raise SessionLimitError(
                        f"provider {{{guid}}} is already enabled by "
                        f"{MAX_SESSIONS_PER_PROVIDER} sessions, ETW's maximum"
                    )
                # Copy on write: writers iterate the mapping without taking the lock.
                updated = dict(current)
                updated[session] = enablement
            else:
                if session not in current:
                    return
                updated = {s: e for s, e in current.items() if s is not session}
            if updated:
                self._enabled[guid] = updated
            else:
                self._enabled.pop(guid, None)
            state = combine(list(updated.values()))
            regs = list(self._registrations.get(guid, ()))
        code = ENABLE_PROVIDER if state.is_enabled else DISABLE_PROVIDER
        for reg in regs:
            if not reg.closed:
                reg.callback(code, state.level, state.match_any, state.match_all)

    def _capture(self, session: Session, guid: uuid.UUID) -> None:
        with self._lock:
            enablement = self._enabled.get(guid, {}).get(session)
            regs = list(self._registrations.get(guid, ()))
        if enablement is None:
            return
        for reg in regs:
            if not reg.closed:
                reg.callback(
                    CAPTURE_STATE, enablement.level, enablement.match_any, enablement.match_all
                )

    def _close(self, session: Session) -> None:
        for guid in list(session.providers):
            self._set(session, guid, None)
        with self._lock:
            if session in self._sessions:
                self._sessions.remove(session)


class Session:
    """An in-process trace session; a context manager that stops it on exit.

    Events reach the consumer (if any) first, then the buffer and the file.  A
    consumer that raises does not disturb the writer: the error is counted in
    :attr:`consumer_errors` and kept in :attr:`last_error`.
    """

    def __init__(
        self,
        backend: InProcBackend,
        name: str,
        *,
        buffer: int | None,
        consumer: Callable[[EventRecord], None] | None,
        path: str | os.PathLike[str] | None,
    ) -> None:
        if buffer is not None and buffer < 1:
            raise ValueError("a session buffer holds at least 1 record (or None for no buffer)")
        self.backend = backend
        self.name = name
        self.consumer = consumer
        self.buffer: collections.deque[EventRecord] | None = (
            collections.deque(maxlen=buffer) if buffer is not None else None
        )
        self.delivered = 0
        self.consumer_errors = 0
        self.last_error: BaseException | None = None
        self.providers: dict[uuid.UUID, Enablement] = {}
        self._lock = threading.Lock()
        self._file = EventFileWriter(path) if path is not None else None
        self.stopped = False

    def enable(
        self,
        provider: uuid.UUID | str,
        level: int = 5,
        match_any: int = ALL_KEYWORDS,
        match_all: int = 0,
        *,
        ignore_keyword_0: bool = False,
    ) -> Session:
        """Enable a provider in this session (again: update its values); returns self."""
        self._check_open()
        guid = _guid(provider)
        if not 0 <= level <= 0xFF:
            raise ValueError(f"level {level} is outside 0..255")
        for name, value in (("match_any", match_any), ("match_all", match_all)):
            if not 0 <= value <= ALL_KEYWORDS:
                raise ValueError(f"{name} {value:#x} is not a 64-bit keyword mask")
        enablement = Enablement(level, match_any, match_all, ignore_keyword_0)
        self.backend._set(self, guid, enablement)
        self.providers[guid] = enablement
        return self

    def disable(self, provider: uuid.UUID | str) -> Session:
        """Stop receiving a provider's events; returns self."""
        guid = _guid(provider)
        self.providers.pop(guid, None)
        self.backend._set(self, guid, None)
        return self

    def capture_state(self, provider: uuid.UUID | str) -> None:
        """Ask an enabled provider to log its state (CAPTURE_STATE with this session's values)."""
        self._check_open()
        self.backend._capture(self, _guid(provider))

    def events(self) -> list[EventRecord]:
        """The records in the buffer, oldest first."""
        with self._lock:
            return list(self.buffer) if self.buffer is not None else []

    def clear(self) -> None:
        with self._lock:
            if self.buffer is not None:
                self.buffer.clear()

    def __iter__(self) -> Iterator[EventRecord]:
        return iter(self.events())

    def stop(self) -> None:
        """Disable every provider, close the file; idempotent."""
        if self.stopped:
            return
        self.backend._close(self)
        self.providers.clear()
        with self._lock:
            self.stopped = True
            if self._file is not None:
                self._file.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def _check_open(self) -> None:
        if self.stopped:
            raise ValueError(f"session {self.name!r} is stopped")

    def _deliver(self, record: EventRecord) -> None:
        if self.stopped:
            return
        if self.consumer is not None:
            try:
                self.consumer(record)
            except Exception as exc:  # a consumer never breaks the writer
                self.consumer_errors += 1
                self.last_error = exc
        with self._lock:
            if self.stopped:
                return
            self.delivered += 1
            if self.buffer is not None:
                self.buffer.append(record)
            if self._file is not None:
                self._file.write(record)

    def __repr__(self) -> str:
        return f"<Session {self.name!r} providers={len(self.providers)} delivered={self.delivered}>"


def _guid(value: uuid.UUID | str) -> uuid.UUID:
    return value if isinstance(value, uuid.UUID) else uuid.UUID(value)
