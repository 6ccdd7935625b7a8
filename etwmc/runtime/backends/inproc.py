"""In-process sessions with ETW's semantics.

The in-process backend is etwmc's model of ETW: what tests, Linux and macOS users see,
and the reference the Windows backend is held to.  Its :class:`Session` objects
(:mod:`~etwmc.runtime.backends.session`) play the part of trace sessions inside the
process.  The rules are ETW's:

* **Limits.**  At most 64 global sessions and 4 private sessions (``private=True``) at
  once; a provider is enabled by at most 8 sessions (:class:`SessionLimitError`).
* **The enable rule.**  Each enablement has a level, MatchAnyKeyword, MatchAllKeyword and
  optionally ``ignore_keyword_0`` (EVENT_ENABLE_PROPERTY_IGNORE_KEYWORD_0).  A session
  enabled at level 0 receives every level.
* **The callback.**  A provider's callback receives the values combined over its
  sessions: the most verbose level (level 0 the most verbose of all), the OR of
  MatchAnyKeyword and the AND of MatchAllKeyword.  When a session disables or stops,
  the provider gets ENABLE_PROVIDER again with the remaining sessions' combination, or
  DISABLE_PROVIDER when none remain.  Enabling a provider that is not registered yet is
  remembered and the callback fires inside its registration.
* **Provider groups.**  A provider joins the group named by the group trait of its
  provider traits (set once per registration: a second ``set_traits`` fails, as
  EventSetInformation does).  ``enable(group, ..., provider_group=True)`` enables every
  member, present and future (EVENT_ENABLE_PROPERTY_PROVIDER_GROUP); private sessions
  cannot, and filters do not apply to groups.  A session's disallow list
  (TraceSetDisallowList) keeps providers out of its group enables, and can change while
  they are enabled.  A session that enables a provider itself uses that enablement, not
  its group's.  A group enable never fails for a member that already has 8 sessions: the
  member is left out of it (the earlier enables keep it).
* **Filters.**  After the level and keyword test, each session applies its own event-id
  and payload filters (:mod:`etwmc.runtime.filters`), so a session sees exactly the
  events it asked for whatever the provider's combined state lets through.  Payload
  filters need the event's layout: :meth:`InProcBackend.install_layouts`, as
  TdhCreatePayloadFilter needs the provider's manifest.
* **Delivery.**  An event goes to the interested sessions only if every interested
  session that is not independent can take it (a session with a ``capacity`` that holds
  that many events cannot); otherwise none of them gets it and each counts it in
  ``events_lost``.  An independent session (``independent=True``,
  EVENT_TRACE_INDEPENDENT_SESSION_MODE) takes the event whenever it has room, whatever
  the others do, and its own failure never costs the others an event.  The write then
  returns ERROR_NOT_ENOUGH_MEMORY (8) if some interested session lost the event.
* :meth:`Session.capture_state` sends CAPTURE_STATE with that session's values.

The write path (:mod:`.delivery`) keeps per registration and descriptor the sessions
that want the event (recomputed whenever an enable changes), so writing costs a
dictionary lookup and one tuple per event, and the common case (one session with a
memory store and nothing else) takes no lock; records are built when a session is read.
A change of enables returns once every event written under the old rules is stored
(:mod:`.writers`).
"""

from __future__ import annotations

import itertools
import os
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

from ..activity import _current as _current_activity
from ..descriptor import EventDescriptor, unpack_descriptor
from ..eventfile import EventRecord
from ..fields import POINTER_SIZE, Field
from ..filters import CompiledPayloadFilter, PayloadFilter, compile_payload_filter
from ..state import (
    CAPTURE_STATE,
    DISABLE_PROVIDER,
    ENABLE_PROVIDER,
    EnableState,
    combine_levels,
)
from ..traits import parse_traits
from .base import (
    ERROR_INVALID_HANDLE,
    ERROR_INVALID_PARAMETER,
    ERROR_SUCCESS,
    EnableCallback,
)
from .delivery import MAX_ROUTES, ProviderHandle, Route, Target, make_sender
from .session import Enablement, RawEvent, Session, SessionLimitError, make_record
from .writers import quiesce

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see state.py)
if TYPE_CHECKING:
    from ..writing import Writer

