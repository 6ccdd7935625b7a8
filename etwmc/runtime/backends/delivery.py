"""The in-process backend's write path: from a provider's write to the sessions' stores.

Per registration and descriptor, a :class:`Route` caches the sessions that want the
event (recomputed whenever an enable changes: the backend replaces the registration's
``routes`` dictionary), so that writing costs a dictionary lookup, a timestamp, a lock
and one tuple per event; records are built when a session is read.

:func:`make_sender` builds a provider's write function for one registration with that
path inlined (what :meth:`InProcBackend.bind_writer
<etwmc.runtime.backends.inproc.InProcBackend.bind_writer>` gives
:class:`~etwmc.runtime.provider.ProviderRuntime`): one call per event after the
generated function's own.
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Callable

from ..descriptor import DESCRIPTOR_SIZE, unpack_descriptor
from ..eventfile import MAX_USER_DATA
from ..filters import CompiledPayloadFilter, passing
from .base import (
    ERROR_ARITHMETIC_OVERFLOW,
    ERROR_INVALID_HANDLE,
    ERROR_INVALID_PARAMETER,
    ERROR_NOT_ENOUGH_MEMORY,
    ERROR_SUCCESS,
    EnableCallback,
)
from .session import Enablement, RawEvent, Session

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see state.py)
if TYPE_CHECKING:
    from ..provider import Writer

MAX_ROUTES = 4096  # generated modules reuse a few descriptor constants
Target = tuple[Session, Enablement]

_native_id = threading.get_native_id
# Each thread's native id, asked of the system once per thread (a system call each time).
_this_thread = threading.local()
# The process id stamped on records: read once, refreshed in a forked child.
_pid = os.getpid()


def _after_fork() -> None:
    global _pid
    _pid = os.getpid()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def thread_id() -> int:
    """The calling thread's native id."""
    try:
        return int(_this_thread.id)
    except AttributeError:
        _this_thread.id = _native_id()
        return int(_this_thread.id)


class Route:
    """The sessions that want events of one descriptor from one registration."""

    __slots__ = ("plain", "checked", "single")

    def __init__(
        self,
        plain: tuple[Session, ...],
        checked: tuple[tuple[Session, tuple[CompiledPayloadFilter, ...]], ...],
    ) -> None:
        self.plain = plain  # no payload filter for this event
        self.checked = checked  # payload filters decide, per event
        # The common case: one session, which nothing can refuse the event (no capacity)
        # and nothing waits for outside the lock (no consumer, no file).  Store and go.
        only = plain[0] if len(plain) == 1 and not checked else None
        self.single = (
            only
            if only is not None
            and only.capacity is None
            and only._store is not None
            and not only._has_sinks
            else None
        )


NOBODY = Route((), ())


class ProviderHandle:
    """One registration of a provider with the in-process backend (its handle)."""

    __slots__ = (
        "guid",
        "callback",
        "traits",
        "group",
        "closed",
        "targets",
        "routes",
        "plain_sender",
    )

    def __init__(self, guid: uuid.UUID, callback: EnableCallback) -> None:
        self.guid = guid
        self.callback = callback
        self.traits = b""
        self.group: uuid.UUID | None = None
        self.closed = False
        self.targets: tuple[Target, ...] = ()
        # Replaced (never cleared) when the targets change: a writer that read the old
        # dictionary caches into a dictionary nobody reads any more.
        self.routes: dict[bytes, Route] = {}
        self.plain_sender: Writer | None = None  # for InProcBackend.write


def find_route(reg: ProviderHandle, descriptor: bytes) -> Route | int:
    """Find and cache which sessions want this descriptor (the slow path of a write), or
    the status that refuses the write."""
    routes = reg.routes  # read before the targets: see ProviderHandle.routes
    targets = reg.targets
    if reg.closed:
        return ERROR_INVALID_HANDLE
    if type(descriptor) is not bytes or len(descriptor) != DESCRIPTOR_SIZE:
        return ERROR_INVALID_PARAMETER
    d = unpack_descriptor(descriptor)
    plain: list[Session] = []
    checked: list[tuple[Session, tuple[CompiledPayloadFilter, ...]]] = []
    for s, e in targets:
        if e.wants(d.level, d.keyword) and e.admits(d.id):
            checks = e.payload_filters.get((d.id, d.version))
            if checks is None:
                plain.append(s)
            else:
                checked.append((s, checks))
    route = Route(tuple(plain), tuple(checked)) if plain or checked else NOBODY
    if len(routes) < MAX_ROUTES:
        routes[descriptor] = route
    return route


