"""The in-process backend's write path: from a provider's write to the sessions' stores.

Per registration and descriptor, a :class:`Route` caches the sessions that want the
event (recomputed whenever an enable changes: the backend replaces the registration's
``routes`` dictionary), so that writing costs a dictionary lookup, a timestamp and one
tuple per event; records are built when a session is read.

:func:`make_sender` builds a provider's write function for one registration with that
path inlined (what :meth:`InProcBackend.bind_writer
<etwmc.runtime.backends.inproc.InProcBackend.bind_writer>` gives
:class:`~etwmc.runtime.provider.ProviderRuntime`): one call per event after the
generated function's own.  The common case, one session with a memory store and
nothing else, takes no lock: it appends to the store (a deque, whose appends are
thread-safe) and counts the event on the session's tally (an ``itertools.count``,
advanced atomically under the GIL), and a control operation that replaces the routes
waits for such writers (:mod:`.writers`).
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Callable

from ..descriptor import DESCRIPTOR_SIZE, unpack_descriptor
from ..eventfile import MAX_USER_DATA
from ..filters import CompiledPayloadFilter, passing
from ..writing import bind_writer
from .base import (
    ERROR_ARITHMETIC_OVERFLOW,
    ERROR_INVALID_HANDLE,
    ERROR_INVALID_PARAMETER,
    ERROR_NOT_ENOUGH_MEMORY,
    ERROR_SUCCESS,
    EnableCallback,
)
from .session import Enablement, RawEvent, Session
from .writers import WriterState, local_states, thread_id, writer_state

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see state.py)
if TYPE_CHECKING:
    from ..writing import Writer

MAX_ROUTES = 4096  # generated modules reuse a few descriptor constants
Target = tuple[Session, Enablement]

# The process id stamped on records: read once, refreshed in a forked child.
_pid = os.getpid()


def _after_fork() -> None:
    global _pid
    _pid = os.getpid()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


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


# What deliver() returns when the routes it was given were replaced before it took the
# lock (never a Windows status).
STALE = -1


def deliver(
    lock: threading.Lock,
    sessions: tuple[Session, ...],
    raw: RawEvent,
    reg: ProviderHandle | None = None,
    routes: dict[bytes, Route] | None = None,
) -> int:
    """All or nothing for the dependent sessions, room permitting for the independent
    (``lock`` is the backend's).  Given the registration and the routes ``sessions``
    came from, stores nothing and returns :data:`STALE` when an enable, a disable, a
    stop or an unregistration replaced those routes before the lock was taken: a
    change that has returned lets no event chosen under the old rules in."""
    status = ERROR_SUCCESS
    taken: list[Session] = []
    with lock:
        if reg is not None and reg.routes is not routes:
            return STALE
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

    The common case, a well-formed event that one session with a memory store and no
    consumer, file or capacity wants, runs inline and without the lock (see the module
    docstring); every other case goes through :func:`_write`.
    """
    if not _gil_guaranteed():
        return _locked_sender(reg, lock, now, current, failed)
    states = local_states
    guid = reg.guid
    limit = MAX_USER_DATA

    def send(
        descriptor: bytes,
        payload: bytes = b"",
        activity_id: bytes | None = None,
        related_activity_id: bytes | None = None,
    ) -> int:
        if activity_id is None:
            activity_id = current()
        if (
            type(payload) is bytes
            and len(payload) <= limit
            and (activity_id is None or len(activity_id) == 16)
            and (related_activity_id is None or len(related_activity_id) == 16)
        ):
            try:
                me: WriterState = states.state
            except AttributeError:
                me = writer_state()
            routes = reg.routes
            try:
                # Published, then checked to be still current: a controller that
                # replaced it waits until this write is stored (see .writers).
                me.routes = routes
                try:
                    single = routes[descriptor].single
                except (KeyError, TypeError):  # not cached yet, or not a descriptor at all
                    single = None
                if single is not None and reg.routes is routes:
                    single._store.append(  # type: ignore[union-attr]  # a single has a store
                        (guid, descriptor, now(), _pid, me.tid, activity_id,
                         related_activity_id, payload)
                    )  # fmt: skip
                    next(single._tally)
                    return ERROR_SUCCESS
            finally:
                me.routes = None
        status = _write(reg, lock, now, descriptor, payload, activity_id, related_activity_id)
        if status and failed is not None:
            failed(status)
        return status

    return send


_GIL: list[bool] = []


def _gil_guaranteed() -> bool:
    """True unless this is a free-threaded build of CPython (``Py_GIL_DISABLED``), where
    the lock-free path's ordering argument (see :mod:`.writers`) does not hold; asked
    once, when the first sender is made, since reading the build's configuration costs
    a few milliseconds."""
    if not _GIL:
        import sysconfig  # read once, only by processes that write in-process

        _GIL.append(not sysconfig.get_config_var("Py_GIL_DISABLED"))
    return _GIL[0]


def _locked_sender(
    reg: ProviderHandle,
    lock: threading.Lock,
    now: Callable[[], int],
    current: Callable[[], bytes | None],
    failed: Callable[[int], None] | None,
) -> Writer:
    """:func:`make_sender` for a build without the GIL: every write takes the lock."""

    def write(
        handle: object,
        descriptor: bytes,
        activity: bytes | None,
        related: bytes | None,
        payload: bytes,
    ) -> int:
        return _write(reg, lock, now, descriptor, payload, activity, related)  # handle is reg

    return bind_writer(write, reg, failed, current)


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
    invalid = (activity is not None and len(activity) != 16) or (
        related is not None and len(related) != 16
    )
    stamp = now()
    while True:
        routes = reg.routes  # the snapshot deliver() checks under the lock
        try:
            found = routes.get(descriptor)
        except TypeError:
            found = None
        route = found if found is not None else find_route(reg, descriptor)
        if isinstance(route, int):
            return route
        if invalid:
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
        raw = (reg.guid, descriptor, stamp, _pid, thread_id(), activity, related, payload)
        status = deliver(lock, sessions, raw, reg, routes)
        if status != STALE:
            return status