__all__ = [
    "MAX_GLOBAL_SESSIONS",
    "MAX_PRIVATE_SESSIONS",
    "MAX_SESSIONS_PER_PROVIDER",
    "Enablement",
    "InProcBackend",
    "Session",
    "SessionLimitError",
    "combine",
    "filetime_now",
]

MAX_SESSIONS_PER_PROVIDER = 8
MAX_GLOBAL_SESSIONS = 64
MAX_PRIVATE_SESSIONS = 4
# FILETIME counts 100 ns intervals from 1601-01-01; Unix time starts 11644473600 s later.
_FILETIME_UNIX_EPOCH = 116_444_736_000_000_000
_time_ns = time.time_ns


def _no_activity() -> None:
    return None


def filetime_now() -> int:
    """The current time as FILETIME (100 ns units since 1601-01-01 UTC)."""
    return _time_ns() // 100 + _FILETIME_UNIX_EPOCH


def combine(enablements: Sequence[Enablement]) -> EnableState:
    """The state ETW reports to a provider enabled by these sessions."""
    if not enablements:
        return EnableState(0, 0, 0, 0)
    match_any = 0
    match_all = 0xFFFF_FFFF_FFFF_FFFF
    for e in enablements:
        match_any |= e.match_any
        match_all &= e.match_all
    return EnableState(1, combine_levels(e.level for e in enablements), match_any, match_all)