def deliver(lock: threading.Lock, sessions: tuple[Session, ...], raw: RawEvent) -> int:
    """All or nothing for the dependent sessions, room permitting for the independent
    (``lock`` is the backend's)."""
    status = ERROR_SUCCESS
    taken: list[Session] = []
    with lock:
        live = [s for s in sessions if not s.stopped]
        dependent = [s for s in live if not s.independent]
        if all(not s.full for s in dependent):
            taken.extend(dependent)
        else:
            for s in dependent:
                s.events_lost += 1
            status = ERROR_NOT_ENOUGH_MEMORY
        for s in live:
            if s.independent:
                if s.full:
                    s.events_lost += 1
                    status = ERROR_NOT_ENOUGH_MEMORY
                else:
                    taken.append(s)
        sinking = []
        for s in taken:
            s._put(raw)
            if s._has_sinks:
                s._unwritten += 1  # stop() waits until _sink has written it
                sinking.append(s)
    for s in sinking:
        s._sink(raw)
    return status


def make_sender(
    reg: ProviderHandle,
    lock: threading.Lock,
    now: Callable[[], int],
    current: Callable[[], bytes | None],
    failed: Callable[[int], None] | None,
) -> Writer:
    """A write function for ``reg``: ``current()`` gives the activity id of a write
    without one, ``failed(status)`` hears of every refused write (never under ``lock``).

    The common case, a well-formed event that one session without a consumer, file or
    capacity wants, runs inline; every other case goes through :func:`_write`.
    """
    this_thread = _this_thread
    native_id = _native_id
    guid = reg.guid
    acquire = lock.acquire
    release = lock.release

    def send(
        descriptor: bytes,
        payload: bytes = b"",
        activity_id: bytes | None = None,
        related_activity_id: bytes | None = None,
    ) -> int:
        if activity_id is None:
            activity_id = current()
        routes = reg.routes
        try:
            single = routes[descriptor].single
        except (KeyError, TypeError):  # not cached yet, or not a descriptor at all
            single = None
        if (
            single is None
            or type(payload) is not bytes
            or len(payload) > MAX_USER_DATA
            or (activity_id is not None and len(activity_id) != 16)
            or (related_activity_id is not None and len(related_activity_id) != 16)
        ):
            status = _write(reg, lock, now, descriptor, payload, activity_id, related_activity_id)
            if status and failed is not None:
                failed(status)
            return status
        try:
            tid = this_thread.id
        except AttributeError:
            tid = this_thread.id = native_id()
        raw = (guid, descriptor, now(), _pid, tid, activity_id, related_activity_id, payload)
        # acquire/release, not `with`: half the cost per event on CPython 3.11.
        acquire()
        try:
            # Unchanged routes: the session did not stop since the lookup.
            if reg.routes is routes:
                single.delivered += 1
                single._store.append(raw)  # type: ignore[union-attr]  # a single has a store
                return ERROR_SUCCESS
        finally:
            release()
        status = deliver(lock, (single,), raw)
        if status and failed is not None:
            failed(status)
        return status

    return send


def _write(
    reg: ProviderHandle,
    lock: threading.Lock,
    now: Callable[[], int],
    descriptor: bytes,
    payload: bytes,
    activity: bytes | None,
    related: bytes | None,
) -> int:
    """Every write but the common case of :func:`make_sender`: checks, payload filters,
    several sessions, consumers, files, capacities."""
    try:
        found = reg.routes.get(descriptor)
    except TypeError:
        found = None
    route = found if found is not None else find_route(reg, descriptor)
    if isinstance(route, int):
        return route
    if (activity is not None and len(activity) != 16) or (
        related is not None and len(related) != 16
    ):
        return ERROR_INVALID_PARAMETER
    if type(payload) is not bytes:
        payload = bytes(payload)
    if len(payload) > MAX_USER_DATA:
        return ERROR_ARITHMETIC_OVERFLOW
    sessions = route.plain
    if route.checked:
        sessions = sessions + passing(route.checked, payload)
    if not sessions:
        return ERROR_SUCCESS
    raw = (reg.guid, descriptor, now(), _pid, thread_id(), activity, related, payload)
    return deliver(lock, sessions, raw)