class InProcBackend:
    """Providers and sessions of this process.

    ``clock`` returns FILETIME timestamps (default: the wall clock); tests pass a
    deterministic one.
    """

    name = "inproc"

    def __init__(self, clock: Callable[[], int] = filetime_now) -> None:
        self.clock = clock
        # The default clock stamps raw nanoseconds, turned into FILETIME when read.
        self._now: Callable[[], int] = _time_ns if clock is filetime_now else clock
        # Nothing done under the lock calls user code (callbacks and consumers run after
        # it is released), so a plain lock serves every path.
        self._lock = threading.Lock()
        # Notified when a session has no taken event left to write (see _drain).
        self._all_written = threading.Condition(self._lock)
        self._registrations: dict[uuid.UUID, list[ProviderHandle]] = {}
        self._sessions: list[Session] = []
        self._layouts: dict[uuid.UUID, dict[tuple[int, int], tuple[Field, ...]]] = {}
        self._descriptors: dict[bytes, EventDescriptor] = {}
        self._seq = itertools.count()
        # (session, is a group, guid) -> when it was first enabled: earlier enables win
        # a provider's 8 places.
        self._since: dict[tuple[Session, bool, uuid.UUID], int] = {}

    # -- backend protocol -----------------------------------------------------------------

    def register(self, guid: uuid.UUID, callback: EnableCallback) -> object:
        reg = ProviderHandle(guid, callback)
        with self._lock:
            self._registrations.setdefault(guid, []).append(reg)
            reg.targets = self._targets(reg)
            state = combine([e for _, e in reg.targets])
        if state.is_enabled:
            callback(ENABLE_PROVIDER, state.level, state.match_any, state.match_all)
        return reg

    def set_traits(self, handle: object, blob: bytes) -> int:
        """Attach the provider traits; the group trait makes the provider a group member.

        Traits are set once per registration: a second call returns
        ERROR_INVALID_PARAMETER and changes nothing, as EventSetInformation refuses it.
        """
        if not isinstance(handle, ProviderHandle) or handle.closed:
            return ERROR_INVALID_HANDLE
        try:
            _, group = parse_traits(bytes(blob))
        except (ValueError, TypeError):
            return ERROR_INVALID_PARAMETER
        with self._lock:
            if handle.traits:
                return ERROR_INVALID_PARAMETER
            handle.traits = bytes(blob)
            handle.group = group
            calls = self._refresh([handle], None) if group is not None else _NO_CHANGE
        _fire(calls)
        return ERROR_SUCCESS

    def unregister(self, handle: object) -> None:
        if not isinstance(handle, ProviderHandle) or handle.closed:
            return
        with self._lock:
            handle.closed = True
            handle.targets = ()
            replaced = handle.routes
            handle.routes = {}
            regs = self._registrations.get(handle.guid, [])
            if handle in regs:
                regs.remove(handle)
            if not regs:
                self._registrations.pop(handle.guid, None)
        quiesce([replaced])  # no write through the registration lands after this returns

    def write(
        self,
        handle: object,
        descriptor: bytes,
        activity: bytes | None,
        related: bytes | None,
        payload: bytes,
    ) -> int:
        if type(handle) is not ProviderHandle:
            return ERROR_INVALID_HANDLE
        send = handle.plain_sender
        if send is None:  # the protocol's write: no activity id but the one given
            send = handle.plain_sender = make_sender(
                handle, self._lock, self._now, _no_activity, None
            )
        return send(descriptor, payload, activity, related)

    def bind_writer(self, handle: object, failed: Callable[[int], None]) -> Writer:
        """The write function of a registration (see :mod:`.delivery`): the current
        activity id (:mod:`etwmc.runtime.activity`) for a write without one, and
        ``failed(status)`` called for every refused write."""
        if type(handle) is not ProviderHandle:
            raise ValueError(f"{handle!r} is not a registration of this backend")
        return make_sender(handle, self._lock, self._now, _current_activity.get, failed)

    # -- controller side ----------------------------------------------------------------------

    def session(
        self,
        name: str = "etwmc",
        *,
        buffer: int | None = 10_000,
        consumer: Callable[[EventRecord], None] | None = None,
        path: str | os.PathLike[str] | None = None,
        private: bool = False,
        independent: bool = False,
        capacity: int | None = None,
    ) -> Session:
        """Start a new session (see :class:`Session`).

        Raises :class:`SessionLimitError` when 64 global sessions, or 4 private ones,
        are already running, and ``ValueError`` for a bad ``buffer`` or ``capacity``.
        """
        with self._lock:
            live = sum(1 for s in self._sessions if s.private == bool(private))
            limit = MAX_PRIVATE_SESSIONS if private else MAX_GLOBAL_SESSIONS
            if live >= limit:
                kind = "private sessions per process" if private else "global sessions"
                raise SessionLimitError(f"ETW allows at most {limit} {kind}; stop one first")
            session = Session(
                self,
                name,
                buffer=buffer,
                consumer=consumer,
                path=path,
                private=private,
                independent=independent,
                capacity=capacity,
            )
            self._sessions.append(session)
        return session

    @property
    def sessions(self) -> tuple[Session, ...]:
        """The sessions that are running, oldest first."""
        return tuple(self._sessions)

    def combined_state(self, guid: uuid.UUID) -> EnableState:
        """What this provider's callback was last told (combined over its sessions); for a
        provider that is not registered, what its direct enables would tell it."""
        with self._lock:
            regs = self._registrations.get(guid)
            if regs:
                return combine([e for _, e in regs[0].targets])
            return combine([s.providers[guid] for s in self._sessions if guid in s.providers])

    def install_layouts(
        self, provider: uuid.UUID | str, layouts: Mapping[tuple[int, int], Sequence[Field]]
    ) -> None:
        """Make the payload layouts of a provider's events known, ``{(event id, version):
        fields}``, as installing its manifest does for Windows' TdhCreatePayloadFilter:
        payload filters resolve their field names against them."""
        guid = provider if isinstance(provider, uuid.UUID) else uuid.UUID(provider)
        table: dict[tuple[int, int], tuple[Field, ...]] = {}
        for key, fields in layouts.items():
            if not (
                isinstance(key, tuple)
                and len(key) == 2
                and all(isinstance(k, int) and not isinstance(k, bool) for k in key)
            ):
                raise ValueError(f"a layout key is (event id, version), not {key!r}")
            if not all(isinstance(f, Field) for f in fields):
                raise ValueError(f"the layout of {key} is not a sequence of Field")
            table[key] = tuple(fields)
        with self._lock:
            self._layouts.setdefault(guid, {}).update(table)

    def layout(self, provider: uuid.UUID, event_id: int, version: int) -> tuple[Field, ...] | None:
        """The installed layout of an event, or ``None``."""
        return self._layouts.get(provider, {}).get((event_id, version))

    # -- what the sessions call (under their arguments' checks) ------------------------------

    def _compile_payload_filter(self, guid: uuid.UUID, pf: PayloadFilter) -> CompiledPayloadFilter:
        layout = self.layout(guid, pf.event_id, pf.version)
        if layout is None:
            raise ValueError(
                f"no layout is installed for event {pf.event_id} version {pf.version} of "
                f"provider {{{guid}}}: call install_layouts() first (payload filters name "
                "fields, as TdhCreatePayloadFilter reads them from the manifest)"
            )
        return compile_payload_filter(pf, layout)

    def _enable(
        self, session: Session, guid: uuid.UUID, enablement: Enablement | None, group: bool
    ) -> None:
        with self._lock:
            if session.stopped:
                if enablement is None:
                    return
                raise ValueError(f"session {session.name!r} is stopped")
            table = session.groups if group else session.providers
            key = (session, group, guid)
            if enablement is None:
                if guid not in table:
                    return
                del table[guid]
                self._since.pop(key, None)
            else:
                if not group and guid not in table:
                    self._check_provider_limit(session, guid)
                table[guid] = enablement
                self._since.setdefault(key, next(self._seq))
            if group:
                regs = [r for rs in self._registrations.values() for r in rs if r.group == guid]
            else:
                regs = list(self._registrations.get(guid, ()))
            calls = self._refresh(regs, session if enablement is not None else None)
        _fire(calls)

    def _check_provider_limit(self, session: Session, guid: uuid.UUID) -> None:
        regs = self._registrations.get(guid)
        if regs:
            others = {s for s, _ in regs[0].targets if s is not session}
        else:
            others = {s for s in self._sessions if s is not session and guid in s.providers}
        if len(others) >= MAX_SESSIONS_PER_PROVIDER:
            raise SessionLimitError(
                f"provider {{{guid}}} is already enabled by "
                f"{MAX_SESSIONS_PER_PROVIDER} sessions, ETW's maximum"
            )

    def _disallow(self, session: Session, disallowed: frozenset[uuid.UUID]) -> None:
        with self._lock:
            changed = session.disallowed ^ disallowed
            session.disallowed = disallowed
            regs = [
                r
                for rs in self._registrations.values()
                for r in rs
                if r.guid in changed and r.group in session.groups
            ]
            calls = self._refresh(regs, None)
        _fire(calls)

    def _capture(self, session: Session, guid: uuid.UUID) -> None:
        with self._lock:
            calls = [
                (r, CAPTURE_STATE, e.state)
                for r in self._registrations.get(guid, ())
                for s, e in r.targets
                if s is session
            ]
        _fire(Changes(calls, []))

    def _close(self, session: Session) -> None:
        with self._lock:
            if session in self._sessions:
                self._sessions.remove(session)
            regs = [
                r
                for rs in self._registrations.values()
                for r in rs
                if any(s is session for s, _ in r.targets)
            ]
            session.providers.clear()
            session.groups.clear()
            for key in [k for k in self._since if k[0] is session]:
                del self._since[key]
            session.stopped = True
            calls = self._refresh(regs, None)
        _fire(calls)

    def _written(self, session: Session) -> None:
        """One event :meth:`Session._sink` was handed is in the file (or counted in its
        ``file_errors``)."""
        with self._lock:
            session._unwritten -= 1
            if not session._unwritten:
                self._all_written.notify_all()

    def _drain(self, session: Session) -> None:
        """Wait until every event a (stopped) session took is in its file."""
        with self._all_written:
            while session._unwritten:
                self._all_written.wait()

    def _replace_consumer(
        self, session: Session, consumer: Callable[[EventRecord], None] | None
    ) -> None:
        replaced = []
        with self._lock:
            session._consumer = consumer
            # Cached routes know whether their sessions have a consumer: forget them.
            for regs in self._registrations.values():
                for reg in regs:
                    if any(s is session for s, _ in reg.targets):
                        replaced.append(reg.routes)
                        reg.routes = {}
        # Every event written without the consumer is stored before this returns.
        quiesce(replaced)

    def _record(self, raw: RawEvent) -> EventRecord:
        descriptor = raw[1]
        d = self._descriptors.get(descriptor)
        if d is None:
            d = unpack_descriptor(descriptor)
            if len(self._descriptors) < MAX_ROUTES:
                self._descriptors[descriptor] = d
        if self._now is _time_ns:
            raw = raw[:2] + (raw[2] // 100 + _FILETIME_UNIX_EPOCH,) + raw[3:]
        return make_record(raw, d, POINTER_SIZE)

    # -- internals ----------------------------------------------------------------------------

    def _targets(self, reg: ProviderHandle) -> tuple[Target, ...]:
        """The sessions enabling a registration, by enable order, at most 8 (lock held)."""
        found: list[tuple[int, Session, Enablement]] = []
        for s in self._sessions:
            e = s.providers.get(reg.guid)
            key = (s, False, reg.guid)
            if e is None and reg.group is not None and reg.guid not in s.disallowed:
                e = s.groups.get(reg.group)
                key = (s, True, reg.group)
            if e is not None:
                found.append((self._since.get(key, 0), s, e))
        found.sort(key=lambda t: t[0])
        return tuple((s, e) for _, s, e in found[:MAX_SESSIONS_PER_PROVIDER])

    def _refresh(self, regs: list[ProviderHandle], enabling: Session | None) -> Changes:
        """New targets for ``regs``; the callbacks to fire for those that changed or that
        ``enabling`` (re)enabled (lock held; the caller fires them after releasing it),
        and the routes replaced."""
        calls: list[tuple[ProviderHandle, int, EnableState]] = []
        replaced: list[dict[bytes, Route]] = []
        for reg in regs:
            if reg.closed:
                continue
            old = reg.targets
            new = self._targets(reg)
            reg.targets = new
            replaced.append(reg.routes)
            reg.routes = {}
            renewed = enabling is not None and any(s is enabling for s, _ in new)
            if new != old or renewed:
                state = combine([e for _, e in new])
                code = ENABLE_PROVIDER if state.is_enabled else DISABLE_PROVIDER
                if state.is_enabled or old:
                    calls.append((reg, code, state))
        return Changes(calls, replaced)


class Changes(NamedTuple):
    """What a change of enables leaves to do once the backend's lock is released."""

    calls: list[tuple[ProviderHandle, int, EnableState]]  # enable callbacks to fire
    replaced: list[dict[bytes, Route]]  # routes that lock-free writers may still hold


_NO_CHANGE = Changes([], [])


def _fire(changes: Changes) -> None:
    """Wait for the writers of the replaced routes (no event the old rules let through
    is stored after the change returns), then call the enable callbacks."""
    quiesce(changes.replaced)
    for reg, code, state in changes.calls:
        if not reg.closed:
            reg.callback(code, state.level, state.match_any, state.match_all)
